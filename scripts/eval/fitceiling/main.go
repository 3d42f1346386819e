// Command fitceiling asks how far a lexical ranking can take a vault's
// note@3 when it is fitted to the very questions it is scored on: the
// ceiling of a family of rankings, not a ranking to ship.
//
// For each question it takes the notes of lore's own ranking before
// assembly (the first 300 sections) and describes each note by lexical
// features: lore's place for it and its score, FTS5's BM25 of its best
// section in each column alone (path, title, meta, heading, body) and in
// all with lore's weights, the sum of its three best sections, the share
// of the question's terms the note holds (plain, and weighted by each
// term's rarity), in its best section, and in its path and title, how
// many of its sections match, and its length; with -mode hybrid also the
// built-in model's similarity of its best section. A ranking of the
// family is a weighted sum of the features, each scaled by its largest
// value among the question's notes; the weights are fitted by coordinate
// ascent on note@3 itself, from lore's own ranking (the weight of lore's
// place alone) as the start, so a fit is never below lore on what it is
// fitted to.
//
// It prints note@3 for lore's ranking, for the weights fitted to every
// question (the family's ceiling when tuned to the test), and for
// two-fold cross-validation by the table's held-out split (fitted on one
// half, scored on the other: what the family generalizes to). A note
// counts when it is the answer's or judged to answer (the vault's
// judgments file); places nobody judged are printed apart as a range:
// counted as misses, and counted as answers. -unjudged writes those
// places for scripts/eval/places.py; -apply scores weights fitted on
// another vault; -without turns ranking stages off in lore's order, to fit
// a stage's weight from the ranking without it.
//
//	go build -tags sqlite_fts5 -o bin/lore ./cmd/lore
//	lore init DIR (a copy of the vault), lore --vault DIR index
//	go run -tags sqlite_fts5 ./scripts/eval/fitceiling -vault DIR \
//	    -judged testdata/eval/judged/obsidian-hub.jsonl SET.jsonl ...
//
// docs/decisions/hub-note3-ceiling.md has what it measured.
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	_ "github.com/mattn/go-sqlite3"

	"github.com/lore-memory/lore/embed"
	"github.com/lore-memory/lore/eval"
	"github.com/lore-memory/lore/fts"
	"github.com/lore-memory/lore/retrieve"
	"github.com/lore-memory/lore/tokenize"
	"github.com/lore-memory/lore/vault"
)

// The features of a note, in this order.
var featureNames = []string{
	"lore place", "lore score", "bm25 path", "bm25 title", "bm25 meta", "bm25 heading", "bm25 body",
	"bm25 all", "bm25 best three", "terms held", "rare terms held", "rare terms in best section",
	"rare terms in path or title", "sections matched", "sections", "share of sections matched", "similarity of best section",
}

// A note is one candidate note of a question: its features and whether it
// answers (1), was judged not to (0), or was not judged (-1).
type note struct {
	path    string
	places  []eval.Judgment // its place to judge, when it has not been
	f       []float64
	answers int
}

type question struct {
	query string
	held  bool
	notes []note
}

func main() {
	dir := flag.String("vault", "", "an initialized, indexed copy of the vault")
	judged := flag.String("judged", "", "the vault's judgments file")
	seed := flag.String("seed", "83", "the held-out split's seed (lore eval --hold-out)")
	mode := flag.String("mode", "lexical", "lexical, or hybrid: lore's hybrid ranking and the built-in model's similarity as a feature")
	apply := flag.String("apply", "", "also score these weights (comma-separated, in the order of the weights a fit prints), fitted elsewhere")
	depth := flag.Int("depth", 300, "the sections of lore's ranking the notes are taken from, and their features read over")
	only := flag.String("features", "", "fit only these features (comma-separated names; lore place always)")
	unjudged := flag.String("unjudged", "", "write the places nobody judged in the first three of the fitted rankings here, for scripts/eval/places.py")
	without := flag.String("without", "", "turn these ranking stages, or parts of one, off in lore's order (comma-separated, as lore eval --without): to fit a term's weight from the ranking without it")
	flag.Parse()
	if *dir == "" || *judged == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: fitceiling -vault DIR -judged FILE SET.jsonl ...")
		os.Exit(2)
	}
	o := options{dir: *dir, judged: *judged, seed: *seed, mode: *mode, unjudged: *unjudged, depth: *depth, sets: flag.Args()}
	if *without != "" {
		o.without = strings.Split(*without, ",")
	}
	if err := o.parse(*only, *apply); err != nil {
		fmt.Fprintln(os.Stderr, "fitceiling:", err)
		os.Exit(2)
	}
	if err := run(context.Background(), o); err != nil {
		fmt.Fprintln(os.Stderr, "fitceiling:", err)
		os.Exit(1)
	}
}

// options are the command line's, parsed.
type options struct {
	dir, judged, seed, mode, unjudged string
	depth                             int
	sets, without                     []string
	// start is the ranking the fits start from: lore's place alone, or
	// its score alone when -features names the score and not the place
	// (the same order either way).
	start []float64
	// allowed are the features a fit may weigh (-features; nil: all).
	allowed map[int]bool
	// given are weights fitted elsewhere, to score here too (-apply).
	given []float64
}

// parse reads -features and -apply into o.
func (o *options) parse(only, apply string) error {
	o.start = make([]float64, len(featureNames))
	o.start[0] = 1
	if only != "" {
		o.allowed = map[int]bool{}
		for _, name := range strings.Split(only, ",") {
			k := slices.Index(featureNames, strings.TrimSpace(name))
			if k < 0 {
				return fmt.Errorf("-features: no feature %q", name)
			}
			o.allowed[k] = true
		}
		if o.allowed[1] && !o.allowed[0] {
			o.start[0], o.start[1] = 0, 1
		} else {
			o.allowed[0] = true
		}
	}
	if apply != "" {
		for _, x := range strings.Split(apply, ",") {
			f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
			if err != nil {
				return fmt.Errorf("-apply: %w", err)
			}
			o.given = append(o.given, f)
		}
		if len(o.given) != len(featureNames) {
			return fmt.Errorf("-apply: %d weights for %d features", len(o.given), len(featureNames))
		}
	}
	return nil
}

func run(ctx context.Context, o options) error {
	v, err := vault.Open(o.dir)
	if err != nil {
		return err
	}
	defer v.Close()
	m, err := retrieve.Open(ctx, v)
	if err != nil {
		return err
	}
	defer m.Close()
	if err := m.Pipeline.Without(o.without...); err != nil {
		return err
	}
	if _, err := m.Index.Refresh(ctx, nil); err != nil {
		return err
	}
	var em embed.Embedder
	if o.mode == "hybrid" {
		modelDir, err := embed.DefaultModelDir()
		if err != nil {
			return err
		}
		if em, err = embed.FromConfig(v.Config.Embedding, modelDir); err != nil {
			return err
		}
		if err := m.Index.Vectors().Use(ctx, em); err != nil {
			return err
		}
		if _, err := m.Index.Vectors().Embed(ctx, nil); err != nil {
			return err
		}
	}
	db, err := sql.Open("sqlite3", "file:"+v.IndexPath()+"?mode=ro")
	if err != nil {
		return err
	}
	defer db.Close()
	j, err := eval.LoadJudgments(o.judged)
	if err != nil {
		return err
	}
	var total float64
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM units`).Scan(&total); err != nil {
		return err
	}
	var qs []question
	for _, set := range o.sets {
		questions, err := eval.LoadQuestions(set)
		if err != nil {
			return fmt.Errorf("%s: %w", set, err)
		}
		for _, q := range questions {
			notes, err := describe(ctx, m, db, em, o.mode, o.depth, total, q.Query)
			if err != nil {
				return fmt.Errorf("%q: %w", q.Query, err)
			}
			for i := range notes {
				f, unjudged := j.Read(q, eval.Ranked{Notes: []string{notes[i].path}})
				switch {
				case f.Note3:
					notes[i].answers = 1
				case len(unjudged) > 0:
					notes[i].answers = -1
					notes[i].places = unjudged
				}
			}
			qs = append(qs, question{query: q.Query, held: eval.HeldOut(o.seed, q.Query), notes: notes})
		}
	}
	var read, held []question
	for _, q := range qs {
		if q.held {
			held = append(held, q)
		} else {
			read = append(read, q)
		}
	}
	lore := o.start
	fmt.Printf("%d questions (%d read, %d held out by seed %s), %d features\n\n", len(qs), len(read), len(held), o.seed, len(featureNames))
	fmt.Println("| ranking | scored on | note@3, unjudged as misses | note@3, unjudged as answers |")
	fmt.Println("|---|---|---|---|")
	row := func(name, on string, w []float64, qs []question) {
		lo, hi := score(w, qs)
		fmt.Printf("| %s | %s (%d) | %.3f | %.3f |\n", name, on, len(qs), lo, hi)
	}
	row("lore's order (where the fits start)", "all", lore, qs)
	all := fit(lore, o.allowed, qs)
	row("fitted to all", "all", all, qs)
	onRead := fit(lore, o.allowed, read)
	onHeld := fit(lore, o.allowed, held)
	row("fitted to the read half", "the held-out half", onRead, held)
	row("fitted to the held-out half", "the read half", onHeld, read)
	lo1, hi1 := score(onRead, held)
	lo2, hi2 := score(onHeld, read)
	n1, n2 := float64(len(held)), float64(len(read))
	fmt.Printf("| two-fold cross-validation | all (%d) | %.3f | %.3f |\n", len(qs), (lo1*n1+lo2*n2)/(n1+n2), (hi1*n1+hi2*n2)/(n1+n2))
	ws := [][]float64{all, onRead, onHeld}
	if o.given != nil {
		row("the weights given (-apply)", "all", o.given, qs)
		ws = append(ws, o.given)
	}
	if o.unjudged != "" {
		if err := eval.WritePlaces(o.unjudged, unjudgedPlaces(qs, ws)); err != nil {
			return err
		}
	}
	fmt.Println("\nquestions the weights fitted to all answer in the first three and lore's order does not, with the note that answers:")
	for _, q := range qs {
		if hit(lore, q) == "" {
			if n := hit(all, q); n != "" {
				fmt.Printf("  %s — %s\n", q.query, n)
			}
		}
	}
	fmt.Println("\nweights fitted (feature: to all, to the read half, to the held-out half):")
	for i, name := range featureNames {
		fmt.Printf("  %-28s %g, %g, %g\n", name, all[i], onRead[i], onHeld[i])
	}
	fmt.Printf("-apply %s\n", joinWeights(all))
	return nil
}

// describe returns the candidate notes of query q with their features,
// each scaled by its largest value among them.
func describe(ctx context.Context, m *retrieve.Memory, db *sql.DB, em embed.Embedder, mode string, depth int, total float64, q string) ([]note, error) {
	ranked, err := m.Pipeline.Rank(ctx, q, mode, "", depth)
	if err != nil {
		return nil, err
	}
	type unitInfo struct {
		path  string
		score float64
		bm    [6]float64
	}
	keys := make([]string, 0, len(ranked))
	for _, u := range ranked {
		keys = append(keys, u.UnitKey)
	}
	uidOf := map[string]int64{}
	if err := each(ctx, db, `SELECT uid, unit_key FROM units WHERE unit_key IN (`+placeholders(len(keys))+`)`, anys(keys), func(rows *sql.Rows) error {
		var uid int64
		var key string
		if err := rows.Scan(&uid, &key); err != nil {
			return err
		}
		uidOf[key] = uid
		return nil
	}); err != nil {
		return nil, err
	}
	units := map[int64]*unitInfo{}
	var order []string
	place := map[string]int{}
	var uids []int64
	for _, u := range ranked {
		if _, ok := place[u.Path]; !ok {
			place[u.Path] = len(order) + 1
			order = append(order, u.Path)
		}
		if uid, ok := uidOf[u.UnitKey]; ok {
			units[uid] = &unitInfo{path: u.Path, score: u.Score}
			uids = append(uids, uid)
		}
	}
	in := idList(uids)
	ts := tokenize.QueryTerms(tokenize.CutQuery(q))
	if len(ts) == 0 || len(uids) == 0 {
		return nil, nil
	}
	match := fts.MatchExpr(ts)
	w := fts.DefaultWeights() // the lexical stage's column weights, for "bm25 all"
	all := fmt.Sprintf("bm25(units_fts, %g, %g, %g, %g, %g)", w.Path, w.Title, w.Meta, w.Heading, w.Body)
	if err := each(ctx, db, `SELECT rowid, bm25(units_fts, 1, 0, 0, 0, 0), bm25(units_fts, 0, 1, 0, 0, 0), bm25(units_fts, 0, 0, 1, 0, 0),
		bm25(units_fts, 0, 0, 0, 1, 0), bm25(units_fts, 0, 0, 0, 0, 1), `+all+`
		FROM units_fts WHERE units_fts MATCH ? AND rowid IN (`+in+`)`, []any{match}, func(rows *sql.Rows) error {
		var uid int64
		var b [6]float64
		if err := rows.Scan(&uid, &b[0], &b[1], &b[2], &b[3], &b[4], &b[5]); err != nil {
			return err
		}
		for k := range b {
			b[k] = -b[k]
		}
		units[uid].bm = b
		return nil
	}); err != nil {
		return nil, err
	}
	// Which of the candidates hold each term, anywhere and in the path or
	// title, and each term's rarity over the vault's sections.
	type termInfo struct {
		idf              float64
		any, pathOrTitle map[int64]bool
	}
	terms := make([]termInfo, len(ts))
	for k, t := range ts {
		one := fts.MatchExpr([]string{t})
		var df float64
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM units_fts WHERE units_fts MATCH ?`, one).Scan(&df); err != nil {
			return nil, err
		}
		terms[k] = termInfo{idf: math.Log(1 + total/(1+df)), any: map[int64]bool{}, pathOrTitle: map[int64]bool{}}
		for _, c := range []struct {
			expr string
			into map[int64]bool
		}{{one, terms[k].any}, {"{path title} : " + one, terms[k].pathOrTitle}} {
			if err := each(ctx, db, `SELECT rowid FROM units_fts WHERE units_fts MATCH ? AND rowid IN (`+in+`)`, []any{c.expr}, func(rows *sql.Rows) error {
				var uid int64
				if err := rows.Scan(&uid); err != nil {
					return err
				}
				c.into[uid] = true
				return nil
			}); err != nil {
				return nil, err
			}
		}
	}
	var sims map[int64]float64
	if em != nil {
		qv, err := em.Embed(ctx, []string{q})
		if err != nil {
			return nil, err
		}
		if sims, err = m.Index.Lookups().Similarities(ctx, qv[0], uids); err != nil {
			return nil, err
		}
	}
	var idfSum float64
	for _, t := range terms {
		idfSum += t.idf
	}
	byNote := map[string][]int64{}
	for _, uid := range uids {
		p := units[uid].path
		byNote[p] = append(byNote[p], uid)
	}
	sections := map[string]float64{}
	if err := each(ctx, db, `SELECT r.path, count(*) FROM units u JOIN resources r ON r.rid = u.rid
		WHERE r.path IN (`+placeholders(len(order))+`) AND r.draft = '' GROUP BY r.path`, anys(order), func(rows *sql.Rows) error {
		var p string
		var n float64
		if err := rows.Scan(&p, &n); err != nil {
			return err
		}
		sections[p] = n
		return nil
	}); err != nil {
		return nil, err
	}
	notes := make([]note, 0, len(order))
	for _, p := range order {
		f := make([]float64, len(featureNames))
		f[0] = 1 / float64(place[p])
		var bests []float64
		held, rare, bestRare, pathRare := 0.0, 0.0, 0.0, 0.0
		matched := 0.0
		for _, uid := range byNote[p] {
			u := units[uid]
			f[1] = math.Max(f[1], u.score)
			for k := 0; k < 6; k++ {
				f[2+k] = math.Max(f[2+k], u.bm[k])
			}
			bests = append(bests, u.bm[5])
			f[16] = math.Max(f[16], sims[uid])
			if u.bm[5] > 0 {
				matched++
			}
			r := 0.0
			for _, t := range terms {
				if t.any[uid] {
					r += t.idf
				}
			}
			bestRare = math.Max(bestRare, r)
		}
		for _, t := range terms {
			hold, inPath := false, false
			for _, uid := range byNote[p] {
				hold = hold || t.any[uid]
				inPath = inPath || t.pathOrTitle[uid]
			}
			if hold {
				held++
				rare += t.idf
			}
			if inPath {
				pathRare += t.idf
			}
		}
		sort.Sort(sort.Reverse(sort.Float64Slice(bests)))
		for k := 0; k < len(bests) && k < 3; k++ {
			f[8] += bests[k]
		}
		f[9] = held / float64(len(terms))
		f[10] = rare / idfSum
		f[11] = bestRare / idfSum
		f[12] = pathRare / idfSum
		f[13] = matched
		f[14] = math.Log(1 + sections[p])
		if sections[p] > 0 {
			f[15] = matched / sections[p]
		}
		notes = append(notes, note{path: p, f: f})
	}
	// lore's score as its order holds it: an exact match is placed first
	// whatever its score, so a note's score is at least that of every note
	// placed after it (ties keep lore's order), and the score alone ranks as
	// the place alone does.
	for i := len(notes) - 2; i >= 0; i-- {
		notes[i].f[1] = math.Max(notes[i].f[1], notes[i+1].f[1])
	}
	for k := 1; k < len(featureNames); k++ { // scale each feature by its largest value
		top := 0.0
		for _, n := range notes {
			top = math.Max(top, n.f[k])
		}
		if top > 0 {
			for _, n := range notes {
				n.f[k] /= top
			}
		}
	}
	return notes, nil
}

// unjudgedPlaces are the places nobody judged that any of the rankings
// ws puts in a question's first three when none there is judged to
// answer, once each, for eval.WritePlaces.
func unjudgedPlaces(qs []question, ws [][]float64) []eval.Judgment {
	var out []eval.Judgment
	seen := map[[2]string]bool{}
	for _, q := range qs {
		for _, w := range ws {
			first := firstThree(w, q)
			if slices.ContainsFunc(first, func(i int) bool { return q.notes[i].answers == 1 }) {
				continue // judging the rest changes nothing
			}
			for _, i := range first {
				n := q.notes[i]
				if k := [2]string{q.query, n.path}; n.answers == -1 && !seen[k] {
					seen[k] = true
					out = append(out, n.places...)
				}
			}
		}
	}
	return out
}

// firstThree is the indexes of the notes w puts first for q, at most three.
func firstThree(w []float64, q question) []int {
	type scored struct {
		s float64
		i int
	}
	ss := make([]scored, len(q.notes))
	for i, n := range q.notes {
		s := 0.0
		for k, x := range n.f {
			s += w[k] * x
		}
		ss[i] = scored{s, i}
	}
	sort.Slice(ss, func(a, b int) bool {
		if ss[a].s != ss[b].s {
			return ss[a].s > ss[b].s
		}
		return ss[a].i < ss[b].i // ties: lore's order
	})
	var out []int
	for k := 0; k < len(ss) && k < 3; k++ {
		out = append(out, ss[k].i)
	}
	return out
}

// hit is the first note of w's first three for q judged to answer, or "".
func hit(w []float64, q question) string {
	for _, i := range firstThree(w, q) {
		if q.notes[i].answers == 1 {
			return q.notes[i].path
		}
	}
	return ""
}

// score is note@3 of the ranking w over qs: unjudged notes in the first
// three counted as misses, and counted as answers.
func score(w []float64, qs []question) (lo, hi float64) {
	var nLo, nHi int
	for _, q := range qs {
		gotLo, gotHi := false, false
		for _, i := range firstThree(w, q) {
			a := q.notes[i].answers
			gotLo = gotLo || a == 1
			gotHi = gotHi || a != 0
		}
		if gotLo {
			nLo++
		}
		if gotHi {
			nHi++
		}
	}
	if len(qs) == 0 {
		return 0, 0
	}
	return float64(nLo) / float64(len(qs)), float64(nHi) / float64(len(qs))
}

// fit is coordinate ascent on note@3 (unjudged as misses) from start: each
// weight in turn tried at a ladder of values, the best kept, until a round
// changes nothing.
func fit(start []float64, allowed map[int]bool, qs []question) []float64 {
	w := append([]float64(nil), start...)
	best, _ := score(w, qs)
	steps := []float64{-4, -2, -1, -0.5, -0.25, -0.1, 0, 0.1, 0.25, 0.5, 1, 2, 4}
	for round := 0; round < 20; round++ {
		changed := false
		for k := range w {
			if allowed != nil && !allowed[k] {
				continue
			}
			keep := w[k]
			for _, s := range steps {
				w[k] = s
				if got, _ := score(w, qs); got > best {
					best, keep, changed = got, s, true
				}
			}
			w[k] = keep
		}
		if !changed {
			break
		}
	}
	return w
}

func joinWeights(w []float64) string {
	s := make([]string, len(w))
	for i, x := range w {
		s[i] = strconv.FormatFloat(x, 'g', -1, 64)
	}
	return strings.Join(s, ",")
}

func each(ctx context.Context, db *sql.DB, query string, args []any, f func(*sql.Rows) error) error {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := f(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

func placeholders(n int) string {
	if n == 0 {
		return "NULL"
	}
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

func anys(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

func idList(uids []int64) string {
	ids := make([]string, len(uids))
	for i, u := range uids {
		ids[i] = fmt.Sprint(u)
	}
	return strings.Join(ids, ",")
}

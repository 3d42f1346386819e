package fts

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	pathpkg "path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	vec "github.com/asg017/sqlite-vec-go-bindings/cgo"

	"github.com/lore-memory/lore/fts/internal/memindex"
	"github.com/lore-memory/lore/vault"
)

// Lookups are the reads the retrieval pipeline (package retrieve) is built
// from: units by exact name, by BM25 over tokens, by vector, by id or key,
// and the link graph around them. Each reads the index as it is; the
// pipeline refreshes it first. Every lookup sees one project's Effective
// Memory (visibleTo), so what the pipeline ranks is what the project may read.
type Lookups struct{ ix *Index }

// Lookups returns the index's lookups.
func (ix *Index) Lookups() Lookups { return Lookups{ix} }

// Weights are the BM25 column weights of the FTS table, in column order.
type Weights struct {
	Path, Title, Meta, Heading, Body float64
}

// columnWeights are the integer BM25 weights of the FTS columns: a match in
// the path or title says more than one in the body (tuned on SciFact and the
// demo vault; see the package doc). They are constants, and integers, because
// the in-memory scorer keeps weighted term counts as uint16 (package memindex):
// one set of weights, which the two scorers cannot disagree on.
const (
	weightPath    = 8
	weightTitle   = 6
	weightMeta    = 3
	weightHeading = 4
	weightBody    = 1
)

// DefaultWeights returns the column weights both scorers use.
func DefaultWeights() Weights {
	return Weights{Path: weightPath, Title: weightTitle, Meta: weightMeta, Heading: weightHeading, Body: weightBody}
}

var hitColumns = `u.unit_key, r.resource_id, r.path, r.title, u.heading_path, r.project, r.status, ` + hashSQL("u.content_hash") + `, r.fspath, u.tokens, u.uid, u.start_byte, u.end_byte, u.start_line, r.rid, r.draft, u.bare`

func scanHit(rows *sql.Rows, extra ...any) (Unit, error) {
	var h Unit
	var hp, project string
	dest := append([]any{&h.UnitKey, &h.ResourceID, &h.Path, &h.Title, &hp, &project, &h.Status, &h.ContentHash, &h.fspath, &h.Tokens, &h.UID, &h.Start, &h.End, &h.Line, &h.RID, &h.DraftID, &h.Bare}, extra...)
	if err := rows.Scan(dest...); err != nil {
		return h, err
	}
	_ = json.Unmarshal([]byte(hp), &h.HeadingPath)
	if h.HeadingPath == nil {
		h.HeadingPath = []string{}
	}
	h.Scope = vault.ScopeOf(project)
	return h, nil
}

// visibleTo returns the SQL condition (on resources aliased r) for the
// Effective Memory of a project, and its arguments: shared and the project's
// own working-tree resources, less the paths its open Drafts shadow, plus the
// Draft versions it carries. With no project: every working-tree resource and
// no Draft. Journal notes are left out for every project: they are the
// journal's own, read through its tools (journalVisibleTo).
func visibleTo(project string) (string, []any) {
	vis, args := journalVisibleTo(project)
	return "(" + vis + " AND " + notJournal + ")", args
}

// publishedPrefix and unshadowedPrefix start view names that no project
// has (publishedView, PublishedUnshadowed).
const (
	publishedPrefix  = "\x00published:"
	unshadowedPrefix = "\x00unshadowed:"
)

// PublishedUnshadowed is the view of the published units a project sees as
// they are: its Effective Memory without its Drafts' rows and without the
// published units they shadow. Activate and search read it beside the
// project's own view when a Draft is among its hits (retrieve's
// withPublished).
func PublishedUnshadowed(project string) string { return unshadowedPrefix + project }

// memView is visibleTo's project argument as the in-memory copy reads it.
func memView(project string) memindex.View {
	if p, ok := strings.CutPrefix(project, publishedPrefix); ok {
		return memindex.View{Project: p, Published: true}
	}
	if p, ok := strings.CutPrefix(project, unshadowedPrefix); ok {
		return memindex.View{Project: p, Published: true, Unshadowed: true}
	}
	return memindex.View{Project: project}
}

// notJournal is true of a resource outside the journal's folder
// (vault.JournalFolder); substr, not LIKE, which ignores case.
const notJournal = "substr(r.path, 1, 8) != 'journal/'"

// journalVisibleTo is visibleTo with the journal's notes: what the journal
// tools read of a project's memory (Under a journal folder).
func journalVisibleTo(project string) (string, []any) {
	if project == "" {
		return "(r.draft = '')", nil
	}
	if p, ok := strings.CutPrefix(project, publishedPrefix); ok { // publishedView (embedtext.go)
		return "(r.draft = '' AND (r.project = '' OR r.project = ?))", []any{p}
	}
	if p, ok := strings.CutPrefix(project, unshadowedPrefix); ok { // PublishedUnshadowed
		return `(r.draft = '' AND (r.project = '' OR r.project = ?)
		AND NOT EXISTS (SELECT 1 FROM shadows s WHERE s.project = ? AND s.path = r.path))`, []any{p, p}
	}
	return `((r.draft = '' AND (r.project = '' OR r.project = ?)
		AND NOT EXISTS (SELECT 1 FROM shadows s WHERE s.project = ? AND s.path = r.path))
		OR r.dproject = ?)`, []any{project, project, project}
}

// args joins query arguments.
func args(parts ...[]any) []any {
	var out []any
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// Exact returns the notes the query names, as Obsidian's quick switcher
// finds a note: by id, path, file name, title or alias, the name compared
// as links compare names (vault.NameKey), best first by the tie rule links
// use (vault/linknames.go), at most three. Each note comes as its first
// section that says something (a preamble of badges and comments does not:
// markdown.SaysNothing), else its first.
func (l Lookups) Exact(ctx context.Context, q, project string) ([]Unit, error) {
	ix := l.ix
	key := vault.NameKey(q)
	if key == "" {
		return nil, nil
	}
	vis, vargs := visibleTo(project)
	// The lookups come first (CROSS JOIN keeps SQLite to that order): without
	// statistics the planner would otherwise walk every resource.
	rows, err := ix.db.QueryContext(ctx, `SELECT `+hitColumns+`, x.kind FROM (SELECT rid, `+strconv.Itoa(vault.NameID)+` AS kind FROM resources WHERE resource_id = ?
		UNION ALL SELECT rid, `+strconv.Itoa(vault.NamePath)+` FROM resources WHERE path = ?
		UNION ALL SELECT rid, `+strconv.Itoa(vault.NameTitle)+` FROM resources WHERE title_key = ?
		UNION ALL SELECT rid, kind FROM names WHERE name = ?) x
		CROSS JOIN resources r ON r.rid = x.rid CROSS JOIN units u ON u.rid = r.rid
		WHERE r.indexed = 1 AND `+vis+`
		AND u.ord = COALESCE((SELECT MIN(ord) FROM units WHERE rid = r.rid AND bare = 0), (SELECT MIN(ord) FROM units WHERE rid = r.rid))`,
		args([]any{strings.TrimSpace(q), vault.NormalizePath(q), titleKey(q), key}, vargs)...)
	if err != nil {
		return nil, translate(err)
	}
	defer rows.Close()
	best := map[int64]int{} // rid → its place in out
	var out []Unit
	var kinds []resolved
	for rows.Next() {
		var kind int
		h, err := scanHit(rows, &kind)
		if err != nil {
			return nil, err
		}
		r := resolved{rid: h.RID, path: h.Path, kind: kind}
		if i, ok := best[h.RID]; ok {
			if r.better(kinds[i]) {
				kinds[i] = r
			}
			continue
		}
		best[h.RID] = len(out)
		out, kinds = append(out, h), append(kinds, r)
	}
	if err := rows.Err(); err != nil {
		return nil, translate(err)
	}
	order := make([]int, len(out))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return kinds[order[i]].better(kinds[order[j]]) })
	sorted := make([]Unit, 0, min(3, len(out)))
	for _, i := range order[:min(3, len(order))] {
		u := out[i]
		u.Stage, u.Score = "exact", 1e9
		sorted = append(sorted, u)
	}
	return ix.withTexts(ctx, sorted), nil
}

// readUnits reads the rows of a query answering hitColumns, with their
// texts (texts.go).
func (ix *Index) readUnits(ctx context.Context, rows *sql.Rows, err error) ([]Unit, error) {
	if err != nil {
		return nil, translate(err)
	}
	defer rows.Close()
	var out []Unit
	for rows.Next() {
		h, err := scanHit(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	if err := rows.Err(); err != nil {
		return nil, translate(err)
	}
	return ix.withTexts(ctx, out), nil
}

// idList is uids as a list for SQL's IN (integers only, so nothing to quote).
func idList(uids []int64) string {
	ids := make([]string, len(uids))
	for i, u := range uids {
		ids[i] = strconv.FormatInt(u, 10)
	}
	return strings.Join(ids, ",")
}

// BM25 runs the lexical stage over an OR of the query tokens ts
// (QueryTerms). Scores are
// FTS5's bm25 negated (higher is better), from the in-memory postings when
// this process keeps them (the same scores; see package memindex).
func (l Lookups) BM25(ctx context.Context, ts []string, project string, limit int) ([]Unit, error) {
	e, err := l.ix.lexicalEngine(ctx)
	if err != nil {
		return nil, err
	}
	return e.bm25(ctx, ts, project, limit)
}

// memHits reads the rows of the in-memory scorer's winners, in its order.
func (ix *Index) memHits(ctx context.Context, found []memindex.Hit) ([]Unit, error) {
	if len(found) == 0 {
		return nil, nil
	}
	uids := make([]int64, len(found))
	for i, f := range found {
		uids[i] = f.UID
	}
	units, err := ix.Lookups().Units(ctx, uids)
	if err != nil {
		return nil, err
	}
	byUID := make(map[int64]Unit, len(found))
	for _, h := range units {
		byUID[h.UID] = h
	}
	out := make([]Unit, 0, len(found))
	for _, f := range found {
		h, ok := byUID[f.UID]
		if !ok { // deleted since the postings were brought up to date
			continue
		}
		h.Stage, h.Score = "bm25", f.Score
		out = append(out, h)
	}
	// The winners are chosen by (score, uid), then listed by (score,
	// unit_key), as bm25FTS's two queries do.
	SortHits(out)
	return out, nil
}

// SortHits lists BM25 hits as the lexical stage does: best score first,
// then by unit key.
func SortHits(hits []Unit) {
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].UnitKey < hits[j].UnitKey
	})
}

// bm25FTS is the lexical stage in SQL: FTS5 matches and ranks.
func (ix *Index) bm25FTS(ctx context.Context, match, project string, w Weights, limit int) ([]Unit, error) {
	rank := fmt.Sprintf("bm25(units_fts, %g, %g, %g, %g, %g)", w.Path, w.Title, w.Meta, w.Heading, w.Body)
	// The inner query ranks and cuts on (rowid, score) alone, so the sorter
	// never carries unit text; the outer one fetches the few winners. Without
	// a project and with no Draft in the index every unit is visible and the
	// inner query needs no join.
	inner := `SELECT rowid AS uid, ` + rank + ` AS s FROM units_fts WHERE units_fts MATCH ? ORDER BY s, rowid LIMIT ?`
	qargs := []any{match, limit}
	if project != "" || ix.hasDrafts(ctx) {
		vis, vargs := visibleTo(project)
		inner = `SELECT f.rowid AS uid, ` + rank + ` AS s FROM units_fts f
			JOIN units u ON u.uid = f.rowid JOIN resources r ON r.rid = u.rid
			WHERE units_fts MATCH ? AND ` + vis + ` ORDER BY s, f.rowid LIMIT ?`
		qargs = args([]any{match}, vargs, []any{limit})
	}
	rows, err := ix.db.QueryContext(ctx, `SELECT `+hitColumns+`, m.s FROM (`+inner+`) m
		JOIN units u ON u.uid = m.uid JOIN resources r ON r.rid = u.rid
		ORDER BY m.s, u.unit_key`, qargs...)
	if err != nil {
		return nil, translate(fmt.Errorf("search %q: %w", match, err))
	}
	defer rows.Close()
	var out []Unit
	for rows.Next() {
		var s float64
		h, err := scanHit(rows, &s)
		if err != nil {
			return nil, err
		}
		h.Stage, h.Score = "bm25", -s
		out = append(out, h)
	}
	if err := rows.Err(); err != nil {
		return nil, translate(err)
	}
	return ix.withTexts(ctx, out), nil
}

// Load refreshes the index and returns the named resources with their
// exact bytes, in request order: by id or exact path, else by name — title,
// alias or file name, as Obsidian's quick switcher finds a note, with the
// tie rule links use. Any missing target is a CodeNotFound error naming
// every missing one.
func (ix *Index) Load(ctx context.Context, targets []string, project string) ([]vault.Loaded, error) {
	if len(targets) == 0 {
		return nil, vault.Errorf(vault.CodeInvalid, "ids is empty: name at least one resource id or path")
	}
	if _, err := ix.Refresh(ctx, nil); err != nil {
		return nil, err
	}
	var out []vault.Loaded
	var missing []string
	for _, t := range targets {
		r, err := ix.loadOne(ctx, t, project)
		if vault.ErrorCode(err) == vault.CodeNotFound {
			missing = append(missing, t)
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	if len(missing) > 0 {
		return nil, vault.Errorf(vault.CodeNotFound, "not in this project's memory: %s", strings.Join(missing, ", "))
	}
	return out, nil
}

func (ix *Index) loadOne(ctx context.Context, target, project string) (vault.Loaded, error) {
	p, err := vault.TargetPath(target)
	if err == nil {
		var r vault.Loaded
		r, err = ix.loadExact(ctx, target, p, project)
		if vault.ErrorCode(err) != vault.CodeNotFound {
			return r, err
		}
		// A symlink is another name of the note it points to: that note,
		// if this project sees it there.
		if to, lerr := ix.v.LinkTarget(filepath.FromSlash(p)); lerr == nil && to != "" {
			if r, err := ix.loadExact(ctx, to, to, project); vault.ErrorCode(err) != vault.CodeNotFound {
				return r, err
			}
		}
	}
	// Not an id or a path of this memory: a name, then.
	key := vault.NameKey(target)
	if key == "" || vault.CheckName("id", target) != nil {
		return vault.Loaded{}, err
	}
	got, rerr := ix.resolveKeys(ctx, []string{key}, project)
	if rerr != nil {
		return vault.Loaded{}, rerr
	}
	n, ok := got[key]
	if !ok {
		return vault.Loaded{}, err // not a path (invalid_input) or nothing by that path either (not found)
	}
	r := n.from("")
	return ix.loadExact(ctx, r.path, r.path, project)
}

// loadExact loads the resource whose id is target or whose path is p.
func (ix *Index) loadExact(ctx context.Context, target, p, project string) (vault.Loaded, error) {
	var r vault.Loaded
	var fspath, proj, problem string
	var indexed bool
	var rid sql.NullString
	var body []byte
	vis, vargs := visibleTo(project)
	err := ix.db.QueryRowContext(ctx, `SELECT resource_id, path, fspath, project, title, description, indexed, problem, draft, body
		FROM resources r WHERE (r.resource_id = ? OR r.path = ?) AND `+vis+` ORDER BY r.draft = '', r.draft DESC LIMIT 1`,
		args([]any{target, p}, vargs)...).Scan(&rid, &r.Path, &fspath, &proj, &r.Title, &r.Description, &indexed, &problem, &r.DraftID, &body)
	if errors.Is(err, sql.ErrNoRows) {
		return vault.Loaded{}, vault.Errorf(vault.CodeNotFound, "%s", target)
	}
	if err != nil {
		return vault.Loaded{}, translate(err)
	}
	if !indexed {
		return vault.Loaded{}, vault.Errorf(vault.CodeInvalid, "%s cannot be loaded: %s", target, problem)
	}
	data := body
	if r.DraftID == "" {
		if data, err = ix.v.ReadFile(fspath); err != nil {
			return vault.Loaded{}, fmt.Errorf("load %s: %w", target, err)
		}
	}
	r.ResourceID, r.Kind, r.Scope = rid.String, "memory", vault.ScopeOf(proj)
	r.ContentHash, r.Content = vault.HashBytes(data), string(data)
	return r, nil
}

// Unit is a unit the index found: the domain's Hit, and what the pipeline
// needs of its row (the text, its size and place, the row ids).
type Unit struct {
	vault.Hit
	Content    string
	Tokens     int
	UID        int64
	Start, End int
	RID        int64
	// Bare: the unit shows a reader nothing but its heading (comments,
	// pictures, embeds of attachments; markdown.SaysNothing at indexing).
	Bare   bool
	fspath string // where its note is in the working tree (texts.go)
}

// resolved is the resource a link name resolves to.
type resolved struct {
	rid        int64
	resourceID string
	path       string
	kind       int
}

// better reports whether a beats b under vault's tie rule: the stronger kind
// of name, then the shorter path, then the path that sorts first.
func (a resolved) better(b resolved) bool {
	if a.kind != b.kind {
		return a.kind < b.kind
	}
	if len(a.path) != len(b.path) {
		return len(a.path) < len(b.path)
	}
	return a.path < b.path
}

// named is every resource that answers to one name, best first by the tie
// rule.
type named []resolved

// from is the resource that a link written in the note at src resolves to:
// the best by the tie rule, except that among files of the link's name
// (NameBase) one in src's own folder comes first, as Obsidian resolves it
// (an exact path, NamePath, still comes before). src "" is no note (load,
// a name a person typed): the best.
func (n named) from(src string) resolved {
	best := n[0]
	if best.kind != vault.NameBase || src == "" {
		return best
	}
	dir := pathpkg.Dir(src)
	for _, r := range n {
		if r.kind != best.kind {
			break
		}
		if pathpkg.Dir(r.path) == dir {
			return r
		}
	}
	return best
}

// resolveKeys finds, for each link key (vault.LinkKey), the resources of
// project's Effective Memory that answer to it (vault/linknames.go has the
// rule); keys that name nothing are absent from the result.
func (ix *Index) resolveKeys(ctx context.Context, keys []string, project string) (map[string]named, error) {
	out := map[string]named{}
	for lo := 0; lo < len(keys); lo += 200 {
		batch := keys[lo:min(lo+200, len(keys))]
		vis, vargs := visibleTo(project)
		marks := make([]string, len(batch))
		var args []any
		for i, k := range batch {
			marks[i] = "?"
			args = append(args, k)
		}
		rows, err := ix.db.QueryContext(ctx, `SELECT n.name, r.rid, COALESCE(r.resource_id, ''), r.path, n.kind
			FROM names n CROSS JOIN resources r ON r.rid = n.rid
			WHERE n.name IN (`+strings.Join(marks, ",")+`) AND r.indexed = 1 AND `+vis, append(args, vargs...)...)
		if err != nil {
			return nil, translate(err)
		}
		for rows.Next() {
			var name string
			var r resolved
			if err := rows.Scan(&name, &r.rid, &r.resourceID, &r.path, &r.kind); err != nil {
				rows.Close()
				return nil, err
			}
			out[name] = append(out[name], r)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, translate(err)
		}
	}
	for _, n := range out {
		sort.Slice(n, func(i, j int) bool { return n[i].better(n[j]) })
	}
	return out, nil
}

// resolveLink returns the id and path of the resource a link target (an id,
// a path, a title, an alias, a base name, with or without [[ ]]) written in
// the note at src ("": none) names in project's Effective Memory, as
// Obsidian would resolve it; a target that names nothing is a CodeNotFound
// error.
func (ix *Index) resolveLink(ctx context.Context, target, project, src string) (id, path string, err error) {
	if _, err := ix.Refresh(ctx, nil); err != nil {
		return "", "", err
	}
	key := vault.LinkKey(target)
	if key == "" {
		return "", "", vault.Errorf(vault.CodeInvalid, "link target %q is empty", target)
	}
	got, err := ix.resolveKeys(ctx, []string{key}, project)
	if err != nil {
		return "", "", err
	}
	n, ok := got[key]
	if !ok {
		return "", "", vault.Errorf(vault.CodeNotFound, "no note is named %q (by id, path, title, alias or file name)", target)
	}
	r := n.from(src)
	return r.resourceID, r.path, nil
}

// LinkCounts returns how many links a resource writes, and from how many
// other resources of project's memory links resolve to it.
func (l Lookups) LinkCounts(ctx context.Context, rid int64, project string) (in, out int, err error) {
	ix := l.ix
	if err := ix.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM links WHERE rid = ? AND kind != '"+vault.MarkdownAlt+"'", rid).Scan(&out); err != nil {
		return 0, 0, translate(err)
	}
	vis, vargs := visibleTo(project)
	links, list, err := ix.linkKeys(ctx, `SELECT DISTINCT l.rid, r.path, l.target_key FROM links l CROSS JOIN resources r ON r.rid = l.rid
		WHERE l.target_key IN (SELECT name FROM names WHERE rid = ?) AND l.rid != ? AND `+vis, append([]any{rid, rid}, vargs...)...)
	if err != nil || len(links) == 0 {
		return 0, out, err
	}
	res, err := ix.resolveKeys(ctx, list, project)
	if err != nil {
		return 0, 0, err
	}
	from := map[int64]bool{}
	for _, l := range links {
		if n, ok := res[l.key]; ok && n.from(l.path).rid == rid {
			from[l.from] = true
		}
	}
	return len(from), out, nil
}

// link is one link: the resource that writes it, that resource's path, and
// its target's key.
type link struct {
	from int64
	path string
	key  string
}

// linkKeys runs a query answering (rid, path, target_key) rows and returns
// the links and their distinct keys.
func (ix *Index) linkKeys(ctx context.Context, q string, args ...any) ([]link, []string, error) {
	rows, err := ix.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, nil, translate(err)
	}
	defer rows.Close()
	var links []link
	keys := map[string]bool{}
	var list []string
	for rows.Next() {
		var l link
		if err := rows.Scan(&l.from, &l.path, &l.key); err != nil {
			return nil, nil, err
		}
		links = append(links, l)
		if !keys[l.key] {
			keys[l.key] = true
			list = append(list, l.key)
		}
	}
	return links, list, translate(rows.Err())
}

// UnitHashes returns which of keys resolve in the project's Effective
// Memory now, with their content hashes.
func (l Lookups) UnitHashes(ctx context.Context, keys []string, project string) (map[string]string, error) {
	ix := l.ix
	out := map[string]string{}
	err := ix.eachUnit(ctx, keys, project, "u.unit_key, "+hashSQL("u.content_hash"), func(rows *sql.Rows) error {
		var k, h string
		err := rows.Scan(&k, &h)
		out[k] = h
		return err
	})
	return out, err
}

// UnitsByKey returns the units with the given keys in the project's
// Effective Memory, by key.
func (l Lookups) UnitsByKey(ctx context.Context, keys []string, project string) (map[string]Unit, error) {
	ix := l.ix
	out := map[string]Unit{}
	b := noteBytes{ix: ix, kept: map[int64]noteRead{}}
	err := ix.eachUnit(ctx, keys, project, hitColumns, func(rows *sql.Rows) error {
		h, err := scanHit(rows)
		if err != nil {
			return err
		}
		if b.fill(ctx, &h) == nil {
			out[h.UnitKey] = h
		}
		return nil
	})
	return out, err
}

// eachUnit selects columns of the units with the given keys in the
// project's Effective Memory, 200 keys a query, and hands each row to scan.
// Units are found through the resources' id index (a unit key starts with
// its resource id): units have no index of keys.
func (ix *Index) eachUnit(ctx context.Context, keys []string, project, columns string, scan func(*sql.Rows) error) error {
	for lo := 0; lo < len(keys); lo += 200 {
		batch := keys[lo:min(lo+200, len(keys))]
		vis, qargs := visibleTo(project)
		ids := map[string]bool{}
		var idMarks, keyMarks []string
		var idArgs []any
		for _, k := range batch {
			keyMarks = append(keyMarks, "?")
			qargs = append(qargs, k)
			if id := vault.KeyResource(k); !ids[id] {
				ids[id] = true
				idMarks, idArgs = append(idMarks, "?"), append(idArgs, id)
			}
		}
		rows, err := ix.db.QueryContext(ctx, `SELECT `+columns+` FROM resources r CROSS JOIN units u ON u.rid = r.rid
			WHERE `+vis+` AND u.unit_key IN (`+strings.Join(keyMarks, ",")+`) AND r.resource_id IN (`+strings.Join(idMarks, ",")+`)`,
			append(qargs, idArgs...)...)
		if err != nil {
			return translate(err)
		}
		for rows.Next() {
			if err := scan(rows); err != nil {
				rows.Close()
				return err
			}
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return translate(err)
		}
	}
	return nil
}

// LeadUnit returns the first unit of a resource (by id, in project's
// memory) that holds more than its heading: what stands for the resource
// when it is brought in as a successor.
func (l Lookups) LeadUnit(ctx context.Context, id, project string) (Unit, bool) {
	ix := l.ix
	vis, vargs := visibleTo(project)
	rows, err := ix.db.QueryContext(ctx, `SELECT `+hitColumns+` FROM resources r CROSS JOIN units u ON u.rid = r.rid
		WHERE r.resource_id = ? AND r.indexed = 1 AND `+vis+` ORDER BY (u.tokens >= 20) DESC, u.ord LIMIT 1`,
		append([]any{id}, vargs...)...)
	if err != nil {
		return Unit{}, false
	}
	defer rows.Close()
	if !rows.Next() {
		return Unit{}, false
	}
	h, err := scanHit(rows)
	return h, err == nil && ix.textOf(ctx, &h) == nil
}

// Successors returns the ids of resources that supersede this one: those
// whose supersedes names it (by any of its names), and those its
// superseded_by names.
func (l Lookups) Successors(ctx context.Context, rid int64, id string) []string {
	out, _ := queryColumn[string](ctx, l.ix.db, `SELECT r.resource_id FROM links l JOIN resources r ON r.rid = l.rid
		WHERE l.kind = 'supersedes' AND l.target_key IN (SELECT name FROM names WHERE rid = ?) AND r.rid != ?
		UNION SELECT r.resource_id FROM links l JOIN names n ON n.name = l.target_key JOIN resources r ON r.rid = n.rid
		WHERE l.rid = ? AND l.kind = 'superseded_by' AND r.rid != ?`, rid, rid, rid, rid)
	return out
}

// Units returns the units with the given row ids, in no particular order;
// ids deleted since they were found are absent.
func (l Lookups) Units(ctx context.Context, uids []int64) ([]Unit, error) {
	if len(uids) == 0 {
		return nil, nil
	}
	rows, err := l.ix.db.QueryContext(ctx, `SELECT `+hitColumns+` FROM units u JOIN resources r ON r.rid = u.rid
		WHERE u.uid IN (`+idList(uids)+`)`)
	return l.ix.readUnits(ctx, rows, err)
}

// Similarities returns the cosine similarity to qv of each of the units
// that has a vector; units not embedded yet are absent.
func (l Lookups) Similarities(ctx context.Context, qv []float32, uids []int64) (map[int64]float64, error) {
	if len(uids) == 0 {
		return nil, nil
	}
	blob, err := vec.SerializeFloat32(qv)
	if err != nil {
		return nil, err
	}
	rows, err := l.ix.db.QueryContext(ctx, `SELECT u.uid, 1 - vec_distance_cosine(v.embedding, ?) FROM units u
		JOIN embeddings e ON e.embed_hash = u.embed_hash JOIN unit_vectors v ON v.rowid = e.vec_rowid
		WHERE u.uid IN (`+idList(uids)+`)`, blob)
	if err != nil {
		return nil, translate(fmt.Errorf("similarities: %w", err))
	}
	defer rows.Close()
	out := make(map[int64]float64, len(uids))
	for rows.Next() {
		var uid int64
		var sim float64
		if err := rows.Scan(&uid, &sim); err != nil {
			return nil, err
		}
		out[uid] = sim
	}
	return out, translate(rows.Err())
}

// Linked returns which of the resources rids link to, or are linked from,
// another of them (wikilinks and Markdown links, supersedes; resolved in
// project's Effective Memory as vault/linknames.go says, as Obsidian would).
func (l Lookups) Linked(ctx context.Context, rids []int64, project string) (map[int64]bool, error) {
	pairs, err := l.LinkPairs(ctx, rids, project)
	if err != nil || len(pairs) == 0 {
		return nil, err
	}
	linked := map[int64]bool{}
	for _, p := range pairs {
		linked[p[0]], linked[p[1]] = true, true
	}
	return linked, nil
}

// LinkPairs returns the links between the resources rids, each once, as
// (from, to) resource rows.
func (l Lookups) LinkPairs(ctx context.Context, rids []int64, project string) ([][2]int64, error) {
	if len(rids) < 2 {
		return nil, nil
	}
	byRID := make(map[int64]bool, len(rids))
	for _, r := range rids {
		byRID[r] = true
	}
	// Only links whose key is a name of another of them can link two: one
	// indexed join finds them (usually few), and only their keys go through
	// the tie rule, since another note may answer to the same name more
	// strongly.
	in := idList(rids)
	links, list, err := l.ix.linkKeys(ctx, `SELECT DISTINCT l.rid, s.path, l.target_key FROM links l CROSS JOIN names n ON n.name = l.target_key
		CROSS JOIN resources s ON s.rid = l.rid
		WHERE l.rid IN (`+in+`) AND n.rid IN (`+in+`) AND n.rid != l.rid`)
	if err != nil || len(links) == 0 {
		return nil, err
	}
	res, err := l.ix.resolveKeys(ctx, list, project)
	if err != nil {
		return nil, err
	}
	seen := map[[2]int64]bool{}
	var out [][2]int64
	for _, k := range links {
		n, ok := res[k.key]
		if !ok {
			continue
		}
		if r := n.from(k.path); r.rid != k.from && byRID[r.rid] {
			p := [2]int64{k.from, r.rid}
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out, nil
}

// Tier returns a resource's tier.
func (l Lookups) Tier(ctx context.Context, rid int64) (string, error) {
	var tier string
	err := l.ix.db.QueryRowContext(ctx, `SELECT tier FROM resources WHERE rid = ?`, rid).Scan(&tier)
	return tier, translate(err)
}

// Revision returns the index's revision: it changes with every committed
// change to the index.
func (l Lookups) Revision(ctx context.Context) (string, error) { return l.ix.generation(ctx) }

// RuleSources returns the notes that hold guard rules, as the project sees
// them (vault.RuleReader).
func (l Lookups) RuleSources(ctx context.Context, project string) ([]vault.RuleSource, error) {
	return l.ix.ruleSources(ctx, project)
}

// Under returns the notes under a folder prefix, as the project sees them
// (vault.Lister).
func (l Lookups) Under(ctx context.Context, prefix, project string) ([]vault.Loaded, error) {
	return l.ix.under(ctx, prefix, project)
}

// RecentNotes returns the project's n newest notes in folders
// (vault.RuleReader).
func (l Lookups) RecentNotes(ctx context.Context, project string, folders []string, n int) ([]vault.RecentNote, error) {
	return l.ix.recentNotes(ctx, project, folders, n)
}

// ResolveLink resolves a wikilink target written in the note at src ("":
// none) as Obsidian does, in the project's Effective Memory.
func (l Lookups) ResolveLink(ctx context.Context, target, project, src string) (id, path string, err error) {
	return l.ix.resolveLink(ctx, target, project, src)
}

package fts

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/lore-memory/lore/vault"
)

// Weights are the BM25 column weights of the FTS table, in column order.
type Weights struct {
	Path, Title, Meta, Heading, Body float64
}

// columnWeights are the integer BM25 weights of the FTS columns: a match in
// the path or title says more than one in the body (tuned on SciFact and the
// demo vault; see the package doc). They are constants, and integers, because
// the in-memory scorer keeps weighted term counts as uint16 (memindex.go):
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

// Search refreshes the index and returns the best units for query: an exact
// id, path or title match first, then units ranked by BM25 over an OR of the
// query's terms. An empty query is a CodeInvalid error.
func (ix *Index) Search(ctx context.Context, query string, opt vault.SearchOptions) ([]vault.Hit, error) {
	if _, err := ix.Refresh(ctx, nil); err != nil {
		return nil, err
	}
	return ix.SearchFresh(ctx, query, opt)
}

// SearchFresh is Search without the freshness check (for callers that just
// refreshed, and for benchmarks of the query path alone).
func (ix *Index) SearchFresh(ctx context.Context, query string, opt vault.SearchOptions) ([]vault.Hit, error) {
	q := CutQuery(query)
	if q == "" {
		return nil, vault.Errorf(vault.CodeInvalid, "query is empty: describe the task or name what to find")
	}
	if opt.Limit <= 0 {
		opt.Limit = 10
	}
	exact, err := ix.exact(ctx, q, opt.Project)
	if err != nil {
		return nil, err
	}
	ts := queryTerms(q)
	var hits []unitHit
	seen := map[string]bool{}
	for _, h := range exact {
		seen[h.UnitKey] = true
		hits = append(hits, h)
	}
	if len(ts) > 0 {
		lex, err := ix.bm25(ctx, ts, opt.Project, opt.Limit+len(exact))
		if err != nil {
			return nil, err
		}
		for _, h := range lex {
			if !seen[h.UnitKey] {
				hits = append(hits, h)
			}
		}
	}
	if len(hits) > opt.Limit {
		hits = hits[:opt.Limit]
	}
	snip := snippetTerms(q)
	out := make([]vault.Hit, len(hits))
	for i, h := range hits {
		out[i] = h.Hit
		out[i].Snippet = Snippet(h.Content, snip, 200)
	}
	return out, nil
}

const hitColumns = `u.unit_key, r.resource_id, r.path, r.title, u.heading_path, r.project, r.status, u.content_hash, u.content, u.tokens, u.uid, u.start_byte, u.end_byte, r.rid, r.draft`

func scanHit(rows *sql.Rows, extra ...any) (unitHit, error) {
	var h unitHit
	var hp, project string
	dest := append([]any{&h.UnitKey, &h.ResourceID, &h.Path, &h.Title, &hp, &project, &h.Status, &h.ContentHash, &h.Content, &h.Tokens, &h.UID, &h.Start, &h.End, &h.RID, &h.DraftID}, extra...)
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
// no Draft.
func visibleTo(project string) (string, []any) {
	if project == "" {
		return "(r.draft = '')", nil
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

// exact returns the first unit of a resource whose id, path or title is the
// query itself.
func (ix *Index) exact(ctx context.Context, q, project string) ([]unitHit, error) {
	vis, vargs := visibleTo(project)
	// The three lookups come first (CROSS JOIN keeps SQLite to that order):
	// without statistics the planner would otherwise walk every resource by
	// the draft column and test the OR on each (7 ms on 10,000 notes).
	rows, err := ix.db.QueryContext(ctx, `SELECT `+hitColumns+` FROM (SELECT rid FROM resources WHERE resource_id = ?
		UNION SELECT rid FROM resources WHERE path = ? UNION SELECT rid FROM resources WHERE title_key = ?) x
		CROSS JOIN resources r ON r.rid = x.rid CROSS JOIN units u ON u.rid = r.rid
		WHERE r.indexed = 1 AND `+vis+`
		AND u.ord = (SELECT MIN(ord) FROM units WHERE rid = r.rid)
		ORDER BY (r.resource_id = ?) DESC, (r.path = ?) DESC, r.path LIMIT 3`,
		args([]any{q, vault.NormalizePath(q), titleKey(q)}, vargs, []any{q, q})...)
	if err != nil {
		return nil, translate(err)
	}
	defer rows.Close()
	var out []unitHit
	for rows.Next() {
		h, err := scanHit(rows)
		if err != nil {
			return nil, err
		}
		h.Stage, h.Score = "exact", 1e9
		out = append(out, h)
	}
	return out, translate(rows.Err())
}

// bm25 runs the lexical stage over an OR of the query tokens ts. Scores are
// FTS5's bm25 negated (higher is better), from the in-memory postings when
// this process keeps them (the same scores; see memindex.go).
func (ix *Index) bm25(ctx context.Context, ts []string, project string, limit int) ([]unitHit, error) {
	m, err := ix.memFor(ctx)
	if err != nil {
		return nil, err
	}
	if m != nil {
		return ix.memHits(ctx, m.search(ts, project, limit))
	}
	return ix.bm25FTS(ctx, matchExpr(ts), project, DefaultWeights(), limit)
}

// memHits reads the rows of the in-memory scorer's winners, in its order.
func (ix *Index) memHits(ctx context.Context, found []memHit) ([]unitHit, error) {
	if len(found) == 0 {
		return nil, nil
	}
	ids := make([]string, len(found))
	for i, f := range found {
		ids[i] = strconv.FormatInt(f.uid, 10)
	}
	rows, err := ix.db.QueryContext(ctx, `SELECT `+hitColumns+` FROM units u JOIN resources r ON r.rid = u.rid
		WHERE u.uid IN (`+strings.Join(ids, ",")+`)`)
	if err != nil {
		return nil, translate(err)
	}
	defer rows.Close()
	byUID := make(map[int64]unitHit, len(found))
	for rows.Next() {
		h, err := scanHit(rows)
		if err != nil {
			return nil, err
		}
		byUID[h.UID] = h
	}
	if err := rows.Err(); err != nil {
		return nil, translate(err)
	}
	out := make([]unitHit, 0, len(found))
	for _, f := range found {
		h, ok := byUID[f.uid]
		if !ok { // deleted since the postings were brought up to date
			continue
		}
		h.Stage, h.Score = "bm25", f.score
		out = append(out, h)
	}
	// The winners are chosen by (score, uid), then listed by (score,
	// unit_key), as bm25FTS's two queries do.
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].UnitKey < out[j].UnitKey
	})
	return out, nil
}

// bm25FTS is the lexical stage in SQL: FTS5 matches and ranks.
func (ix *Index) bm25FTS(ctx context.Context, match, project string, w Weights, limit int) ([]unitHit, error) {
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
	var out []unitHit
	for rows.Next() {
		var s float64
		h, err := scanHit(rows, &s)
		if err != nil {
			return nil, err
		}
		h.Stage, h.Score = "bm25", -s
		out = append(out, h)
	}
	return out, translate(rows.Err())
}

// snippetTerms are the query words a snippet looks for, longest first.
func snippetTerms(q string) []string {
	var out []string
	seen := map[string]bool{}
	for _, f := range strings.FieldsFunc(strings.ToLower(q), func(r rune) bool {
		return !isWordRune(r) && !vault.IsCJK(r)
	}) {
		if !seen[f] && stopID(f) == 0 && (utf8.RuneCountInString(f) > 1 || vault.IsCJK([]rune(f)[0])) {
			seen[f] = true
			out = append(out, f)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

// Snippet returns about width runes of content around the first of the words it
// finds (case-insensitively), on one line; the start of content when none is found.
func Snippet(content string, words []string, width int) string {
	lower := strings.ToLower(content)
	at := -1
	for _, w := range words {
		if i := strings.Index(lower, w); i >= 0 && (at < 0 || i < at) {
			at = i
		}
	}
	rs := []rune(content)
	start := 0
	if at > 0 && len(lower) == len(content) {
		start = max(utf8.RuneCountInString(content[:at])-width/4, 0)
	}
	end := min(start+width, len(rs))
	s := strings.Join(strings.Fields(string(rs[start:end])), " ")
	if start > 0 {
		s = "…" + s
	}
	if end < len(rs) {
		s += "…"
	}
	return s
}

// Load refreshes the index and returns the named resources (by id or exact
// path) with their exact bytes, in request order. Any missing target is a
// CodeNotFound error naming every missing one.
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
	if err != nil {
		return vault.Loaded{}, err
	}
	var r vault.Loaded
	var fspath, proj, problem string
	var indexed bool
	var rid sql.NullString
	var body []byte
	vis, vargs := visibleTo(project)
	err = ix.db.QueryRowContext(ctx, `SELECT resource_id, path, fspath, project, title, description, indexed, problem, draft, body
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

// unitHit is a unit the index found: the domain's Hit, and what the pipeline
// needs of its row (the text, its size and place, the row ids).
type unitHit struct {
	vault.Hit
	Content    string
	Tokens     int
	UID        int64
	Start, End int
	RID        int64
}

package fts

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"path"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/lore-memory/lore/vault"
)

// rulesJSON is what the index keeps of a resource's guard rules.
func rulesJSON(r *vault.Resource) string {
	if len(r.Rules) == 0 {
		return ""
	}
	b, _ := json.Marshal(r.Rules)
	return string(b)
}

// ruleSources refreshes the index and returns the published resources that
// project sees and that write guard rules or have a tier, by path.
// Superseded and deprecated ones are included (with their status); the guard
// skips them.
//
// Published means the vault's working tree (the org ref plus a person's own
// uncommitted edits), never a Draft: an agent's unreviewed proposal must not
// switch a rule on or off, nor change the status that decides whether a rule
// applies. (Search, Load and Activate still show a project its Drafts.)
func (ix *Index) ruleSources(ctx context.Context, project string) ([]vault.RuleSource, error) {
	if _, err := ix.Refresh(ctx, nil); err != nil {
		return nil, err
	}
	rows, err := ix.db.QueryContext(ctx, `SELECT resource_id, path, title, description, status, tier, tags, draft, guard
		FROM resources r WHERE r.indexed = 1 AND (r.guard != '' OR r.tier != '') AND r.draft = ''
		AND (r.project = '' OR r.project = ?) ORDER BY r.path`, project)
	if err != nil {
		return nil, translate(err)
	}
	defer rows.Close()
	var out []vault.RuleSource
	for rows.Next() {
		var s vault.RuleSource
		var tags, guard string
		if err := rows.Scan(&s.ResourceID, &s.Path, &s.Title, &s.Description, &s.Status, &s.Tier, &tags, &s.DraftID, &guard); err != nil {
			return nil, err
		}
		json.Unmarshal([]byte(tags), &s.Tags)
		if guard != "" {
			if err := json.Unmarshal([]byte(guard), &s.Rules); err != nil {
				return nil, err
			}
		}
		out = append(out, s)
	}
	return out, translate(rows.Err())
}

// under refreshes the index and returns every resource of project's
// Effective Memory whose path starts with prefix (a folder, ending in "/"),
// with its bytes, by path. Journal notes are listed only under a journal
// folder (the journal's own reading).
func (ix *Index) under(ctx context.Context, prefix, project string) ([]vault.Loaded, error) {
	if _, err := ix.Refresh(ctx, nil); err != nil {
		return nil, err
	}
	vis, vargs := visibleTo(project)
	if vault.IsJournalPath(prefix) {
		vis, vargs = journalVisibleTo(project)
	}
	esc := strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(prefix)
	rows, err := ix.db.QueryContext(ctx, `SELECT resource_id, path, fspath, project, title, description, draft, body
		FROM resources r WHERE r.indexed = 1 AND r.path LIKE ? ESCAPE '\' AND `+vis+` ORDER BY r.path`,
		append([]any{esc + "%"}, vargs...)...)
	if err != nil {
		return nil, translate(err)
	}
	type row struct {
		r      vault.Loaded
		fspath string
		body   []byte
	}
	var list []row
	for rows.Next() {
		var x row
		var proj string
		var rid sql.NullString
		if err := rows.Scan(&rid, &x.r.Path, &x.fspath, &proj, &x.r.Title, &x.r.Description, &x.r.DraftID, &x.body); err != nil {
			rows.Close()
			return nil, err
		}
		x.r.ResourceID, x.r.Kind, x.r.Scope = rid.String, "memory", vault.ScopeOf(proj)
		list = append(list, x)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, translate(err)
	}
	out := make([]vault.Loaded, 0, len(list))
	for _, x := range list {
		data := x.body
		if x.r.DraftID == "" {
			var err error
			if data, err = ix.v.ReadFile(x.fspath); err != nil {
				continue // gone since the refresh
			}
		}
		x.r.Content, x.r.ContentHash = string(data), vault.HashBytes(data)
		out = append(out, x.r)
	}
	return out, nil
}

// PublishedPath returns the work-tree path the index holds for a resource id
// ("" when it holds none), without a freshness check: a hint that the caller
// confirms against the file (package drafts does).
func (ix *Index) PublishedPath(ctx context.Context, id string) (string, error) {
	var p string
	err := ix.db.QueryRowContext(ctx, "SELECT path FROM resources WHERE resource_id = ? AND draft = '' LIMIT 1", id).Scan(&p)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return p, translate(err)
}

var datePrefix = regexp.MustCompile(`(\d{4})-(\d{2})-(\d{2})`)

// recentNotes returns the newest n published notes project sees that are
// under one of folders (e.g. "logs/") or have tier L2, newest first.
func (ix *Index) recentNotes(ctx context.Context, project string, folders []string, n int) ([]vault.RecentNote, error) {
	cond := []string{"upper(r.tier) = 'L2'"}
	var args []any
	for _, f := range folders {
		cond = append(cond, `r.path LIKE ? ESCAPE '\'`)
		args = append(args, strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(strings.Trim(f, "/")+"/")+"%")
	}
	rows, err := ix.db.QueryContext(ctx, `SELECT path, title, description, mod_ns FROM resources r
		WHERE r.indexed = 1 AND r.draft = '' AND (r.project = '' OR r.project = ?) AND `+notJournal+` AND r.status NOT IN ('superseded', 'deprecated')
		AND (`+strings.Join(cond, " OR ")+`)`, append([]any{project}, args...)...)
	if err != nil {
		return nil, translate(err)
	}
	defer rows.Close()
	var out []vault.RecentNote
	for rows.Next() {
		var r vault.RecentNote
		var mod int64
		if err := rows.Scan(&r.Path, &r.Title, &r.Description, &mod); err != nil {
			return nil, err
		}
		r.Date = time.Unix(0, mod).UTC()
		if m := datePrefix.FindStringSubmatch(path.Base(r.Path)); m != nil {
			if d, err := time.Parse("2006-01-02", m[1]+"-"+m[2]+"-"+m[3]); err == nil {
				r.Date = d
			}
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, translate(err)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].Date.Equal(out[j].Date) {
			return out[i].Date.After(out[j].Date)
		}
		return out[i].Path > out[j].Path
	})
	if len(out) > n {
		out = out[:n]
	}
	return out, nil
}

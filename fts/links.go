package fts

import (
	"context"
	"strings"

	"github.com/lore-memory/lore/vault"
)

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

// resolveKeys resolves link keys (vault.LinkKey) in project's Effective
// Memory, each to one resource (vault/names.go has the rule); keys that name
// nothing are absent from the result.
func (ix *Index) resolveKeys(ctx context.Context, keys []string, project string) (map[string]resolved, error) {
	out := map[string]resolved{}
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
			if cur, ok := out[name]; !ok || r.better(cur) {
				out[name] = r
			}
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, translate(err)
		}
	}
	return out, nil
}

// ResolveLink returns the id and path of the resource a link target (an id,
// a path, a title, an alias, a base name, with or without [[ ]]) names in
// project's Effective Memory, as Obsidian would resolve it; a target that
// names nothing is a CodeNotFound error.
func (ix *Index) ResolveLink(ctx context.Context, target, project string) (id, path string, err error) {
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
	r, ok := got[key]
	if !ok {
		return "", "", vault.Errorf(vault.CodeNotFound, "no note is named %q (by id, path, title, alias or file name)", target)
	}
	return r.resourceID, r.path, nil
}

// linkCounts returns how many links a resource writes, and from how many
// other resources of project's memory links resolve to it.
func (ix *Index) linkCounts(ctx context.Context, rid int64, project string) (in, out int, err error) {
	if err := ix.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM links WHERE rid = ?", rid).Scan(&out); err != nil {
		return 0, 0, translate(err)
	}
	vis, vargs := visibleTo(project)
	links, list, err := ix.linkKeys(ctx, `SELECT DISTINCT l.rid, l.target_key FROM links l CROSS JOIN resources r ON r.rid = l.rid
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
		if r, ok := res[l.key]; ok && r.rid == rid {
			from[l.from] = true
		}
	}
	return len(from), out, nil
}

// link is one link: the resource that writes it and its target's key.
type link struct {
	from int64
	key  string
}

// linkKeys runs a query answering (rid, target_key) rows and returns the
// links and their distinct keys.
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
		if err := rows.Scan(&l.from, &l.key); err != nil {
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

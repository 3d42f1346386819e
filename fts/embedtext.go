package fts

import (
	"context"
	"encoding/json"
	pathpkg "path"
	"strings"

	"github.com/lore-memory/lore/markdown"
	"github.com/lore-memory/lore/tokenize"
	"github.com/lore-memory/lore/vault"
)

// What a unit's embeds show counts for what it is found by. In Obsidian a
// section of `![[Refund policy#^discount-then-refund]]` reads as the
// paragraph it names; indexed as written, such a section was found only by
// the words of the reference. The text each embed of a note shows — the
// same text delivery quotes after it (retrieve/embeds.go): the note's body,
// a section, or a block, bounded to embedTokens, at most maxEmbeds a unit,
// one level deep, never the unit's own note or section — is kept in the
// unit's row (units.embedded) and indexed in its body column after its own
// text, by FTS5 and by the in-memory copy alike (bodyText).
//
// An embed is resolved as a link is, in the view of the note that holds it:
// a project's note in that project's published memory, a shared note among
// shared notes only (so no project's text is found through a shared note),
// never in a Draft, and never as a Draft shadows it (publishedView). A unit's embedded text depends on other notes, so after
// each refresh that wrote or removed notes, the units of the notes written
// and of every note that links to a name of a note written or removed are
// looked at again (refreshEmbedded); a unit whose embedded text changed gets
// its FTS row written again and is logged in unit_log as deleted and added,
// so the in-memory copies read it again.
//
// The model embeds the same text (embedInput over bodyText), so a section
// of embeds has the vector of what it shows; its embed_hash changes with
// the embedded text, and the next embedding pass embeds it.
//
// Drafts' rows keep their own text only.
const (
	embedTokens = 300
	maxEmbeds   = 4
)

// publishedView is the view an embed is resolved in for the index: the
// published notes a project sees (shared and its own), without its Drafts
// and without what they shadow — so nothing an agent has in a Draft changes
// what a published note is found by. For a shared note, project is "" and
// the view is the shared notes alone.
func publishedView(project string) string { return publishedPrefix + project }

// PublishedView is the view of a project's published memory alone: its
// shared and own working-tree notes, with no Draft laid over (none of its
// text, none of the paths its Drafts shadow or delete). Lookups take it
// where they take a project; what lore hook puts before a model unasked is
// ranked and settled in it.
func PublishedView(project string) string { return publishedView(project) }

// bodyText is the text of a unit's FTS body column: its readable text, and
// after it what its embeds show.
func bodyText(readable, embedded string) string {
	if embedded == "" {
		return readable
	}
	return readable + "\n\n" + embedded
}

// namesAt returns the name keys of the working-tree rows at paths.
func (ix *Index) namesAt(ctx context.Context, paths []string) (map[string]bool, error) {
	out := map[string]bool{}
	for lo := 0; lo < len(paths); lo += 500 {
		batch := paths[lo:min(lo+500, len(paths))]
		marks, qargs := inList(batch)
		rows, err := ix.db.QueryContext(ctx, `SELECT n.name FROM names n JOIN resources r ON r.rid = n.rid
			WHERE r.draft = '' AND r.path IN (`+marks+`)`, qargs...)
		if err != nil {
			return nil, translate(err)
		}
		for rows.Next() {
			var k string
			if err := rows.Scan(&k); err != nil {
				rows.Close()
				return nil, translate(err)
			}
			out[k] = true
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, translate(err)
		}
	}
	return out, nil
}

// inList is n question marks for SQL's IN, and the values as arguments.
func inList(vals []string) (string, []any) {
	marks := make([]string, len(vals))
	qargs := make([]any, len(vals))
	for i, v := range vals {
		marks[i], qargs[i] = "?", v
	}
	return strings.Join(marks, ","), qargs
}

// embedUpdate is a unit whose embedded text changed.
type embedUpdate struct {
	uid                             int64
	path, title, meta, hp, embedded string
	content                         string
}

// refreshEmbedded brings units.embedded up to date after a refresh wrote
// the notes at written (embeds: those of them that show an embedded note)
// and removed others; before holds the name keys the rows at all those
// paths had before the refresh. A written note without an embed has no
// embedded text (its rows are new), so only the notes with embeds among
// those written, and the notes that link to a name that came or went, are
// read again.
// before is nil when no note showed an embed before the refresh: then only
// the notes written with embeds can have embedded text.
func (ix *Index) refreshEmbedded(ctx context.Context, written []string, embeds map[string]bool, before map[string]bool) error {
	if before == nil && len(embeds) == 0 {
		return nil
	}
	var after map[string]bool
	var err error
	if before != nil {
		after, err = ix.namesAt(ctx, written)
	}
	if err != nil {
		return err
	}
	keys := make([]string, 0, len(before)+len(after))
	for k := range before {
		keys = append(keys, k)
	}
	for k := range after {
		if !before[k] {
			keys = append(keys, k)
		}
	}
	// The notes with embeds among those written, and those that link to a
	// name that came or went (their links read whole: far fewer than the
	// names a large refresh touches).
	rids := map[int64]bool{}
	var withEmbeds []string
	for p := range embeds {
		withEmbeds = append(withEmbeds, p)
	}
	for lo := 0; lo < len(withEmbeds); lo += 500 {
		marks, qargs := inList(withEmbeds[lo:min(lo+500, len(withEmbeds))])
		got, err := queryColumn[int64](ctx, ix.db, `SELECT rid FROM resources WHERE draft = '' AND indexed = 1 AND path IN (`+marks+`)`, qargs...)
		if err != nil {
			return err
		}
		for _, r := range got {
			rids[r] = true
		}
	}
	touched := make(map[string]bool, len(keys))
	for _, k := range keys {
		touched[k] = true
	}
	if len(touched) > 0 {
		if err := ix.linkersOf(ctx, touched, rids); err != nil {
			return err
		}
	}
	if len(rids) == 0 {
		return nil
	}
	list := make([]int64, 0, len(rids))
	for r := range rids {
		list = append(list, r)
	}
	var updates []embedUpdate
	for lo := 0; lo < len(list); lo += 500 {
		ups, err := ix.embedUpdates(ctx, list[lo:min(lo+500, len(list))])
		if err != nil {
			return err
		}
		updates = append(updates, ups...)
	}
	if len(updates) == 0 {
		return nil
	}
	return ix.writeEmbedded(ctx, updates)
}

// embedUpdates reads the units of rids and returns those whose embedded
// text is not what their embeds show now.
func (ix *Index) embedUpdates(ctx context.Context, rids []int64) ([]embedUpdate, error) {
	rows, err := ix.db.QueryContext(ctx, `SELECT u.uid, u.heading_path, u.start_byte, u.end_byte, `+hashSQL("u.content_hash")+`, u.embedded,
		r.rid, r.fspath, r.path, r.project, r.title, r.meta
		FROM units u JOIN resources r ON r.rid = u.rid WHERE r.rid IN (`+idList(rids)+`) ORDER BY u.uid`)
	if err != nil {
		return nil, translate(err)
	}
	type unitRow struct {
		embedUpdate
		heading []string
		project string
	}
	var cands []unitRow
	notes := noteBytes{ix: ix}
	for rows.Next() {
		var u unitRow
		var start, end int
		var rid int64
		var hash, fspath string
		if err := rows.Scan(&u.uid, &u.hp, &start, &end, &hash, &u.embedded, &rid, &fspath, &u.path, &u.project, &u.title, &u.meta); err != nil {
			rows.Close()
			return nil, translate(err)
		}
		text, ok := notes.text(ctx, rid, fspath, "", start, end, hash)
		if !ok || (u.embedded == "" && len(markdown.Embeds(text)) == 0) {
			continue
		}
		u.content = text
		_ = json.Unmarshal([]byte(u.hp), &u.heading)
		cands = append(cands, u)
	}
	err = rows.Err()
	rows.Close()
	if err != nil {
		return nil, translate(err)
	}
	var out []embedUpdate
	shown := map[[3]string]shownText{}
	for _, u := range cands {
		got, err := ix.embeddedText(ctx, shown, u.content, u.path, u.heading, u.project)
		if err != nil {
			return nil, err
		}
		if got != u.embedded {
			u.embedded = got
			out = append(out, u.embedUpdate)
		}
	}
	return out, nil
}

// shownText is what one embed target shows in one view.
type shownText struct {
	target, text, from string // the way the embed resolved, its text, its note
	ok                 bool   // found, and not a Draft's
}

// embeddedText is what the embeds of a unit's content show, as the index
// keeps it: the readable text of each, bounded, one after the other. shown
// remembers what each embed's ways show in each view, from each folder (a name
// resolves by the linking note's folder), for one refresh (many notes
// embed the same few).
func (ix *Index) embeddedText(ctx context.Context, shown map[[3]string]shownText, content, path string, heading []string, project string) (string, error) {
	view := publishedView(project)
	var parts []string
	for _, e := range markdown.Embeds(content) {
		if len(parts) == maxEmbeds {
			break
		}
		// The ways the embed may resolve, from the linking note's folder (a
		// name resolves by it).
		key := [3]string{view, strings.Join(e.Links(path), "\x00"), pathpkg.Dir(path)}
		st, seen := shown[key]
		if !seen {
			target, text, from, draft, ok, err := ix.Lookups().EmbedShown(ctx, e, view, path)
			if err != nil {
				return "", err
			}
			st = shownText{target: target, from: from, ok: ok && draft == ""}
			if st.ok {
				st.text = strings.TrimSpace(markdown.ReadableText(markdown.ClipTokens(text, embedTokens)))
			}
			shown[key] = st
		}
		if !st.ok || st.text == "" || markdown.SelfEmbed(st.from, st.target, path, heading) {
			continue
		}
		parts = append(parts, st.text)
	}
	return strings.Join(parts, "\n\n"), nil
}

// writeEmbedded stores the units' new embedded texts and writes their FTS
// rows again, in one transaction.
func (ix *Index) writeEmbedded(ctx context.Context, updates []embedUpdate) error {
	tx, err := ix.beginWrite(ctx)
	if err != nil {
		return translate(err)
	}
	defer tx.Rollback()
	exec := func(q string, a ...any) error {
		_, err := tx.ExecContext(ctx, q, a...)
		return translate(err)
	}
	for _, u := range updates {
		// The unit may have gone since it was read (another process).
		var n int
		if err := tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM units WHERE uid = ?", u.uid).Scan(&n); err != nil {
			return translate(err)
		}
		if n == 0 {
			continue
		}
		var hp []string
		_ = json.Unmarshal([]byte(u.hp), &hp)
		// The model embeds what the index finds the unit by: its readable
		// text and what its embeds show (vectors.go).
		eh := embedHash(u.title, hp, vault.HashBytes([]byte(bodyText(markdown.ReadableText(u.content), u.embedded))))
		if err := exec("UPDATE units SET embedded = ?, embed_hash = ?, embed_key = ? WHERE uid = ?",
			u.embedded, hashBlob(eh), int64(embedKey(eh)), u.uid); err != nil {
			return err
		}
		if err := exec("DELETE FROM units_fts WHERE rowid = ?", u.uid); err != nil {
			return err
		}
		if err := exec("INSERT INTO units_fts(rowid, path, title, meta, heading, body) VALUES (?, ?, ?, ?, ?, ?)",
			u.uid, tokenize.Text(u.path), tokenize.Text(u.title), tokenize.Text(u.meta), tokenize.Text(strings.Join(hp, " ")),
			tokenize.Text(bodyText(markdown.ReadableText(u.content), u.embedded))); err != nil {
			return err
		}
		if err := exec("INSERT INTO unit_log(uid, added) VALUES (?, 0), (?, 1)", u.uid, u.uid); err != nil {
			return err
		}
	}
	if _, err := bumpGeneration(ctx, tx.Tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return translate(err)
	}
	ix.vectorsBehind.Store(true)
	return nil
}

// anyEmbeds reports whether some note shows an embed (the partial index
// resources_embeds answers it); true when it cannot tell.
func (ix *Index) anyEmbeds(ctx context.Context) bool {
	var n int
	if err := ix.db.QueryRowContext(ctx, "SELECT EXISTS(SELECT 1 FROM resources WHERE embeds = 1)").Scan(&n); err != nil {
		return true
	}
	return n == 1
}

// linkersOf adds to rids the notes that show an embed and link to one of
// the name keys touched.
func (ix *Index) linkersOf(ctx context.Context, touched map[string]bool, rids map[int64]bool) error {
	rows, err := ix.db.QueryContext(ctx, `SELECT l.rid, l.target_key FROM resources r CROSS JOIN links l ON l.rid = r.rid
		WHERE r.embeds = 1 AND r.draft = '' AND r.indexed = 1`)
	if err != nil {
		return translate(err)
	}
	for rows.Next() {
		var rid int64
		var k string
		if err := rows.Scan(&rid, &k); err != nil {
			rows.Close()
			return translate(err)
		}
		if touched[k] {
			rids[rid] = true
		}
	}
	err = rows.Err()
	rows.Close()
	if err != nil {
		return translate(err)
	}
	return nil
}

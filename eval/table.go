package eval

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	_ "github.com/mattn/go-sqlite3" // the plain FTS5 reference

	"github.com/lore-memory/lore/markdown"
)

// The whole table: every question set on every vault, in one run (lore
// eval --table). A table file names the vaults, each a folder (dir, beside
// the table file) or a .tar.gz archive (archive, inside the data folder
// given on the command line), and the question sets asked of it (beside the
// table file). Beside each of lore's figures the table gives plain FTS5's
// on the same questions, as the reference a ranking change must beat.

// Table is a table file.
type Table struct {
	Vaults []TableVault `json:"vaults"`
	// OffTopic are files of everyday prompts in a bound code repository
	// (one a line, beside the table file), which the prompt hook should
	// send nothing for; each vault's sets are its on-topic prompts.
	OffTopic []string `json:"off_topic,omitempty"`
}

// TableVault is one vault of the table and its question sets.
type TableVault struct {
	Name    string   `json:"name"`
	Dir     string   `json:"dir,omitempty"`     // a folder, relative to the table file
	Archive string   `json:"archive,omitempty"` // a .tar.gz, relative to the data folder
	Sets    []string `json:"sets"`              // question files, relative to the table file
	// Judged is a file of judgments (LoadJudgments), relative to the
	// table file: which other places answer the sets' questions.
	Judged string `json:"judged,omitempty"`
}

// LoadTable reads a table file; the paths it names are made absolute
// (dir and sets against the file's folder; archive is left relative, for
// the data folder).
func LoadTable(path string) (Table, error) {
	var t Table
	b, err := os.ReadFile(path)
	if err != nil {
		return t, err
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&t); err != nil {
		return t, fmt.Errorf("%s: %w", path, err)
	}
	base := filepath.Dir(path)
	for i, f := range t.OffTopic {
		t.OffTopic[i] = filepath.Join(base, f)
	}
	for i := range t.Vaults {
		v := &t.Vaults[i]
		if v.Name == "" || (v.Dir == "") == (v.Archive == "") || len(v.Sets) == 0 {
			return t, fmt.Errorf("%s: vault %d needs a name, one of dir and archive, and sets", path, i+1)
		}
		if strings.ContainsAny(v.Name, `/\`) || v.Name == "." || v.Name == ".." {
			return t, fmt.Errorf("%s: vault %d's name %q is not a plain file name (it names the files --unjudged writes)", path, i+1, v.Name)
		}
		if v.Dir != "" {
			v.Dir = filepath.Join(base, v.Dir)
		}
		for j, s := range v.Sets {
			v.Sets[j] = filepath.Join(base, s)
		}
		if v.Judged != "" {
			v.Judged = filepath.Join(base, v.Judged)
		}
	}
	return t, nil
}

// ExtractArchive unpacks a .tar.gz of Markdown notes into dst and returns
// the vault's root: dst, or the one folder the archive holds. Entries that
// would land outside dst, and links that point outside it, are refused.
func ExtractArchive(archive, dst string) (string, error) {
	f, err := os.Open(archive)
	if err != nil {
		return "", err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return "", fmt.Errorf("%s: %w", archive, err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", fmt.Errorf("%s: %w", archive, err)
		}
		name := filepath.FromSlash(strings.TrimPrefix(h.Name, "./"))
		if !filepath.IsLocal(name) {
			return "", fmt.Errorf("%s: entry %q leaves the folder", archive, h.Name)
		}
		p := filepath.Join(dst, name)
		switch h.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(p, 0o755)
		case tar.TypeReg:
			if err = os.MkdirAll(filepath.Dir(p), 0o755); err == nil {
				err = writeFrom(p, tr)
			}
		case tar.TypeSymlink:
			to := filepath.Join(filepath.Dir(name), filepath.FromSlash(h.Linkname))
			if filepath.IsAbs(h.Linkname) || !filepath.IsLocal(to) {
				return "", fmt.Errorf("%s: link %q points outside the folder", archive, h.Name)
			}
			if err = os.MkdirAll(filepath.Dir(p), 0o755); err == nil {
				err = os.Symlink(h.Linkname, p)
			}
		}
		if err != nil {
			return "", err
		}
	}
	entries, err := os.ReadDir(dst)
	if err != nil {
		return "", err
	}
	if len(entries) == 1 && entries[0].IsDir() {
		return filepath.Join(dst, entries[0].Name()), nil
	}
	return dst, nil
}

func writeFrom(p string, r io.Reader) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Reference is plain FTS5's figures on a question set: one row per note
// (note level) and one row per heading section (section level), an OR of
// the query's words, bm25 order; success at 1 and at 3. Ranked holds, for
// each question in order, its first three notes and sections (a section
// "path#Heading", the heading as lore names it).
type Reference struct {
	Note1, Note3, Section1, Section3 float64
	Ranked                           []Ranked
}

// First is, for each question in order, the section plain FTS5 put first
// ("" when none matched).
func (r Reference) First() []string {
	out := make([]string, len(r.Ranked))
	for i, k := range r.Ranked {
		if len(k.Sections) > 0 {
			out[i] = k.Sections[0]
		}
	}
	return out
}

// FTS5 is the plain FTS5 reference over a vault's notes, built once and
// asked each question set.
type FTS5 struct{ db *sql.DB }

// OpenFTS5 indexes every .md file under dir (dot-folders left out) in an
// in-memory FTS5. A symlink is not read: it is another name of a note the
// walk reads at its own path, as lore reads it (docs/DESIGN.md, "Files on
// disk"). Read through its links, the ADR examples' 217 README.md ->
// index.md made each page two notes of one text, and plain FTS5's ties
// went to the name no question asks for.
func OpenFTS5(dir string) (*FTS5, error) {
	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1) // one in-memory database
	for _, s := range []string{"CREATE VIRTUAL TABLE notes USING fts5(path, body)", "CREATE VIRTUAL TABLE secs USING fts5(path, heading, body)"} {
		if _, err := db.Exec(s); err != nil {
			db.Close()
			return nil, err
		}
	}
	tx, err := db.Begin()
	if err != nil {
		db.Close()
		return nil, err
	}
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != dir && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(d.Name(), ".md") || d.Type()&fs.ModeSymlink != 0 {
			return nil // a symlink is another name of a note, read at its own path as lore reads it
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		text := strings.ToValidUTF8(string(b), "\uFFFD")
		if _, err := tx.Exec("INSERT INTO notes VALUES (?, ?)", rel, text); err != nil {
			return err
		}
		for _, s := range plainSections(text) {
			if strings.TrimSpace(s[1]) == "" {
				continue // a note that opens with its heading: nothing before it to find
			}
			if _, err := tx.Exec("INSERT INTO secs VALUES (?, ?, ?)", rel, s[0], s[1]); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		err = tx.Commit()
	} else {
		tx.Rollback()
	}
	if err != nil {
		db.Close()
		return nil, err
	}
	return &FTS5{db}, nil
}

// Close releases the database.
func (f *FTS5) Close() error { return f.db.Close() }

var (
	plainHeading = regexp.MustCompile(`^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$`)
	plainFence   = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})")
	plainWord    = regexp.MustCompile(`[\p{L}\p{N}_]+`)
)

// plainSections cuts a note at its ATX headings outside code fences:
// (heading, text) of each section, the preamble's heading "".
func plainSections(text string) [][2]string {
	var out [][2]string
	head, buf, fence := "", []string{}, byte(0)
	for _, line := range strings.Split(text, "\n") {
		if m := plainFence.FindStringSubmatch(line); m != nil {
			if fence == 0 {
				fence = m[1][0]
			} else if m[1][0] == fence {
				fence = 0
			}
			buf = append(buf, line)
			continue
		}
		if m := plainHeading.FindStringSubmatch(line); fence == 0 && m != nil {
			out = append(out, [2]string{head, strings.Join(buf, "\n")})
			head, buf = plainHeadingName(line, m[2]), []string{line}
			continue
		}
		buf = append(buf, line)
	}
	return append(out, [2]string{head, strings.Join(buf, "\n")})
}

// plainHeadingName is the heading line's name as lore names the section
// (text, the line's raw heading text, when lore reads no heading there), so
// that a question's "path#Heading" names the same section for both: the
// reference cuts notes as a script would, but names what it cut with
// lore's own parser (no emphasis marks, code spans without backticks, a
// link by its text: "7. **Layer Cake**" is "7. Layer Cake").
func plainHeadingName(line, text string) string {
	r, err := markdown.Parse("h.md", []byte(line+"\n\n.\n"))
	if err == nil {
		for _, u := range r.Units {
			if n := len(u.HeadingPath); n > 0 {
				return u.HeadingPath[n-1]
			}
		}
	}
	return strings.TrimSpace(text)
}

// Score asks qs of the reference.
func (f *FTS5) Score(ctx context.Context, qs []Question) (Reference, error) {
	var r Reference
	for _, q := range qs {
		var words []string
		for _, w := range plainWord.FindAllString(strings.ToLower(q.Query), -1) {
			words = append(words, `"`+w+`"`)
		}
		var ranked Ranked
		if len(words) > 0 {
			match := strings.Join(words, " OR ")
			notes, err := f.top(ctx, "SELECT path, '' FROM notes WHERE notes MATCH ? ORDER BY bm25(notes) LIMIT 3", match)
			if err != nil {
				return r, err
			}
			secs, err := f.top(ctx, "SELECT path, heading FROM secs WHERE secs MATCH ? ORDER BY bm25(secs) LIMIT 3", match)
			if err != nil {
				return r, err
			}
			for _, n := range notes {
				ranked.Notes = append(ranked.Notes, n[0])
			}
			for _, s := range secs { // s[1] is named as lore names it (plainHeadingName)
				ranked.Sections = append(ranked.Sections, s[0]+"#"+s[1])
			}
		}
		r.Ranked = append(r.Ranked, ranked)
		path, _, _ := strings.Cut(q.Expected, "#")
		if i := slices.Index(ranked.Notes, path); i >= 0 {
			r.Note3++
			if i == 0 {
				r.Note1++
			}
		}
		if i := slices.Index(ranked.Sections, q.Expected); i >= 0 {
			r.Section3++
			if i == 0 {
				r.Section1++
			}
		}
	}
	if k := float64(len(qs)); k > 0 {
		r.Note1, r.Note3, r.Section1, r.Section3 = r.Note1/k, r.Note3/k, r.Section1/k, r.Section3/k
	}
	return r, nil
}

func (f *FTS5) top(ctx context.Context, query, match string) ([][2]string, error) {
	rows, err := f.db.QueryContext(ctx, query, match)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out [][2]string
	for rows.Next() {
		var a, b string
		if err := rows.Scan(&a, &b); err != nil {
			return nil, err
		}
		out = append(out, [2]string{a, b})
	}
	return out, rows.Err()
}

package eval

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lore-memory/lore/internal/shareddata"
	"github.com/lore-memory/lore/internal/testmodel"
	"github.com/lore-memory/lore/internal/testvault"
	"github.com/lore-memory/lore/markdown"
	"github.com/lore-memory/lore/retrieve"
	"github.com/lore-memory/lore/vault"
)

func tarGz(t *testing.T, entries []tar.Header, bodies map[string]string) string {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, h := range entries {
		body := bodies[h.Name]
		h.Size = int64(len(body))
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(body))
	}
	tw.Close()
	gz.Close()
	p := filepath.Join(t.TempDir(), "v.tar.gz")
	os.WriteFile(p, buf.Bytes(), 0o644)
	return p
}

// An archive unpacks to its one folder, links kept; an entry or a link
// that leaves the folder is refused.
func TestExtractArchive_KeepsLinksAndRefusesEscapes(t *testing.T) {
	good := tarGz(t, []tar.Header{
		{Name: "v/", Typeflag: tar.TypeDir, Mode: 0o755},
		{Name: "v/a/index.md", Typeflag: tar.TypeReg, Mode: 0o644},
		{Name: "v/a/README.md", Typeflag: tar.TypeSymlink, Linkname: "index.md"},
	}, map[string]string{"v/a/index.md": "# A\n"})
	root, err := ExtractArchive(good, t.TempDir())
	if err != nil || filepath.Base(root) != "v" {
		t.Fatalf("root %q, %v", root, err)
	}
	if to, err := os.Readlink(filepath.Join(root, "a", "README.md")); err != nil || to != "index.md" {
		t.Errorf("the link: %q, %v", to, err)
	}
	for name, h := range map[string]tar.Header{
		"an entry with ..":   {Name: "../x.md", Typeflag: tar.TypeReg},
		"an absolute link":   {Name: "l.md", Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd"},
		"a link that leaves": {Name: "d/l.md", Typeflag: tar.TypeSymlink, Linkname: "../../x"},
	} {
		if _, err := ExtractArchive(tarGz(t, []tar.Header{h}, nil), t.TempDir()); err == nil {
			t.Errorf("%s was extracted", name)
		}
	}
}

// The plain FTS5 reference ranks notes and heading sections by an OR of
// the query's words (letters of any script), as scripts/bench/fts5_baseline.py.
func TestFTS5Reference(t *testing.T) {
	dir := t.TempDir()
	testvault.Write(t, dir, "a.md", "# Release\n\nTag it.\n\n## Rollback\n\nRevert the tag and redeploy.\n")
	testvault.Write(t, dir, "b.md", "# Deploy\n\nBlue green switch.\n")
	testvault.Write(t, dir, "c.md", "# 缓存\n\n缓存 穿透 怎么 处理\n")
	testvault.Write(t, dir, ".obsidian/x.md", "# Rollback rollback rollback\n")
	r := referenceOn(t, dir,
		Question{Query: "how do I rollback and redeploy", Expected: "a.md#Rollback"},
		Question{Query: "blue green", Expected: "b.md#Deploy"},
		Question{Query: "缓存 穿透", Expected: "c.md#缓存"},
		Question{Query: "nothing matches this", Expected: "a.md#Release"},
	)
	if r.Note1 != 0.75 || r.Section1 != 0.75 || r.Note3 != 0.75 || r.Section3 != 0.75 {
		t.Errorf("reference %+v, want 0.75 at every level", r)
	}
	// Each question's first section, for lore eval --misses to set beside
	// lore's: the answer for the first three, nothing for the last.
	if want := []string{"a.md#Rollback", "b.md#Deploy", "c.md#缓存", ""}; !slices.Equal(r.First(), want) {
		t.Errorf("firsts %q, want %q", r.First(), want)
	}
}

// A symlink to a note is another name of that note (lore reads the note
// once, at its own path), so the reference reads it once too: the ADR
// examples' 217 README.md -> index.md links made each page two notes of
// one text for plain FTS5, whose ties went to README.md, and its figures
// there were near zero.
func TestFTS5Reference_ASymlinkIsNotASecondNote(t *testing.T) {
	dir := t.TempDir()
	testvault.Write(t, dir, "adr/index.md", "# Use Postgres\n\n## Conclusion\n\nWe use PostgreSQL for the database.\n")
	testvault.Write(t, dir, "other.md", "# Other\n\nNothing about databases.\n")
	if err := os.Symlink("index.md", filepath.Join(dir, "adr", "README.md")); err != nil {
		t.Fatal(err)
	}
	r := referenceOn(t, dir, Question{Query: "postgresql database conclusion", Expected: "adr/index.md#Conclusion"})
	if r.Note1 != 1 || r.Section1 != 1 || r.First()[0] != "adr/index.md#Conclusion" {
		t.Errorf("reference %+v: want the note at its own path first, not its symlink", r)
	}
}

// A note that opens with its heading has no text before it: plain FTS5's
// reference had read that empty preamble as a section of its own, which
// matched on the note's path alone and, empty and so the shortest, came
// first by bm25 (the ADR examples' paths are their titles).
func TestFTS5Reference_AnEmptyPreambleIsNotASection(t *testing.T) {
	dir := t.TempDir()
	testvault.Write(t, dir, "use-postgres/index.md", "# Use Postgres\n\nWe use PostgreSQL for the database, for its extensions, its planner, its tooling, its replication, its community and the years our team has run it in production.\n")
	r := referenceOn(t, dir, Question{Query: "use postgres", Expected: "use-postgres/index.md#Use Postgres"})
	if r.Section1 != 1 || r.First()[0] != "use-postgres/index.md#Use Postgres" {
		t.Errorf("reference first %q: want the heading's section, not the empty text before it", r.First())
	}
}

// referenceOn is plain FTS5's reference over the notes under dir, asked qs.
func referenceOn(t *testing.T, dir string, qs ...Question) Reference {
	t.Helper()
	ref, err := OpenFTS5(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	r, err := ref.Score(context.Background(), qs)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// newVaultSets are the question sets of the vaults new this round, each a
// section drawn at random from each of about twenty notes, the question
// written from its text before any search (testdata/eval).
var newVaultSets = []struct {
	name, set string
	floors    map[string]float64
}{
	// Floors one question under the figures of the first run (lexical;
	// docs/BENCHMARKS.md has the table); note@3 one more under since a
	// note's coverage of the query put the README, with its copy of the
	// answer's section, in the answer's note's place among the first
	// three (docs/decisions/note-coverage.md).
	{"adr-examples", "../testdata/eval/adr-examples.jsonl", map[string]float64{"activate note@1": 0.55, "activate note@3": 0.60, "activate section@1": 0.45, "activate section@3": 0.60}},
	// Written to judge a section-order simplification (each rule of
	// section order turned off alone; none was removed: every one pays).
	{"adr-examples", "../testdata/eval/adr-examples-2.jsonl", map[string]float64{"activate note@1": 0.60, "activate note@3": 0.73, "activate section@1": 0.53, "activate section@3": 0.60}},
	{"advanced-java", "../testdata/eval/advanced-java.jsonl", map[string]float64{"activate note@1": 0.85, "activate note@3": 0.95, "activate section@1": 0.75, "activate section@3": 0.85}},
	// Written after the Chinese phrasing change was designed (tokenize/phrasing.go).
	{"advanced-java", "../testdata/eval/advanced-java-2.jsonl", map[string]float64{"activate note@1": 0.94, "activate note@3": 0.94, "activate section@1": 0.94, "activate section@3": 0.94}},
	// Written after the note-evidence change was designed (not kept:
	// docs/decisions/not-kept-note-evidence.md).
	{"go-proposals", "../testdata/eval/go-proposals-2.jsonl", map[string]float64{"activate note@1": 0.90, "activate note@3": 0.95, "activate section@1": 0.75, "activate section@3": 0.90}},
	// Written after lower BM25 column weights were designed (not kept:
	// docs/decisions/query-or-and-column-weights.md); one question under
	// the figures of their first run.
	{"adr-examples", "../testdata/eval/adr-examples-3.jsonl", map[string]float64{"activate note@1": 0.85, "activate note@3": 0.92, "activate section@1": 0.78, "activate section@3": 0.85}},
	{"advanced-java", "../testdata/eval/advanced-java-3.jsonl", map[string]float64{"activate note@1": 0.83, "activate note@3": 0.91, "activate section@1": 0.75, "activate section@3": 0.91}},
	{"go-proposals", "../testdata/eval/go-proposals-3.jsonl", map[string]float64{"activate note@1": 0.92, "activate note@3": 0.92, "activate section@1": 0.84, "activate section@3": 0.84}},
	// Written before any run of this round, to judge coord over one block
	// (designed without them; not kept: docs/decisions/not-kept-coord.md);
	// one question under the figures of their first run. On the ADR examples' set six of the ten answers not
	// first come from the Turkish locale's copy of the English note.
	{"adr-examples", "../testdata/eval/adr-examples-4.jsonl", map[string]float64{"activate note@1": 0.42, "activate note@3": 0.85, "activate section@1": 0.21, "activate section@3": 0.42}},
	{"advanced-java", "../testdata/eval/advanced-java-4.jsonl", map[string]float64{"activate note@1": 0.75, "activate note@3": 0.91, "activate section@1": 0.66, "activate section@3": 0.91}},
	{"go-proposals", "../testdata/eval/go-proposals-4.jsonl", map[string]float64{"activate note@1": 0.92, "activate note@3": 0.92, "activate section@1": 0.76, "activate section@3": 0.84}},
	{"go-proposals", "../testdata/eval/go-proposals.jsonl", map[string]float64{"activate note@1": 0.95, "activate note@3": 0.95, "activate section@1": 0.73, "activate section@3": 0.82}},
	// Written before any run to judge a fourth coord design (not kept:
	// docs/decisions/not-kept-coord.md); one question under the figures of
	// their first run without it. The ADR examples' English notes were all
	// asked about already: this set asks the French and Spanish locales in
	// their own languages.
	{"adr-examples", "../testdata/eval/adr-examples-5.jsonl", map[string]float64{"activate note@1": 0.84, "activate note@3": 0.84, "activate section@1": 0.84, "activate section@3": 0.84}},
	{"advanced-java", "../testdata/eval/advanced-java-5.jsonl", map[string]float64{"activate note@1": 0.83, "activate note@3": 0.91, "activate section@1": 0.75, "activate section@3": 0.91}},
	{"go-proposals", "../testdata/eval/go-proposals-5.jsonl", map[string]float64{"activate note@1": 0.92, "activate note@3": 0.92, "activate section@1": 0.69, "activate section@3": 0.92}},
	// Paraphrased (seed 37): each section asked without its own
	// distinctive words; one question under the figures of its first run.
	{"go-proposals", "../testdata/eval/go-proposals-paraphrased.jsonl", map[string]float64{"activate note@1": 0.42, "activate note@3": 0.78, "activate section@1": 0.0, "activate section@3": 0.35}},
	// Seed 41, written before any run after the last ranking change of
	// issue 62, a judge of the ranking as it ends the issue; one question
	// under the figures of their first run. The ADR examples' set asks
	// five locales in their own languages (Korean, Turkish, French,
	// Spanish, Welsh).
	{"adr-examples", "../testdata/eval/adr-examples-6.jsonl", map[string]float64{"activate note@1": 0.90, "activate note@3": 0.90, "activate section@1": 0.90, "activate section@3": 0.90}},
	{"advanced-java", "../testdata/eval/advanced-java-6.jsonl", map[string]float64{"activate note@1": 0.81, "activate note@3": 0.81, "activate section@1": 0.63, "activate section@3": 0.81}},
	{"go-proposals", "../testdata/eval/go-proposals-6.jsonl", map[string]float64{"activate note@1": 0.75, "activate note@3": 0.91, "activate section@1": 0.58, "activate section@3": 0.83}},
	// Seed 43, written to judge the label as a share of the full label
	// (not kept: docs/BENCHMARKS.md, "The label as a share"); one question
	// under the figures of their first run without it. advanced-java has
	// two notes left that no set asks about but two song pages.
	{"adr-examples", "../testdata/eval/adr-examples-7.jsonl", map[string]float64{"activate note@1": 0.72, "activate note@3": 0.90, "activate section@1": 0.72, "activate section@3": 0.81}},
	{"advanced-java", "../testdata/eval/advanced-java-7.jsonl", map[string]float64{"activate note@1": 0.5, "activate note@3": 0.5, "activate section@1": 0.5, "activate section@3": 0.5}},
	{"go-proposals", "../testdata/eval/go-proposals-7.jsonl", map[string]float64{"activate note@1": 0.83, "activate note@3": 0.91, "activate section@1": 0.58, "activate section@3": 0.91}},
	// Seed 47, written to judge two section-order designs (not kept:
	// docs/decisions/not-kept-title-label-units.md); advanced-java's and
	// the Go proposals' drawn with sections.py --again. One question under
	// the figures of their first run.
	{"adr-examples", "../testdata/eval/adr-examples-8.jsonl", map[string]float64{"activate note@1": 0.75, "activate note@3": 0.91, "activate section@1": 0.66, "activate section@3": 0.83}},
	{"advanced-java", "../testdata/eval/advanced-java-8.jsonl", map[string]float64{"activate note@1": 0.90, "activate note@3": 0.90, "activate section@1": 0.81, "activate section@3": 0.90}},
	{"go-proposals", "../testdata/eval/go-proposals-8.jsonl", map[string]float64{"activate note@1": 0.91, "activate note@3": 0.91, "activate section@1": 0.75, "activate section@3": 0.91}},
	// Seeds 53 and 59, written to judge two forms of a section-order
	// design (not kept: docs/decisions/not-kept-section-parts.md);
	// advanced-java's and the Go proposals' drawn with sections.py
	// --again. One question under the figures of their first run.
	{"adr-examples", "../testdata/eval/adr-examples-9.jsonl", map[string]float64{"activate note@1": 0.88, "activate note@3": 0.88, "activate section@1": 0.77, "activate section@3": 0.88}},
	{"advanced-java", "../testdata/eval/advanced-java-9.jsonl", map[string]float64{"activate note@1": 0.83, "activate note@3": 0.83, "activate section@1": 0.75, "activate section@3": 0.83}},
	{"go-proposals", "../testdata/eval/go-proposals-9.jsonl", map[string]float64{"activate note@1": 0.83, "activate note@3": 0.91, "activate section@1": 0.83, "activate section@3": 0.91}},
	{"adr-examples", "../testdata/eval/adr-examples-10.jsonl", map[string]float64{"activate note@1": 0.77, "activate note@3": 0.88, "activate section@1": 0.66, "activate section@3": 0.77}},
	{"advanced-java", "../testdata/eval/advanced-java-10.jsonl", map[string]float64{"activate note@1": 0.72, "activate note@3": 0.81, "activate section@1": 0.72, "activate section@3": 0.72}},
	{"go-proposals", "../testdata/eval/go-proposals-10.jsonl", map[string]float64{"activate note@1": 0.91, "activate note@3": 0.91, "activate section@1": 0.83, "activate section@3": 0.83}},
	// Seed 61, written to judge a word's weight within a note capped by
	// its idf over the notes found (not kept:
	// docs/decisions/not-kept-context-idf.md). One question under the
	// figures of their first run.
	{"adr-examples", "../testdata/eval/adr-examples-11.jsonl", map[string]float64{"activate note@1": 0.88, "activate note@3": 0.88, "activate section@1": 0.77, "activate section@3": 0.77}},
	{"advanced-java", "../testdata/eval/advanced-java-11.jsonl", map[string]float64{"activate note@1": 0.91, "activate note@3": 0.91, "activate section@1": 0.91, "activate section@3": 0.91}},
	{"go-proposals", "../testdata/eval/go-proposals-11.jsonl", map[string]float64{"activate note@1": 0.92, "activate note@3": 0.92, "activate section@1": 0.84, "activate section@3": 0.92}},
	// Seed 67, drawn from notes of five sections or more
	// (sections.py --min-sections 5; advanced-java's and the Go
	// proposals' with --again), written to judge a section's ancestors'
	// headings counted as its own (not kept:
	// docs/decisions/not-kept-heading-path.md). One question under the
	// figures of their first run.
	{"adr-examples", "../testdata/eval/adr-examples-12.jsonl", map[string]float64{"activate note@1": 0.89, "activate note@3": 0.89, "activate section@1": 0.89, "activate section@3": 0.89}},
	{"advanced-java", "../testdata/eval/advanced-java-12.jsonl", map[string]float64{"activate note@1": 0.79, "activate note@3": 0.79, "activate section@1": 0.79, "activate section@3": 0.79}},
	{"go-proposals", "../testdata/eval/go-proposals-12.jsonl", map[string]float64{"activate note@1": 0.91, "activate note@3": 0.91, "activate section@1": 0.91, "activate section@3": 0.91}},
	// Written after the path column holding the file's name alone was
	// committed, before any run (seed 71; not kept:
	// docs/decisions/not-kept-path-name.md); one question under the
	// figures of their first run.
	{"adr-examples", "../testdata/eval/adr-examples-13.jsonl", map[string]float64{"activate note@1": 0.88, "activate note@3": 0.88, "activate section@1": 0.88, "activate section@3": 0.88}},
	{"advanced-java", "../testdata/eval/advanced-java-13.jsonl", map[string]float64{"activate note@1": 0.77, "activate note@3": 0.77, "activate section@1": 0.66, "activate section@3": 0.66}},
	{"go-proposals", "../testdata/eval/go-proposals-13.jsonl", map[string]float64{"activate note@1": 0.90, "activate note@3": 0.90, "activate section@1": 0.72, "activate section@3": 0.90}},
	// Written after a path's words were indexed as words of their own
	// kind, committed before any run (seed 73; not kept:
	// docs/decisions/not-kept-path-words.md); one question under the
	// figures of their first run.
	{"adr-examples", "../testdata/eval/adr-examples-14.jsonl", map[string]float64{"activate note@1": 0.87, "activate note@3": 0.87, "activate section@1": 0.75, "activate section@3": 0.87}},
	{"advanced-java", "../testdata/eval/advanced-java-14.jsonl", map[string]float64{"activate note@1": 0.77, "activate note@3": 0.88, "activate section@1": 0.66, "activate section@3": 0.77}},
	{"go-proposals", "../testdata/eval/go-proposals-14.jsonl", map[string]float64{"activate note@1": 0.90, "activate note@3": 0.90, "activate section@1": 0.72, "activate section@3": 0.81}},
	// Written after the notes delivered were put in an order that covers
	// the question, committed before any run (seed 79; not kept:
	// docs/decisions/not-kept-novelty-order.md); one question under the
	// figures of their first run.
	{"adr-examples", "../testdata/eval/adr-examples-15.jsonl", map[string]float64{"activate note@1": 0.70, "activate note@3": 0.90, "activate section@1": 0.70, "activate section@3": 0.80}},
	{"advanced-java", "../testdata/eval/advanced-java-15.jsonl", map[string]float64{"activate note@1": 0.88, "activate note@3": 0.88, "activate section@1": 0.77, "activate section@3": 0.88}},
	{"go-proposals", "../testdata/eval/go-proposals-15.jsonl", map[string]float64{"activate note@1": 0.83, "activate note@3": 0.91, "activate section@1": 0.58, "activate section@3": 0.75}},
	// Written after a note's coverage of the query was added to its
	// sections' scores, committed before any run (seed 89; kept:
	// docs/decisions/note-coverage.md); one question under the figures
	// of their first run.
	{"adr-examples", "../testdata/eval/adr-examples-16.jsonl", map[string]float64{"activate note@1": 0.60, "activate note@3": 0.80, "activate section@1": 0.60, "activate section@3": 0.70}},
	{"advanced-java", "../testdata/eval/advanced-java-16.jsonl", map[string]float64{"activate note@1": 0.88, "activate note@3": 0.88, "activate section@1": 0.88, "activate section@3": 0.88}},
	{"go-proposals", "../testdata/eval/go-proposals-16.jsonl", map[string]float64{"activate note@1": 0.83, "activate note@3": 0.91, "activate section@1": 0.75, "activate section@3": 0.83}},
	// Written after the link votes, a note's coverage and its status were
	// made one stage, committed before any run (seed 97; kept:
	// docs/decisions/one-note-stage.md); one question under the figures
	// of their first run.
	{"adr-examples", "../testdata/eval/adr-examples-17.jsonl", map[string]float64{"activate note@1": 0.88, "activate note@3": 0.88, "activate section@1": 0.88, "activate section@3": 0.88}},
	{"advanced-java", "../testdata/eval/advanced-java-17.jsonl", map[string]float64{"activate note@1": 0.90, "activate note@3": 0.90, "activate section@1": 0.90, "activate section@3": 0.90}},
	{"go-proposals", "../testdata/eval/go-proposals-17.jsonl", map[string]float64{"activate note@1": 0.90, "activate note@3": 0.90, "activate section@1": 0.72, "activate section@3": 0.90}},
}

// TestNewVaults_Figures asks each new vault its sets through activate
// (lexical), after checking that every expected answer is a section of
// the vault, and holds the figures at their floors. Each vault is
// unpacked and indexed once for all its sets. A vault whose archive is not
// beside the checkout is skipped, naming it.
func TestNewVaults_Figures(t *testing.T) {
	eachNewVault(t, "it indexes three real vaults", func(t *testing.T, name, root string, sets []hubSet) {
		for _, set := range sets {
			answersAreSections(t, root, set.file)
		}
		judgedFloors(t, name, hubFigures(t, openVault(t, root), "lexical", sets), newVaultJudgedFloors[name])
	})
}

// TestNewVaults_HybridFigures asks the three real vaults' sets through
// activate in hybrid mode, every unit embedded with the built-in model, as
// lore activate runs once the model is installed and as lore eval --table
// … --mode hybrid measures it, and holds them at the lexical test's floors:
// the model moves a question here and there on these vaults
// (docs/BENCHMARKS.md, "Hybrid mode"), so a change that makes hybrid mode
// lose more than a set's floor allows fails here. It needs `make model`;
// CI sets LORE_REQUIRE_MODEL, so there a missing model fails instead of
// skipping.
func TestNewVaults_HybridFigures(t *testing.T) {
	eachNewVault(t, "it indexes and embeds three real vaults", func(t *testing.T, _, root string, sets []hubSet) {
		ix := openVault(t, root)
		testmodel.EmbedAll(t, ix.Index, testmodel.Builtin(t))
		hubFigures(t, ix, "hybrid", sets)
	})
}

// newVaultJudgedFloors hold the new vaults' judged reading (judgedFloors):
// note@1, note@3 and section@1 over all their sets, one question under the
// figures with the judgments of testdata/eval/judged, taken again when sets
// are added (last with the seed-89 sets and a note's coverage of the
// query).
var newVaultJudgedFloors = map[string][3]float64{
	"adr-examples":  {0.945, 0.978, 0.896},
	"advanced-java": {0.954, 0.988, 0.885},
	"go-proposals":  {0.955, 0.986, 0.828},
}

// eachNewVault runs check on each real vault of newVaultSets, unpacked
// once for all its sets, as a subtest named after it; it skips in -short
// (why says what it would cost) and when the shared data is not beside
// the checkout, and a vault whose archive is absent skips its subtest.
func eachNewVault(t *testing.T, why string, check func(t *testing.T, name, root string, sets []hubSet)) {
	if testing.Short() {
		t.Skip("skipped in -short: " + why)
	}
	shared, err := shareddata.Dir()
	if err != nil {
		t.Skip(err)
	}
	names, sets := newVaultsBySet()
	for _, name := range names {
		t.Run(name, func(t *testing.T) { check(t, name, extractVault(t, shared, name), sets[name]) })
	}
}

// newVaultsBySet groups newVaultSets by vault: the vaults' names in the
// order they first appear, and each one's sets with their floors.
func newVaultsBySet() ([]string, map[string][]hubSet) {
	var names []string
	sets := map[string][]hubSet{}
	for _, nv := range newVaultSets {
		if sets[nv.name] == nil {
			names = append(names, nv.name)
		}
		sets[nv.name] = append(sets[nv.name], hubSet{nv.set, nv.floors})
	}
	return names, sets
}

// answersAreSections fails t for each question of file whose expected
// "path#Heading" is not a section of the vault at root, as lore parses it.
func answersAreSections(t *testing.T, root, file string) {
	t.Helper()
	qs, err := LoadQuestions(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range qs {
		p, h, _ := strings.Cut(q.Expected, "#")
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil {
			t.Fatalf("%s, %q: %v", file, q.Query, err)
		}
		r, err := markdown.Parse(p, data)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(r.Units, func(u vault.Unit) bool {
			n := len(u.HeadingPath)
			return n > 0 && u.HeadingPath[n-1] == h
		}) {
			t.Errorf("%s, %q: %s has no section %q", file, q.Query, p, h)
		}
	}
}

// openVault makes root a vault that embeds nothing by itself (a test
// embeds with testmodel.EmbedAll when it asks for hybrid mode) and opens
// its index, both closed when t ends.
func openVault(t *testing.T, root string) *retrieve.Memory {
	t.Helper()
	testvault.Write(t, root, "lore.yaml", "embedding: {provider: none}\n")
	testvault.Git(t, root, "init", "-q")
	return openMemory(t, root)
}

// extractVault unpacks the named vault's archive from shared's data folder
// into a temporary folder and returns the vault's root; a vault whose
// archive is absent skips t, naming it.
func extractVault(t *testing.T, shared, name string) string {
	t.Helper()
	archive := filepath.Join(shared, "data", name, name+".tar.gz")
	root, err := ExtractArchive(archive, t.TempDir())
	if errors.Is(err, os.ErrNotExist) {
		t.Skipf("skipped: %s is absent (set LORE_SHARED to the folder that holds data/%s)", archive, name)
	}
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// The reference names a heading as lore names the section: emphasis and
// code marks left out, a link by its text, an underscore inside a name and
// a wikilink's source kept.
func TestPlainSections_AHeadingIsNamedWithoutItsMarks(t *testing.T) {
	for _, tc := range []struct{ md, want string }{
		{"## 7. **Layer Cake**\ntext", "7. Layer Cake"},
		{"## The `all` and `...` module patterns\ntext", "The all and ... module patterns"},
		{"## An *emphasized* word\ntext", "An emphasized word"},
		{"## Obsidian_to_Anki\ntext", "Obsidian_to_Anki"},
		{"## 2 * 3 * 4\ntext", "2 * 3 * 4"},
		{"## [Hystrix](https://github.com/Netflix/Hystrix)\ntext", "Hystrix"},
		{"## [[Obsidian Community Talks|Community Talks]]\ntext", "[[Obsidian Community Talks|Community Talks]]"},
	} {
		secs := plainSections(tc.md)
		if len(secs) != 2 || secs[1][0] != tc.want {
			t.Errorf("plainSections(%q) heading %q, want %q", tc.md, secs[len(secs)-1][0], tc.want)
		}
	}
}

// A vault's name names the files lore eval --table --unjudged writes
// (DIR/<name>.jsonl): a name that is not a plain file name, one that would
// write outside DIR, is an error naming it, and so is a table that does not
// parse or names neither a folder nor an archive.
func TestLoadTable_BadVaultsAreNamed(t *testing.T) {
	dir := t.TempDir()
	for body, want := range map[string]string{
		`{"vaults": [{"name": "../evil", "dir": "v", "sets": ["a.jsonl"]}]}`:    `"../evil"`,
		`{"vaults": [{"name": "a/b", "dir": "v", "sets": ["a.jsonl"]}]}`:        `"a/b"`,
		`{"vaults": [{"name": "..", "dir": "v", "sets": ["a.jsonl"]}]}`:         `".."`,
		`{"vaults": [{"name": "ok", "sets": ["a.jsonl"]}]}`:                     "one of dir and archive",
		`{"vaults": [{"name": "ok", "dir": "v", "sets": ["a.jsonl"], "x": 1}]}`: "unknown field",
	} {
		p := filepath.Join(dir, "table.json")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadTable(p); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one naming %s", body, err, want)
		}
	}
}

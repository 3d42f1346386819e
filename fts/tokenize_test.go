package fts

import (
	"database/sql"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
)

func allTerms(s string) []string {
	var out []string
	terms(s, func(t string) { out = append(out, t) })
	return out
}

func TestTerms(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"Hello, World", []string{"hello", "world"}},
		{"parseConfigFile", []string{"parse", "config", "file", "parseconfigfile"}},
		{"max_retry_count", []string{"max", "retry", "count", "maxretrycount"}},
		{"internal/fts/index.go", []string{"internal", "fts", "index", "go"}},
		{"HTTPServer v2", []string{"http", "server", "httpserver", "v2"}},
		{"sha256 utf8", []string{"sha256", "utf8"}},
		{"检索设计", []string{"检索", "索设", "设计"}},
		{"检", []string{"检"}},
		{"MCP并发控制", []string{"mcp", "并发", "发控", "控制"}},
		{"café Straße", []string{"café", "straße"}},
		{"end. Next", []string{"end", "next"}},
	} {
		if got := allTerms(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("terms(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestQueryTerms_DropStopWordsUnlessNothingElse(t *testing.T) {
	if got := queryTerms("how do I release the app"); !reflect.DeepEqual(got, []string{"release", "app"}) {
		t.Errorf("got %q", got)
	}
	if got := queryTerms("what is it"); !reflect.DeepEqual(got, []string{"what", "is", "it"}) {
		t.Errorf("stop-word-only query: got %q, want every term kept", got)
	}
	if got := matchExpr([]string{"检", "release"}); got != `"检"* OR "release"` {
		t.Errorf("matchExpr = %s", got)
	}
}

func TestCutQuery(t *testing.T) {
	long := strings.Repeat("检", MaxQueryBytes) // 3 bytes each
	got := CutQuery("  " + long)
	if len(got) > MaxQueryBytes || !strings.HasPrefix(long, got) || len(got) < MaxQueryBytes-3 {
		t.Errorf("cut to %d bytes, want the longest rune-aligned prefix within %d", len(got), MaxQueryBytes)
	}
}

// TestTokenizerChoice measures three ways of indexing Chinese on the fixture set
// testdata/cjk (two-character words inside longer runs of Han text, and some
// Japanese): FTS5's default unicode61, FTS5's trigram tokenizer, and lore's
// terms (overlapping bigrams). lore's must find every query; the log shows
// what the others miss, which is why lore does not use them.
func TestTokenizerChoice(t *testing.T) {
	files := readFixture(t, "../testdata/cjk")
	data, err := os.ReadFile("../testdata/cjk/queries.tsv")
	if err != nil {
		t.Fatal(err)
	}
	type query struct{ q, want string }
	var queries []query
	for _, line := range strings.Split(string(data), "\n") {
		if q, want, ok := strings.Cut(line, "\t"); ok && !strings.HasPrefix(q, "#") {
			queries = append(queries, query{q, want})
		}
	}

	tv := newTestVault(t, files)
	found := 0
	for _, q := range queries {
		if got := tv.topPath(q.q); got == q.want {
			found++
		} else {
			t.Errorf("lore: %q → %q, want %q", q.q, got, q.want)
		}
	}
	t.Logf("lore bigrams:      %d/%d queries find their note first", found, len(queries))

	for _, tok := range []string{"unicode61", "trigram"} {
		db, err := sql.Open("sqlite3", ":memory:")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if _, err := db.Exec(fmt.Sprintf("CREATE VIRTUAL TABLE f USING fts5(path, body, tokenize='%s')", tok)); err != nil {
			t.Fatal(err)
		}
		for p, body := range files {
			db.Exec("INSERT INTO f(path, body) VALUES (?, ?)", p, body)
		}
		hits := 0
		for _, q := range queries {
			var p string
			err := db.QueryRow(`SELECT path FROM f WHERE f MATCH ? ORDER BY rank LIMIT 1`, `"`+q.q+`"`).Scan(&p)
			if err == nil && p == q.want {
				hits++
			}
		}
		t.Logf("FTS5 %-12s %d/%d", tok+":", hits, len(queries))
		if hits >= found {
			t.Errorf("FTS5 %s found %d, as many as lore's %d: revisit the tokenizer choice", tok, hits, found)
		}
	}
}

func FuzzTerms(f *testing.F) {
	for _, s := range []string{"parseConfigFile", "检索设计", "a_b-c.d/e:f", "ÀÉÎ", "\xff\xfe", "HTTPServer2Go"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, term := range allTerms(s) {
			if term == "" || strings.ContainsAny(term, " \t\n\"") {
				t.Fatalf("bad term %q from %q", term, s)
			}
		}
		_ = matchExpr(queryTerms(s))
	})
}

package fts

import (
	"database/sql"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/lore-memory/lore/internal/testvault"
)

// TestTokenizerChoice measures three ways of indexing Chinese on the fixture set
// testdata/cjk (two-character words inside longer runs of Han text, and some
// Japanese): FTS5's default unicode61, FTS5's trigram tokenizer, and lore's
// terms (overlapping bigrams). lore's must find every query; the log shows
// what the others miss, which is why lore does not use them.
func TestTokenizerChoice(t *testing.T) {
	files := testvault.ReadFixture(t, "../testdata/cjk")
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

// TestMatchExpr: the FTS5 expression is an OR of quoted terms, and a lone CJK
// character matches as a prefix of the bigrams it starts.
func TestMatchExpr(t *testing.T) {
	t.Parallel()
	if got := MatchExpr([]string{"检", "release", `a"b`}); got != `"检"* OR "release" OR "a""b"` {
		t.Errorf("MatchExpr = %s", got)
	}
}

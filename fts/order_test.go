package fts

import (
	"context"
	"slices"
	"testing"
)

// A fresh index numbers notes and units in path order, whatever order the
// parallel walk of the folders finished in. BM25's cut at its depth breaks
// ties by row number, and identical texts (a vault's copies, its locales'
// untranslated pages) tie: numbered in the walk's order, the same vault
// indexed twice ranked differently (the ADR examples' fourth set moved a
// question in and out of note@3 from one `lore eval --table` to the next).
func TestRefresh_AFreshIndexNumbersNotesInPathOrder(t *testing.T) {
	t.Parallel()
	tv := newTestVault(t, map[string]string{
		"z.md":       "# Z\n\nThe same text.\n",
		"b.md":       "# B\n\nThe same text.\n",
		"a/x.md":     "# X\n\nThe same text.\n",
		"a/b/y.md":   "# Y\n\nThe same text.\n",
		"m/w.md":     "# W\n\nThe same text.\n",
		"m/n/o/p.md": "# P\n\nThe same text.\n",
	})
	ctx := context.Background()
	if _, err := tv.Ix.Refresh(ctx, nil); err != nil {
		t.Fatal(err)
	}
	read := func(q string) []string {
		rows, err := tv.Ix.db.QueryContext(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var p string
			if err := rows.Scan(&p); err != nil {
				t.Fatal(err)
			}
			out = append(out, p)
		}
		return out
	}
	for _, q := range []string{
		"SELECT path FROM resources WHERE draft = '' ORDER BY rid",
		"SELECT r.path FROM units u JOIN resources r ON r.rid = u.rid WHERE r.draft = '' ORDER BY u.uid",
	} {
		got := read(q)
		if len(got) == 0 || !slices.IsSorted(got) {
			t.Errorf("%s: %q, not in path order", q, got)
		}
	}
}

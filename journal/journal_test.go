package journal

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lore-memory/lore/drafts"
	"github.com/lore-memory/lore/fts"
	"github.com/lore-memory/lore/internal/testvault"
	"github.com/lore-memory/lore/outbox"
	"github.com/lore-memory/lore/retrieve"
	"github.com/lore-memory/lore/vault"
)

func newJournal(t *testing.T) (*Journal, string) {
	t.Helper()
	root := t.TempDir()
	testvault.Repo(t, root, map[string]string{"lore.yaml": "projects:\n  api: {}\n"})
	v, err := vault.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := retrieve.Open(context.Background(), v)
	if err != nil {
		t.Fatal(err)
	}
	st, err := drafts.Open(context.Background(), ix.Index, mustOutbox(t, ix.Index))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close(); ix.Close(); v.Close() })
	return New(ix, st, "api"), root
}

func TestKeywords(t *testing.T) {
	got := Keywords([]string{" Redis ", "redis", "2025-07-12", "今天", "10:30", "锁", "2025年7月12日", "7月", "Today"})
	want := []string{"redis", "2025年", "7月", "12日", "锁"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v want %v", got, want)
	}
}

func TestCheckNamespace(t *testing.T) {
	for _, ns := range []string{"u1", "u1/p1/x", "u1/", "/p1", "../p1", "u1/..", "u1/.hidden", `u1\x/p`, "", "u1/p\u202e1", "u1/p:1"} {
		if CheckNamespace(ns) == nil {
			t.Errorf("%q accepted", ns)
		}
	}
	// The spec: '\\' is '/', empty (and . / ..) segments are ignored.
	for _, ns := range []string{"u1/p1", `u1\p1`, "u1//p1", "/u1/p1/", "./u1/p1", `u1\\p1`} {
		if got, err := NormalizeNamespace(ns); err != nil || got != "u1/p1" {
			t.Errorf("NormalizeNamespace(%q) = %q, %v; want u1/p1", ns, got, err)
		}
	}
}

func TestRememberRecall(t *testing.T) {
	j, root := newJournal(t)
	ctx := context.Background()
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	j.SetClock(func() time.Time { now = now.Add(time.Minute); return now })
	imp := func(n int) *int { return &n }
	s := func(v string) *string { return &v }
	if _, err := j.Remember(ctx, RememberInput{Namespace: "u1/p1", Keywords: []string{"Redis", "锁", "2025-07-12"}, Slice: "We moved to Redlock.", Diary: "Single Redis lost locks on failover.", Importance: imp(5), OccurredAt: s("2025-07-12")}); err != nil {
		t.Fatal(err)
	}
	if _, err := j.Remember(ctx, RememberInput{Namespace: "u1/p1", Keywords: []string{"redis", "cache"}, Slice: "Cache TTL is 30s.", Diary: "Set after the incident."}); err != nil {
		t.Fatal(err)
	}
	if _, err := j.Remember(ctx, RememberInput{Namespace: "u2/p9", Keywords: []string{"other"}, Slice: "x", Diary: "y"}); err != nil {
		t.Fatal(err)
	}
	// Notes are real files, merged at once (auto-publish), readable by people.
	matches, _ := filepath.Glob(filepath.Join(root, "journal", "u1", "p1", "*", "*.md"))
	if len(matches) != 2 {
		t.Fatalf("journal files: %v", matches)
	}
	data, _ := os.ReadFile(matches[0])
	if !strings.Contains(string(data), "namespace: u1/p1") || !strings.Contains(string(data), "## Diary") {
		t.Fatalf("note:\n%s", data)
	}
	r, err := j.Recall(ctx, RecallInput{Namespace: "u1/p1", Keywords: []string{"REDIS", "锁"}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Total != 2 || !reflect.DeepEqual(r.Items[0].MatchedKeywords, []string{"redis", "锁"}) || r.Items[0].Diary != "" {
		t.Fatalf("recall: %+v", r)
	}
	r, _ = j.Recall(ctx, RecallInput{Namespace: "u1/p1", Keywords: []string{"7月"}, IncludeDiary: func() *bool { b := true; return &b }()})
	if r.Total != 1 || r.Items[0].Diary == "" {
		t.Fatalf("derived date keyword: %+v", r)
	}
	r, _ = j.Recall(ctx, RecallInput{Namespace: "u1/p1", Query: s("time=2025-07-01..2025-07-31 redlock")})
	if r.Total != 1 || r.Items[0].Slice != "We moved to Redlock." {
		t.Fatalf("query: %+v", r)
	}
	r, _ = j.Recall(ctx, RecallInput{Namespace: "u1/p1", Start: s("2026-01-01")})
	if r.Total != 1 || r.Items[0].Slice != "Cache TTL is 30s." {
		t.Fatalf("start: %+v", r)
	}
	kl, _ := j.KeywordsList(ctx, "u1/p1")
	if !reflect.DeepEqual(kl.Keywords, []string{"锁", "7月", "12日", "2025年", "cache", "redis"}) {
		t.Fatalf("keywords: %v", kl.Keywords)
	}
	g, _ := j.KeywordsListGlobal(ctx)
	if g.ScannedNamespaces != 2 || g.Keywords[0].Keyword != "redis" || g.Keywords[0].Items != 2 {
		t.Fatalf("global: %+v", g)
	}
	for name, in := range map[string]RecallInput{
		"limit 0":    {Namespace: "u1/p1", Limit: imp(0)},
		"limit 1000": {Namespace: "u1/p1", Limit: imp(1000)},
		"bad date":   {Namespace: "u1/p1", Start: s("last tuesday")},
		"bad ns":     {Namespace: "u1/p1/x"},
	} {
		if _, err := j.Recall(ctx, in); vault.ErrorCode(err) != vault.CodeInvalid {
			t.Errorf("%s: %v", name, err)
		}
	}
	for name, in := range map[string]RememberInput{
		"importance 0": {Namespace: "u1/p1", Keywords: []string{"a"}, Slice: "x", Diary: "y", Importance: imp(0)},
		"importance 6": {Namespace: "u1/p1", Keywords: []string{"a"}, Slice: "x", Diary: "y", Importance: imp(6)},
		"only time":    {Namespace: "u1/p1", Keywords: []string{"今天"}, Slice: "x", Diary: "y"},
		"bad occurred": {Namespace: "u1/p1", Keywords: []string{"a"}, Slice: "x", Diary: "y", OccurredAt: s("2025-13-45")},
		"one segment":  {Namespace: "u1", Keywords: []string{"a"}, Slice: "x", Diary: "y"},
	} {
		if _, err := j.Remember(ctx, in); vault.ErrorCode(err) != vault.CodeInvalid {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestRecallText pins the one-shot CLI's --text summary.
func TestRecallText(t *testing.T) {
	r := Recalled{Namespace: "u1/p1", Total: 3, Items: []Item{
		{Keywords: []string{"redis", "锁"}, Slice: "We moved to Redlock.", OccurredAt: "2025-07-12", Importance: 5, Diary: "Failover lost locks."},
		{Keywords: []string{"cache"}, Slice: "TTL is 30 s.\nSet after load tests.", RecordedAt: "2026-11-30T10:00:00Z"},
	}}
	want := "u1/p1: 3 memories (showing 2)\n" +
		"- [2025-07-12] redis, 锁 (importance 5)\n  We moved to Redlock.\n  diary: Failover lost locks.\n" +
		"- [2026-11-30T10:00:00Z] cache\n  TTL is 30 s.\n  Set after load tests.\n"
	if got := r.Text(); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

// Four remembers in the same second with the same first keyword are four
// memories: the path scheme never makes one refuse another.
func TestRememberBurstKeepsEveryMemory(t *testing.T) {
	j, root := newJournal(t)
	ctx := context.Background()
	at := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	j.SetClock(func() time.Time { return at })
	for i := 0; i < 4; i++ {
		if _, err := j.Remember(ctx, RememberInput{Namespace: `u1\p1`, Keywords: []string{"standup"}, Slice: fmt.Sprintf("note %d", i), Diary: "d"}); err != nil {
			t.Fatalf("remember %d: %v", i, err)
		}
	}
	matches, _ := filepath.Glob(filepath.Join(root, "journal", "u1", "p1", "2026", "*.md"))
	if len(matches) != 4 {
		t.Fatalf("want 4 journal notes, got %v", matches)
	}
	r, err := j.Recall(ctx, RecallInput{Namespace: "u1//p1", Keywords: []string{"standup"}})
	if err != nil || r.Total != 4 || r.Namespace != "u1/p1" {
		t.Fatalf("recall: %+v, %v", r, err)
	}
}

// mustOutbox opens the vault's outbox, as lore does beside the index.
func mustOutbox(t testing.TB, ix *fts.Index) *outbox.Outbox {
	t.Helper()
	out, err := outbox.Open(context.Background(), filepath.Join(ix.Vault().DataDir(), "outbox.db"))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

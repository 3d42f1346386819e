package mcp

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/lore-memory/lore/embed"
	"github.com/lore-memory/lore/retrieve"
	"github.com/lore-memory/lore/vault"
)

// Holes between the spec (000, 002, 003) and what lore answered (issue: the
// contracts, exactly), each held at the handler.

var releaseFiles = map[string]string{
	"lore.yaml":        "projects:\n  api: {}\n",
	"howto/release.md": "---\nid: mem_release\n---\n# Release\n\nthe TTL is 30 seconds and the budget is 3.\n",
	"notes/plain.md":   "# Plain\n\nno id in the frontmatter\n",
}

func (ts *testServer) mem(t *testing.T, args string) (any, error) {
	t.Helper()
	return ts.memory(context.Background(), []byte(args))
}

func TestContract_ReplacementWithoutNewTextIsRefused(t *testing.T) {
	ts := newTestServer(t, "memory", releaseFiles)
	out, err := ts.mem(t, `{"op":{"load":{"ids":["mem_release"]}}}`)
	if err != nil {
		t.Fatal(err)
	}
	hash := out.(loadResult).Resources[0].ContentHash
	_, err = ts.mem(t, `{"op":{"store":{"update":{"id":"mem_release","expected_hash":"`+hash+`","replacements":[{"old_text":"the TTL is 30 seconds and "}]}}}}`)
	if vault.ErrorCode(err) != vault.CodeInvalid || !strings.Contains(err.Error(), "op.store.update.replacements[0].new_text is required") {
		t.Fatalf("a replacement without new_text: %v; want invalid_input naming new_text", err)
	}
	// An empty new_text, given, deletes text as the spec allows.
	if _, err := ts.mem(t, `{"op":{"store":{"update":{"id":"mem_release","expected_hash":"`+hash+`","replacements":[{"old_text":"the TTL is 30 seconds and ","new_text":""}]}}}}`); err != nil {
		t.Fatalf("an empty new_text: %v", err)
	}
}

// An error says what is wrong with the value that was sent.
func TestContract_MessagesNameWhatIsWrong(t *testing.T) {
	ts := newTestServer(t, "memory", releaseFiles)
	_, err := ts.mem(t, `{"op":{"store":{"update":{"id":"mem_release","expected_hash":"md5:abc","replacements":[{"old_text":"a","new_text":"b"}]}}}}`)
	if vault.ErrorCode(err) != vault.CodeInvalid || !strings.Contains(err.Error(), `"md5:abc" is not a content hash`) {
		t.Fatalf("expected_hash md5:abc: %v", err)
	}
	js := newTestServer(t, "journal", releaseFiles)
	_, err = js.jRemember(context.Background(), []byte(`{"namespace":"u1/p1","keywords":["  "],"slice":"s","diary":"d"}`))
	if vault.ErrorCode(err) != vault.CodeInvalid || !strings.Contains(err.Error(), "keywords[0] is blank") {
		t.Fatalf("a blank keyword: %v", err)
	}
}

// An id lore hands out keeps working while the note exists: renaming a note
// without a frontmatter id once returned a path_ id that load then did not find.
func TestContract_RenameKeepsTheIDWorking(t *testing.T) {
	ts := newTestServer(t, "memory", releaseFiles)
	out, err := ts.mem(t, `{"op":{"store":{"rename":{"id":"notes/plain.md","new_path":"notes/moved.md"}}}}`)
	if err != nil {
		t.Fatal(err)
	}
	id := out.(vault.StoreResult).ResourceID
	if !strings.HasPrefix(id, "path_") {
		t.Fatalf("rename returned %q", id)
	}
	out, err = ts.mem(t, `{"op":{"load":{"ids":["`+id+`"]}}}`)
	if err != nil {
		t.Fatalf("load of the id rename returned: %v", err)
	}
	if r := out.(loadResult).Resources[0]; r.Path != "notes/moved.md" || r.ResourceID != id {
		t.Fatalf("load: %+v", r)
	}
}

// The spec's own example diff (no ---/+++/@@ lines, as agents write them)
// once passed a deny rule it breaks, and text that is not a diff passed too.
func TestContract_GuardReadsDiffsAsAgentsWriteThem(t *testing.T) {
	files := map[string]string{
		"lore.yaml": "projects:\n  api: {}\n",
		"decisions/adr-008-sql.md": "---\nid: mem_adr8\ntitle: ADR-008 Query safety\nguard:\n  - id: ADR-008-QuerySafety\n    deny: \"SELECT * FROM\"\n    literal: true\n" +
			"    message: Name the columns of every query.\n---\n# ADR-008\n",
	}
	ts := newTestServer(t, "vault", files)
	rep, err := ts.guard(t, `{"diff": "diff --git a/src/db.rs b/src/db.rs\n+let res = sqlx::query(\"SELECT * FROM users\").fetch_all(&pool).await;", "strict": true}`)
	if err != nil {
		t.Fatal(err)
	}
	if rep.OK || rep.Total != 1 || rep.Violations[0].File != "src/db.rs" || rep.Violations[0].Line != 1 {
		t.Fatalf("the spec's example: %+v", rep.Report)
	}
	text := rep.AgentText()
	for _, want := range []string{"❌ Living ADR Guard Failure: 1 violation(s) detected", "- [ADR-008-QuerySafety] src/db.rs Line 1: 'let res = sqlx::query(\"SELECT * FROM users\")", "'deny: SELECT * FROM'",
		"Fix: Name the columns of every query.", "Rule: [[decisions/adr-008-sql.md]]"} {
		if !strings.Contains(text, want) {
			t.Errorf("the report lacks %q:\n%s", want, text)
		}
	}
	for _, notDiff := range []string{"SELECT * FROM users", "please check my change", "+let x = 1"} {
		if _, err := ts.guard(t, `{"diff": "`+notDiff+`"}`); vault.ErrorCode(err) != vault.CodeInvalid {
			t.Errorf("%q: %v; want invalid_input (it cannot be read as a diff)", notDiff, err)
		}
	}
	// A plain diff without hunk headers, and a normal git diff, are read too.
	rep, err = ts.guard(t, `{"diff": "--- a/x.sql\n+++ b/x.sql\n+SELECT * FROM t;\n"}`)
	if err != nil || rep.Total != 1 {
		t.Fatalf("a plain diff without @@: %+v, %v", rep.Report, err)
	}
	rep, err = ts.guard(t, `{"diff": "diff --git a/y.sql b/y.sql\n--- a/y.sql\n+++ b/y.sql\n@@ -1,0 +3,1 @@\n+SELECT * FROM u;\n"}`)
	if err != nil || rep.Total != 1 || rep.Violations[0].Line != 3 {
		t.Fatalf("a git diff: %+v, %v", rep.Report, err)
	}
}

// Spec 003's schemas allow fields they do not name, and set no maximum on
// recall_memory's limit: neither may be refused.
func TestContract_VaultToolsTakeExtraFieldsAndAnyPositiveLimit(t *testing.T) {
	ts := newTestServer(t, "vault", releaseFiles)
	ctx := context.Background()
	if _, err := ts.recallMemory(ctx, []byte(`{"query":"release TTL","mode":"bm25","limit":500,"client_hint":{"x":[1,2]},"trace":"abc"}`)); err != nil {
		t.Fatalf("recall_memory with an extra field and limit 500: %v", err)
	}
	if _, err := ts.loadout(ctx, []byte(`{"session":"s1"}`)); err != nil {
		t.Fatalf("get_project_loadout with an extra field: %v", err)
	}
	if _, err := ts.recallMemory(ctx, []byte(`{"query":"x","limit":0}`)); vault.ErrorCode(err) != vault.CodeInvalid {
		t.Fatalf("limit 0: %v; want invalid_input", err)
	}
	if _, err := ts.recallMemory(ctx, []byte(`{"query":null}`)); vault.ErrorCode(err) != vault.CodeInvalid {
		t.Fatalf("a null query: %v; want invalid_input", err)
	}
	// The memory tool stays strict, as spec 000 says.
	ms := newTestServer(t, "memory", releaseFiles)
	if _, err := ms.mem(t, `{"op":{"load":{"ids":["mem_release"],"extra":1}}}`); vault.ErrorCode(err) != vault.CodeInvalid {
		t.Fatalf("memory with an unknown field: %v; want invalid_input", err)
	}
}

// flush_session's supersedes takes the names a wikilink takes: the file's
// base name, with or without [[ ]], any case.
func TestContract_FlushSupersedesByWikilinkName(t *testing.T) {
	files := map[string]string{
		"lore.yaml":              "projects:\n  api: {}\n",
		"adr/adr-012-redlock.md": "---\nid: mem_adr12\ntitle: ADR 012 Redlock\n---\n# ADR 012\n\nRedlock.\n",
	}
	for _, ref := range []string{`"adr-012-redlock"`, `["[[adr-012-redlock]]"]`, `["ADR-012-Redlock"]`} {
		ts := newTestServer(t, "vault", files)
		out, err := ts.flushSession(context.Background(), []byte(`{"title":"ADR 016 Lock service","category":"decision","content":"We use the lock service.","supersedes":`+ref+`}`))
		if err != nil {
			t.Fatalf("supersedes %s: %v", ref, err)
		}
		if got := out.(textResult).Data.(map[string]any)["superseded"]; len(got.([]string)) != 1 || got.([]string)[0] != "mem_adr12" {
			t.Fatalf("supersedes %s: %v", ref, got)
		}
	}
}

// get_project_loadout has the spec's root line and recent-log section, and
// stays under 300 tokens.
func TestContract_LoadoutHasRootAndRecentLogs(t *testing.T) {
	files := map[string]string{
		"lore.yaml":                      "projects:\n  api: {}\n",
		"LORE.md":                        "# Guidelines\n",
		"projects/api/README.md":         "---\ntier: L1\ndescription: The public API.\n---\n# API\n",
		"decisions/0001-sqlite.md":       "---\ntier: L3\ndescription: The index is SQLite.\n---\n# SQLite\n",
		"logs/2026-10-08-retry-storm.md": "---\ndescription: Fixed the webhook retry storm.\n---\n# Retry storm\n",
		"logs/2026-09-01-older.md":       "# Older\n",
		"logs/2026-11-20-superseded.md":  "---\nstatus: superseded\n---\n# Old log\n",
	}
	ts := newTestServer(t, "vault", files)
	out, err := ts.loadout(context.Background(), []byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	text := out.(textResult).Text
	for _, want := range []string{"- Root: `projects/api/README.md`", "## Recent L2 Logs", "- 2026-10-08: Fixed the webhook retry storm.", "- 2026-09-01: Older"} {
		if !strings.Contains(text, want) {
			t.Errorf("the loadout lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "superseded") || strings.Index(text, "2026-10-08") > strings.Index(text, "2026-09-01") {
		t.Errorf("recent logs: newest first, superseded ones left out:\n%s", text)
	}
	if n := vault.EstimateTokens(text); n >= 300 {
		t.Errorf("the loadout is %d tokens", n)
	}
}

// flush_session follows the vault's own folders and naming style.
func TestContract_FlushFollowsTheVaultsStyle(t *testing.T) {
	files := map[string]string{
		"lore.yaml":                      "projects:\n  api: {}\n",
		"adr/adr-001-idempotency.md":     "# ADR 001\n",
		"adr/adr-012-redlock.md":         "# ADR 012\n",
		"logs/2026-10-08-retry-storm.md": "# Retry storm\n",
	}
	ts := newTestServer(t, "vault", files)
	ts.opt.Now = func() time.Time { return time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC) }
	for _, c := range []struct{ args, want string }{
		{`{"title":"ADR 016: Lock service","category":"decision","content":"x"}`, "adr/adr-016-lock-service.md"},
		{`{"title":"Refund alert tuned","category":"log","content":"x"}`, "logs/2026-11-30-refund-alert-tuned.md"},
		{`{"title":"Another decision","category":"decision","content":"x"}`, "adr/adr-017-another-decision.md"},
	} {
		out, err := ts.flushSession(context.Background(), []byte(c.args))
		if err != nil {
			t.Fatal(err)
		}
		if got := out.(textResult).Data.(map[string]any)["path"]; got != c.want {
			t.Errorf("%s: path %v, want %s", c.args, got, c.want)
		}
	}
}

// While sections lack vectors, recall_memory says so, and a vector search
// that finds nothing shows the lexical matches instead of nothing.
func TestContract_RecallSaysWhenVectorsAreMissing(t *testing.T) {
	ts := newTestServer(t, "vault", releaseFiles)
	ctx := context.Background()
	if err := ts.ix.(*retrieve.Memory).Index.Vectors().Use(ctx, &embed.HashEmbedder{Dims: 64}); err != nil {
		t.Fatal(err)
	}
	out, err := ts.recallMemory(ctx, []byte(`{"query":"the TTL is 30 seconds and the budget is 3","mode":"vector"}`))
	if err != nil {
		t.Fatal(err)
	}
	r := out.(textResult)
	if !strings.Contains(r.Text, "howto/release.md") || !strings.Contains(r.Text, "no vector yet") || r.Data.(map[string]any)["vectors_pending"].(int) == 0 {
		t.Fatalf("vector mode before embedding:\n%s", r.Text)
	}
	if _, err := ts.ix.(*retrieve.Memory).Index.Vectors().Embed(ctx, nil); err != nil {
		t.Fatal(err)
	}
	out, err = ts.recallMemory(ctx, []byte(`{"query":"the TTL is 30 seconds and the budget is 3","mode":"vector"}`))
	if err != nil {
		t.Fatal(err)
	}
	if r := out.(textResult); strings.Contains(r.Text, "no vector yet") || !strings.Contains(r.Text, "howto/release.md") {
		t.Fatalf("vector mode after embedding:\n%s", r.Text)
	}
}

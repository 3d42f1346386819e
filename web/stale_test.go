package web

import (
	"context"
	"strings"
	"testing"

	"github.com/lore-memory/lore/internal/testvault"
	"github.com/lore-memory/lore/stale"
	"github.com/lore-memory/lore/vault"
)

// The "may be stale" view's data: with no code repository bound it says
// so; bound to one where the cited function was renamed, it lists the note
// at its section with the commit and the edit, and the check changed no
// note.
func TestAPI_Stale(t *testing.T) {
	note := "---\nid: mem_retry\n---\n# Retries\n\n## Backoff\n\n`backoffFor` in `sync/retry.go` caps the wait.\n"
	a := newAPIServerWith(t, map[string]string{"notes/retry.md": note})
	if code, out := a.call("GET", "/api/stale", ""); code != 200 || out["bound"] != false {
		t.Fatalf("unbound: %d %v", code, out)
	}
	// The code had backoffFor before the note was written (the vault's
	// commit is now), and lost it after.
	code := t.TempDir()
	testvault.Git(t, code, "init", "-q", "-b", "main")
	testvault.Write(t, code, "sync/retry.go", "package sync\n\nfunc backoffFor(n int) int { return n }\n")
	testvault.Git(t, code, "add", "-A")
	testvault.GitAt(t, code, "2020-01-02", "commit", "-qm", "retries")
	testvault.Write(t, code, "sync/retry.go", "package sync\n\nfunc delayFor(n int) int { return n }\n")
	testvault.GitAt(t, code, "2099-01-02", "commit", "-qam", "rename")
	a.checkAgainst(code)
	status, out := a.call("GET", "/api/stale", "")
	fs, _ := out["findings"].([]any)
	if status != 200 || out["bound"] != true || len(fs) != 1 {
		t.Fatalf("bound: %d %v", status, out)
	}
	f := fs[0].(map[string]any)
	if f["note"] != "notes/retry.md" || f["cites"] != "backoffFor" || f["problem"] != vault.ProblemIdentifier ||
		!strings.HasPrefix(toJSON(f["heading_path"]), `["Retries","Backoff"]`) || !strings.Contains(f["edit"].(string), "no longer in sync/retry.go") || f["commit"] == "" {
		t.Fatalf("finding: %v", f)
	}
	if st := testvault.Git(t, a.root, "status", "--porcelain"); st != "" {
		t.Fatalf("the vault changed:\n%s", st)
	}
}

// The one fix the view makes: a renamed path's citation pointed at its new
// name, as a Draft the person reviews (the note itself is not touched). A
// request that names a citation which is not renamed is refused.
func TestAPI_StaleFixIsADraft(t *testing.T) {
	note := "---\nid: mem_retry\n---\n# Retries\n\n## Backoff\n\nThe cap lives in `sync/retry.go`.\n"
	a := newAPIServerWith(t, map[string]string{"notes/retry.md": note})
	code := t.TempDir()
	testvault.Git(t, code, "init", "-q", "-b", "main")
	testvault.Write(t, code, "sync/retry.go", "package sync\n\nfunc backoffFor(n int) int { return n }\n")
	testvault.Git(t, code, "add", "-A")
	testvault.GitAt(t, code, "2020-01-02", "commit", "-qm", "retries")
	testvault.Git(t, code, "mv", "sync/retry.go", "sync/backoff.go")
	testvault.GitAt(t, code, "2099-01-02", "commit", "-qm", "rename")
	a.checkAgainst(code)
	if status, out := a.call("POST", "/api/stale/fix", `{"note": "notes/retry.md", "cites": "sync/queue.go"}`); status != 404 {
		t.Fatalf("a citation that is not renamed: %d %v", status, out)
	}
	status, out := a.call("POST", "/api/stale/fix", `{"note": "notes/retry.md", "cites": "sync/retry.go"}`)
	id, _ := out["draft_id"].(string)
	if status != 200 || id == "" {
		t.Fatalf("fix: %d %v", status, out)
	}
	patch, _, err := a.store.Diff(context.Background(), id)
	if err != nil || !strings.Contains(patch, "-The cap lives in `sync/retry.go`.") || !strings.Contains(patch, "+The cap lives in `sync/backoff.go`.") {
		t.Fatalf("the Draft's diff: %v\n%s", err, patch)
	}
	if st := testvault.Git(t, a.root, "status", "--porcelain"); st != "" {
		t.Fatalf("the fix touched the vault's tree:\n%s", st)
	}
}

// checkAgainst binds the server's "may be stale" view to the code
// repository at code, as lore serve does for a bound workspace.
func (a *apiServer) checkAgainst(code string) {
	a.t.Helper()
	c, err := stale.New(context.Background(), code, a.root, "")
	if err != nil {
		a.t.Fatal(err)
	}
	a.srv.UseStale(func(ctx context.Context, project string) (stale.Report, error) {
		notes, err := a.srv.ix.(interface {
			Under(context.Context, string, string) ([]vault.Loaded, error)
		}).Under(ctx, "", project)
		if err != nil {
			return stale.Report{}, err
		}
		return c.Report(ctx, notes)
	}, a.store)
	a.h = a.srv.Handler()
}

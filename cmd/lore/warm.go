package main

import (
	"context"
	"fmt"
	"os"

	"github.com/lore-memory/lore/retrieve"
	"github.com/lore-memory/lore/vault"
	"github.com/lore-memory/lore/warm"
)

// The warm path (package warm): when `lore mcp --http` runs for the bound
// vault, `lore search`, `lore activate` and the prompt hook ask it instead
// of opening the index themselves. LORE_NO_SERVER=1 makes them always do
// the work themselves.

// askWarm sends one request to the bound vault's warm server: warm.Ask,
// unless LORE_NO_SERVER is set (warm.ErrNoServer then).
func askWarm(ctx context.Context, e *env, b vault.Binding, path string, in warm.Request) (warm.Reply, error) {
	if e.getenv("LORE_NO_SERVER") != "" {
		return warm.Reply{}, warm.ErrNoServer
	}
	v, err := vault.Open(b.Vault) // cheap: it finds the git directory and reads lore.yaml
	if err != nil {
		return warm.Reply{}, warm.ErrNoServer
	}
	data := v.DataDir()
	v.Close()
	return warm.Ask(ctx, data, path, in)
}

// warmBackend answers a warm server's requests from the served vault's
// index (warm.Backend).
type warmBackend struct{ ix *retrieve.Memory }

func (w warmBackend) Search(ctx context.Context, q string, opt vault.SearchOptions) ([]vault.Hit, error) {
	return w.ix.Search(ctx, q, opt)
}

func (w warmBackend) Activate(ctx context.Context, req vault.ActivateRequest, workspace string) (*vault.Activation, error) {
	req.Code = codeCheck(ctx, os.Getenv, workspace, w.ix.Vault())
	defer flushCheckers()
	return w.ix.Activate(ctx, req)
}

func (w warmBackend) Unreadable(ctx context.Context) (int, error) {
	st, err := w.ix.Index.Stats(ctx)
	if err != nil {
		return 0, err
	}
	return len(st.Problems), nil
}

func warmFooter(e *env, unreadable int) {
	if isTerminal(e.stdout) && unreadable > 0 {
		fmt.Fprintf(e.stdout, "(%d file(s) could not be read as notes; `lore doctor` lists them and why)\n", unreadable)
	}
}

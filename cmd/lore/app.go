package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/lore-memory/lore/drafts"
	"github.com/lore-memory/lore/embed"
	"github.com/lore-memory/lore/outbox"
	"github.com/lore-memory/lore/retrieve"
	"github.com/lore-memory/lore/vault"
)

// An app is one vault opened for a command: the binding it was opened for
// (its vault and project), the index with its retrieval pipeline (mem),
// and the Draft store with its outbox. Every command that reads or writes
// memory opens one — env.open for the invocation's binding, env.openFor
// for another (lore hook's client folder), openApp for a folder no binding
// names (lore mcp --also, the guard's hook install) — and closes it; eval,
// bench and activity, which need an index and no store, use openIndexOf.
type app struct {
	b     vault.Binding
	mem   *retrieve.Memory
	store *drafts.Store
}

// how says what an app attaches beyond its index and store.
type how uint8

const (
	// withModels attaches the embedding model, reranker and fusion the
	// vault's lore.yaml configures.
	withModels how = 1 << iota
	// forQuery is a one-shot command that only queries and then exits
	// (lore search, activate and load, without a warm server): its
	// collector runs late (memlimit.go) and its connections map the index
	// file (fts/connect.go).
	forQuery
)

// open opens the vault of this invocation's binding.
func (e *env) open(ctx context.Context, h how) (*app, error) {
	if h&forQuery != 0 {
		collectLate(e.getenv)
	}
	b, err := e.binding()
	if err != nil {
		return nil, err
	}
	return e.openFor(ctx, b, h)
}

// openFor opens the vault of binding b; an index it can only read is
// noted on stderr.
func (e *env) openFor(ctx context.Context, b vault.Binding, h how) (*app, error) {
	a, err := openApp(ctx, b.Vault, h, func(why string) { fmt.Fprintln(e.stderr, "lore: note:", why) })
	if err != nil {
		return nil, err
	}
	a.b = b
	return a, nil
}

// openApp opens the vault at dir, its index and its Draft store (the
// binding it holds names only the vault). readOnly, when not nil, hears
// why the index can only be read.
func openApp(ctx context.Context, dir string, h how, readOnly func(why string)) (a *app, err error) {
	v, err := vault.Open(dir)
	if err != nil {
		return nil, err
	}
	mem, err := openIndexOf(ctx, v)
	if err != nil {
		v.Close()
		return nil, err
	}
	a = &app{b: vault.Binding{Vault: dir}, mem: mem}
	defer func() {
		if err != nil {
			a.Close()
		}
	}()
	if why := mem.Index.ReadOnly(); why != "" && readOnly != nil {
		readOnly(why)
	}
	out, err := outbox.Open(ctx, filepath.Join(v.DataDir(), "outbox.db"))
	if err != nil {
		return nil, err
	}
	if a.store, err = drafts.Open(ctx, mem.Index, out); err != nil {
		out.Close()
		return nil, err
	}
	if h&withModels != 0 {
		if err := useModels(ctx, mem); err != nil {
			return nil, err
		}
	}
	if h&forQuery != 0 {
		mem.Index.Resident().Map(ctx)
	}
	return a, nil
}

// Close closes the store, the index and the vault.
func (a *app) Close() {
	if a.store != nil {
		a.store.Close()
	}
	v := a.mem.Vault()
	a.mem.Close()
	v.Close()
}

// openIndexOf opens v's index with its retrieval pipeline, the index telling
// the process's collector of its bulk refreshes (bulkgc.go). Every command
// opens its index here.
func openIndexOf(ctx context.Context, v *vault.Vault) (*retrieve.Memory, error) {
	m, err := retrieve.Open(ctx, v)
	if err != nil {
		return nil, err
	}
	m.Index.UseBulkMemory(bulkGC)
	return m, nil
}

// useModels attaches the embedding model, reranker and fusion the vault's
// lore.yaml configures.
func useModels(ctx context.Context, ix *retrieve.Memory) error {
	cfg := ix.Vault().Config
	dir, err := embed.DefaultModelDir()
	if err != nil {
		return err
	}
	em, err := embed.FromConfig(cfg.Embedding, dir)
	if err == nil {
		err = ix.Index.Vectors().Use(ctx, em)
	}
	if err != nil {
		return vault.Errorf(vault.CodeConfig, "lore.yaml embedding: %v", err)
	}
	rr, err := embed.RerankerFromConfig(cfg.Rerank)
	if err != nil {
		return vault.Errorf(vault.CodeConfig, "lore.yaml rerank: %v", err)
	}
	ix.Pipeline.UseReranker(rr)
	return ix.Pipeline.UseFusion(cfg.Retrieval)
}

package warm

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/lore-memory/lore/vault"
)

// Backend is what a warm server answers from: the served vault's index
// and pipeline.
type Backend interface {
	Search(ctx context.Context, q string, opt vault.SearchOptions) ([]vault.Hit, error)
	// Activate activates, checking citations of code against the asker's
	// workspace (its repository; "" for none).
	Activate(ctx context.Context, req vault.ActivateRequest, workspace string) (*vault.Activation, error)
	// Unreadable counts the files the index could not read as notes.
	Unreadable(ctx context.Context) (int, error)
}

// Handler serves SearchPath and ActivatePath from b. It trusts its
// caller: the server puts it behind the bearer token.
func Handler(b Backend) http.Handler {
	mux := http.NewServeMux()
	reply := func(w http.ResponseWriter, r *http.Request, do func(ctx context.Context, in Request) (Reply, error)) {
		var in Request
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			http.Error(w, "bad request: "+err.Error(), http.StatusBadRequest)
			return
		}
		out, err := do(r.Context(), in)
		if err != nil {
			out = Reply{}
			out.Error = &struct {
				Code    string `json:"code"`
				Message string `json:"message"`
			}{vault.ErrorCode(err), vault.Message(err)}
		}
		if in.Unreadable {
			if n, err := b.Unreadable(r.Context()); err == nil {
				out.Unreadable = n
			}
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(out)
	}
	mux.HandleFunc("POST "+SearchPath, func(w http.ResponseWriter, r *http.Request) {
		reply(w, r, func(ctx context.Context, in Request) (Reply, error) {
			hits, err := b.Search(ctx, in.Query, vault.SearchOptions{Limit: in.Limit, Project: in.Project})
			return Reply{Hits: hits}, err
		})
	})
	mux.HandleFunc("POST "+ActivatePath, func(w http.ResponseWriter, r *http.Request) {
		reply(w, r, func(ctx context.Context, in Request) (Reply, error) {
			act, err := b.Activate(ctx, in.ActivateRequest(), in.Workspace)
			return Reply{Activation: act}, err
		})
	})
	return mux
}

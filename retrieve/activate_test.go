package retrieve

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/lore-memory/lore/embed"
	"github.com/lore-memory/lore/internal/golden"
	"github.com/lore-memory/lore/internal/testvault"
	"github.com/lore-memory/lore/vault"
)

// testEmbedder is the hash model with what the tests watch: how many texts
// it embedded, and whether it answers as a model still loading.
type testEmbedder struct {
	embed.HashEmbedder
	notReady atomic.Bool
	calls    atomic.Int64
}

func (e *testEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if e.notReady.Load() {
		return nil, &embed.NotReadyError{Model: e.Name(), Reason: "loading", Progress: 0.5}
	}
	e.calls.Add(int64(len(texts)))
	return e.HashEmbedder.Embed(ctx, texts)
}

func activateVault(t *testing.T, files map[string]string) (*testVault, *testEmbedder) {
	t.Helper()
	tv := newTestVault(t, files)
	e := &testEmbedder{HashEmbedder: embed.HashEmbedder{Dims: 64}}
	if err := tv.Ix.Index.Vectors().Use(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	if _, err := tv.Ix.Index.Refresh(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := tv.Ix.Index.Vectors().Embed(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	return tv, e
}

func (tv *testVault) activate(q, state string) *vault.Activation {
	tv.T.Helper()
	act, err := tv.Ix.Activate(context.Background(), vault.ActivateRequest{Query: q, State: state})
	if err != nil {
		tv.T.Fatalf("Activate(%q): %v", q, err)
	}
	return act
}

func actions(act *vault.Activation) map[string]string {
	out := map[string]string{}
	for _, f := range act.Fragments {
		out[f.UnitKey] = f.Action
		if (f.Action == "reuse") != (f.Content == "") {
			panic("reuse must carry no content, add and replace must")
		}
	}
	return out
}

var deltaNotes = map[string]string{
	"a.md": "---\nid: mem_a\n---\n# Alpha\n\n## Sync\n\nsync retries back off exponentially\n\n## Other\n\nunrelated words here\n",
	"b.md": "---\nid: mem_b\n---\n# Beta\n\n## Sync\n\nsync pushes draft branches\n",
	"c.md": "---\nid: mem_c\n---\n# Gamma\n\n## Cache\n\ncache invalidation after writes\n",
}

func TestActivate_Deltas(t *testing.T) {
	tv, _ := activateVault(t, deltaNotes)
	first := tv.activate("sync", "")
	got := actions(first)
	if got["mem_a/sync/0/0"] != "add" || got["mem_b/sync/0/0"] != "add" {
		t.Fatalf("first call: %v, want adds", got)
	}
	if first.Profile != Profile || !strings.HasPrefix(first.IndexRevision, "search_") || first.RunID == "" {
		t.Errorf("response header: %+v", first)
	}

	// The same query with the state: everything held is reused, no bodies.
	second := tv.activate("sync", first.NextState)
	for k, a := range actions(second) {
		if a != "reuse" {
			t.Errorf("second call: %s is %s, want reuse", k, a)
		}
	}

	// A person edits one delivered section: it comes back as replace.
	tv.Write("a.md", strings.Replace(deltaNotes["a.md"], "exponentially", "exponentially up to five minutes", 1))
	third := tv.activate("sync", second.NextState)
	if a := actions(third)["mem_a/sync/0/0"]; a != "replace" {
		t.Errorf("edited unit: %s, want replace", a)
	}
	if a := actions(third)["mem_b/sync/0/0"]; a != "reuse" {
		t.Errorf("untouched unit: %s, want reuse", a)
	}

	// Another query: held units that were not selected are not removed.
	other := tv.activate("cache invalidation", third.NextState)
	if len(other.Removed) != 0 {
		t.Errorf("unselected units were removed: %v", other.Removed)
	}

	// A delivered note is deleted: its units are removed, and only they.
	os.Remove(filepath.Join(tv.Root, "b.md"))
	after := tv.activate("cache invalidation", other.NextState)
	if strings.Join(after.Removed, ",") != "mem_b/sync/0/0" {
		t.Errorf("removed = %v, want exactly mem_b's unit", after.Removed)
	}
	// The text an agent reads names it by where it was.
	if len(after.RemovedLabels) != 1 || after.RemovedLabels[0] != "b.md › Beta › Sync" {
		t.Errorf("removed labels = %q, want b.md › Beta › Sync", after.RemovedLabels)
	}
	// …and are forgotten by the next state.
	if again := tv.activate("cache invalidation", after.NextState); len(again.Removed) != 0 {
		t.Errorf("removed units reported twice: %v", again.Removed)
	}
}

func TestActivate_InvalidStates(t *testing.T) {
	tv, _ := activateVault(t, deltaNotes)
	good := tv.activate("sync", "").NextState
	otherVault, _ := activateVault(t, deltaNotes)
	foreign := otherVault.activate("sync", "").NextState
	firstFormat := encodeState(mustKey(t, tv.Ix), []stateEntry{{key: "mem_a/sync/0/0"}})
	flip := []byte(good)
	flip[len(flip)/2] ^= 1
	for name, state := range map[string]string{
		"garbage":       "hello",
		"truncated":     good[:len(good)-5],
		"no tag":        good[:len(stateRefPrefix)+22], // the id alone
		"no signature":  strings.SplitN(firstFormat, ".", 3)[0] + "." + strings.SplitN(firstFormat, ".", 3)[1],
		"hand-edited":   string(flip),
		"another vault": foreign,
		"too long":      statePrefix + strings.Repeat("A", MaxStateBytes),
	} {
		_, err := tv.Ix.Activate(context.Background(), vault.ActivateRequest{Query: "sync", State: state})
		if vault.ErrorCode(err) != vault.CodeInvalidState {
			t.Errorf("%s: err = %v, want invalid_activation_state", name, err)
		}
	}
	if _, err := tv.Ix.Activate(context.Background(), vault.ActivateRequest{Query: " \n "}); vault.ErrorCode(err) != vault.CodeInvalid {
		t.Errorf("empty query: err = %v, want invalid_input", err)
	}
}

func TestActivate_StateStaysBounded(t *testing.T) {
	files := map[string]string{}
	for i := 0; i < 150; i++ {
		files[filepath.Join("n", string(rune('a'+i%26))+strings.Repeat("x", i/26)+".md")] = "# N\n\n## One\n\nshared topic words\n\n## Two\n\nshared topic more\n"
	}
	tv, _ := activateVault(t, files)
	state := ""
	for i := 0; i < 40; i++ {
		act, err := tv.Ix.Activate(context.Background(), vault.ActivateRequest{Query: "shared topic", State: state,
			Limits: vault.Limits{MaxFragments: 12, PerResource: 2, TokenBudget: 100000}})
		if err != nil {
			t.Fatal(err)
		}
		// Different resources get picked as held ones are reused; the state
		// must stay within its bounds anyway.
		state = act.NextState
		if len(state) > MaxStateBytes {
			t.Fatalf("state grew to %d bytes", len(state))
		}
	}
	entries, err := tv.Ix.Pipeline.loadState(context.Background(), mustKey(t, tv.Ix), state)
	if err != nil || len(entries) > MaxStateUnits {
		t.Errorf("state holds %d entries, %v", len(entries), err)
	}
}

func mustKey(t *testing.T, ix *Memory) []byte {
	k, err := ix.Pipeline.stateKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestActivate_AssemblyLimits(t *testing.T) {
	long := "# Long\n\n"
	for i := 0; i < 6; i++ {
		long += fmt.Sprintf("## Part %d\n\nbudget words %s\n\n", i, strings.Repeat("filler ", 60))
	}
	tv, _ := activateVault(t, map[string]string{"long.md": long, "short.md": "# Short\n\nbudget words\n", "x.md": "# X\n\nbudget words too\n"})
	act, err := tv.Ix.Activate(context.Background(), vault.ActivateRequest{Query: "budget words", Limits: vault.Limits{MaxFragments: 12, PerResource: 2, TokenBudget: 120}})
	if err != nil {
		t.Fatal(err)
	}
	per := map[string]int{}
	tokens := 0
	for _, f := range act.Fragments {
		per[f.ResourceID]++
		tokens += vault.EstimateTokens(f.Content)
	}
	for id, n := range per {
		if n > 2 {
			t.Errorf("%s has %d fragments, over the per-resource cap", id, n)
		}
	}
	if tokens > 120 {
		t.Errorf("delivered %d tokens, over the 120 budget", tokens)
	}
	if len(act.Fragments) < 2 {
		t.Errorf("budget left too little: %d fragments", len(act.Fragments))
	}
	rec := tv.run(act.RunID)
	cuts := map[string]bool{}
	for _, c := range rec.Ranked {
		cuts[c.Outcome] = true
	}
	if !cuts["cut:budget"] && !cuts["cut:per_resource"] {
		t.Errorf("run records no cuts: %+v", rec.Ranked)
	}
	act, _ = tv.Ix.Activate(context.Background(), vault.ActivateRequest{Query: "budget words", Limits: vault.Limits{MaxFragments: 1, PerResource: 2, TokenBudget: 9999}})
	if len(act.Fragments) != 1 {
		t.Errorf("max fragments 1: got %d", len(act.Fragments))
	}
}

func TestActivate_SupersededRanksBelowSuccessor(t *testing.T) {
	tv, _ := activateVault(t, map[string]string{
		"old.md": "---\nid: mem_old\nstatus: superseded\nsuperseded_by: mem_new\n---\n# Sync policy\n\nsync polls the remote every thirty seconds sync sync\n",
		"new.md": "---\nid: mem_new\nsupersedes: mem_old\n---\n# Sync on demand\n\nsync runs on demand\n",
	})
	act := tv.activate("sync polls remote", "")
	if len(act.Fragments) < 2 || act.Fragments[0].ResourceID != "mem_new" {
		t.Errorf("fragments %v: want the successor first", keys(act))
	}
}

func TestActivate_ModelNotReadyIsAnAnswer(t *testing.T) {
	tv, e := activateVault(t, deltaNotes)
	e.notReady.Store(true)
	_, err := tv.Ix.Activate(context.Background(), vault.ActivateRequest{Query: "sync"})
	if vault.ErrorCode(err) != vault.CodeModelPreparing || !strings.Contains(err.Error(), "50%") {
		t.Errorf("err = %v, want search_model_preparing with progress", err)
	}
}

func TestActivate_UnembeddedUnitsStillCompeteLexically(t *testing.T) {
	tv, e := activateVault(t, deltaNotes)
	tv.Write("d.md", "# Delta\n\nzebra crossing\n")
	before := e.calls.Load()
	act := tv.activate("zebra", "")
	if len(act.Fragments) == 0 || act.Fragments[0].Path != "d.md" {
		t.Errorf("new, unembedded note not found lexically: %v", keys(act))
	}
	if e.calls.Load() != before+1 {
		t.Errorf("activate embedded %d texts; it must embed only the query", e.calls.Load()-before)
	}
	n, err := tv.Ix.Index.Vectors().Embed(context.Background(), nil)
	if err != nil || n != 1 {
		t.Errorf("EmbedPending embedded %d, %v; want the one new unit", n, err)
	}
	if n, _ := tv.Ix.Index.Vectors().Embed(context.Background(), nil); n != 0 {
		t.Errorf("unchanged units embedded again: %d", n)
	}
}

func TestActivate_ChangingModelReembeds(t *testing.T) {
	tv, _ := activateVault(t, deltaNotes)
	if err := tv.Ix.Index.Vectors().Use(context.Background(), &embed.HashEmbedder{Dims: 32}); err != nil {
		t.Fatal(err)
	}
	n, err := tv.Ix.PendingEmbeddings(context.Background())
	if err != nil || n == 0 {
		t.Errorf("after a model change %d texts are pending, %v; want all", n, err)
	}
}

func TestActivate_RunRecordsEverything(t *testing.T) {
	tv, _ := activateVault(t, deltaNotes)
	act := tv.activate("  sync retries  ", "")
	rec := tv.run(act.RunID)
	if rec.Query != "sync retries" || rec.TotalUS <= 0 || len(rec.Delivered) != len(act.Fragments) {
		t.Fatalf("run record: %+v", rec)
	}
	for _, stage := range []string{"refresh", "bm25", "embed_query", "vector", "fuse", "notes", "sections", "assemble"} {
		if _, ok := rec.TimingsUS[stage]; !ok {
			t.Errorf("no timing for %s", stage)
		}
	}
	d := rec.Delivered[0]
	if d.Content == "" || d.End <= d.Start {
		t.Errorf("delivered record lacks its text or range: %+v", d)
	}
	// The note changes; the run still shows what was delivered.
	tv.Write("a.md", "# Rewritten\n")
	tv.Write("b.md", "# Rewritten\n")
	if again := tv.run(act.RunID); again.Delivered[0].Content != d.Content {
		t.Errorf("run changed after the note did")
	}
	runs, err := tv.Ix.Pipeline.Runs(context.Background(), 10)
	if err != nil || len(runs) != 1 || runs[0].RunID != act.RunID {
		t.Errorf("Runs = %+v, %v", runs, err)
	}
	if _, err := tv.Ix.Run(context.Background(), "run_missing"); vault.ErrorCode(err) != vault.CodeNotFound {
		t.Errorf("missing run: %v", err)
	}
}

// TestActivate_Golden pins the whole response for the demo vault (the
// next_state and run_id, which are signed and random, are blanked).
func TestActivate_Golden(t *testing.T) {
	tv, _ := activateVault(t, testvault.ReadFixture(t, "../testdata/demo-vault"))
	for name, q := range map[string]string{
		"release": "how do we ship a new release",
		"cjk":     "并发控制",
	} {
		act := tv.activate(q, "")
		act.NextState, act.RunID = "(signed)", "(random)"
		got, _ := json.MarshalIndent(act, "", "  ")
		golden.Check(t, "activate-"+name+".json", string(got)+"\n")
	}
}

func (tv *testVault) run(id string) runRecord {
	tv.T.Helper()
	raw, err := tv.Ix.Run(context.Background(), id)
	if err != nil {
		tv.T.Fatal(err)
	}
	var rec runRecord
	if err := json.Unmarshal(raw, &rec); err != nil {
		tv.T.Fatal(err)
	}
	return rec
}

func keys(act *vault.Activation) []string {
	var out []string
	for _, f := range act.Fragments {
		out = append(out, f.UnitKey)
	}
	return out
}

func TestActivate_FusionChoices(t *testing.T) {
	tv, _ := activateVault(t, deltaNotes)
	for _, f := range []string{"score", "rrf"} {
		if err := tv.Ix.Pipeline.UseFusion(vault.RetrievalConfig{Fusion: f}); err != nil {
			t.Fatal(err)
		}
		act := tv.activate("sync retries", "")
		if len(act.Fragments) == 0 || act.Fragments[0].UnitKey != "mem_a/sync/0/0" {
			t.Errorf("%s fusion: %v, want mem_a's sync section first", f, keys(act))
		}
	}
	if err := tv.Ix.Pipeline.UseFusion(vault.RetrievalConfig{Fusion: "magic"}); vault.ErrorCode(err) != vault.CodeConfig {
		t.Errorf("unknown fusion: %v", err)
	}
	for _, w := range []float64{-1, 11} {
		if err := tv.Ix.Pipeline.UseFusion(vault.RetrievalConfig{VectorWeight: w}); vault.ErrorCode(err) != vault.CodeConfig {
			t.Errorf("vector weight %v: %v; want invalid_config", w, err)
		}
	}
}

// TestActivate_RerankOrdersTheTop runs activate with an HTTP reranker served
// on loopback that prefers the note that pushes draft branches: its order
// wins over fusion's, and over the note stage's terms, which are shares of
// the fused scores, not of the reranker's: with the coverage term a share
// of the reranked top score (1,000 and more), the note that held both
// words of "sync retries" gained 400 and the reranker's choice came
// second.
func TestActivate_RerankOrdersTheTop(t *testing.T) {
	tv, _ := activateVault(t, deltaNotes)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Documents []string `json:"documents"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		var res []map[string]any
		for i, d := range req.Documents {
			score := 0.1
			if strings.Contains(d, "pushes") {
				score = 0.9
			}
			res = append(res, map[string]any{"index": i, "relevance_score": score})
		}
		json.NewEncoder(w).Encode(map[string]any{"results": res})
	}))
	defer srv.Close()
	rr, err := embed.NewHTTPReranker(embed.HTTPConfig{Endpoint: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	tv.Ix.Pipeline.UseReranker(rr)
	act := tv.activate("sync", "")
	if len(act.Fragments) == 0 || act.Fragments[0].UnitKey != "mem_b/sync/0/0" {
		t.Errorf("fragments %v: want the reranker's favourite first", keys(act))
	}
	rec := tv.run(act.RunID)
	if _, ok := rec.TimingsUS["rerank"]; !ok || rec.Ranked[0].Rerank != 0.9 {
		t.Errorf("run does not record the rerank stage: %+v", rec.Ranked[0])
	}
	act = tv.activate("sync retries", "")
	if len(act.Fragments) == 0 || act.Fragments[0].UnitKey != "mem_b/sync/0/0" {
		t.Errorf("sync retries: fragments %v: want the reranker's favourite first, whatever the notes' coverage", keys(act))
	}
	srv.Close()
	if _, err := tv.Ix.Activate(context.Background(), vault.ActivateRequest{Query: "sync"}); err == nil || !strings.Contains(err.Error(), srv.URL) {
		t.Errorf("reranker down: err = %v, want an error naming the endpoint", err)
	}
}

func TestStateKey_ConcurrentFirstUseAgrees(t *testing.T) {
	tv := newTestVault(t, map[string]string{"a.md": "# A\n"})
	keys := make(chan []byte, 8)
	for i := 0; i < 8; i++ {
		go func() {
			ix, err := Open(context.Background(), tv.V)
			if err != nil {
				keys <- nil
				return
			}
			defer ix.Close()
			k, _ := ix.Pipeline.stateKey()
			keys <- k
		}()
	}
	first := <-keys
	for i := 1; i < 8; i++ {
		if k := <-keys; len(k) != 32 || string(k) != string(first) {
			t.Fatalf("handles disagree on the state key (or got none)")
		}
	}
}

// Links between candidates resolve in every form a link takes (by title,
// id, path, path without .md, any case): each pair is found, and a link to
// a note that is not a candidate is not.
func TestLinkPairs_EveryFormOfLink(t *testing.T) {
	tv := newTestVault(t, map[string]string{
		"a.md":     "# Alpha walrus\n\nwalrus notes; see [[Bravo Walrus]].\n",
		"b.md":     "# Bravo Walrus\n\nwalrus bravo.\n",
		"c.md":     "---\nid: mem_charlie\n---\n# Charlie walrus\n\nwalrus charlie.\n",
		"d.md":     "# Delta walrus\n\nwalrus delta, about [c](c.md) and [[mem_charlie]].\n",
		"e.md":     "# Echo walrus\n\nwalrus echo, links to [[zulu]] only.\n",
		"f.md":     "# Foxtrot walrus\n\nwalrus foxtrot: [[sub/g]].\n",
		"sub/g.md": "# Golf walrus\n\nwalrus golf.\n",
		"zulu.md":  "# Zulu\n\nnothing about the animal.\n",
		"lower.md": "# Hotel walrus\n\nwalrus hotel, [[INDIA WALRUS]].\n",
		"india.md": "# India Walrus\n\nwalrus india.\n",
		"unrel.md": "# Juliet walrus\n\nwalrus juliet, no links.\n",
	})
	cs, err := tv.Ix.Pipeline.rank(context.Background(), "walrus", "lexical", "", 40, map[string]int64{})
	if err != nil {
		t.Fatal(err)
	}
	path := map[int64]string{}
	var rids []int64
	for _, c := range cs {
		if _, ok := path[c.RID]; !ok {
			path[c.RID] = c.Path
			rids = append(rids, c.RID)
		}
	}
	pairs, err := tv.Ix.Index.Lookups().LinkPairs(context.Background(), rids, "")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, p := range pairs {
		got[path[p[0]]+" → "+path[p[1]]] = true
	}
	want := map[string]bool{"a.md → b.md": true, "d.md → c.md": true, "f.md → sub/g.md": true, "lower.md → india.md": true}
	if len(got) != len(want) {
		t.Errorf("pairs %v, want %v", got, want)
	}
	for p := range want {
		if !got[p] {
			t.Errorf("missing %s (pairs %v)", p, got)
		}
	}
}

// The link bonus tells something on a linked vault: a note the best
// candidates link to gains, in proportion to their scores; notes that link
// to the top themselves (the tail's links to leaf.md, an index's links)
// gain nothing for it, and neither does a note with no link. Before, every
// candidate linked to any other candidate got the same bonus (40 of 40 on
// the Obsidian Hub).
func TestBoostLinks_OnlyLinksFromTheTopCount(t *testing.T) {
	files := map[string]string{
		"top.md":    "# Kiwi kiwi kiwi\n\nkiwi kiwi kiwi kiwi, see [[Answer]].\n",
		"answer.md": "# Answer\n\nthe kiwi answer.\n",
		"other.md":  "# Other\n\na kiwi note with no links.\n",
		"hub.md":    "# Index\n\nkiwi: [[Leaf]]\n",
		"leaf.md":   "# Leaf\n\nkiwi leaf.\n",
	}
	// Tail notes: each mentions kiwi once in a long text, and links to leaf.
	for i := 0; i < 8; i++ {
		files[fmt.Sprintf("tail%d.md", i)] = fmt.Sprintf("# Tail %d\n\n%s kiwi [[Leaf]]\n", i, strings.Repeat("filler words about other things ", 30))
	}
	tv := newTestVault(t, files)
	cs, err := tv.Ix.Pipeline.rank(context.Background(), "kiwi", "lexical", "", 40, map[string]int64{})
	if err != nil {
		t.Fatal(err)
	}
	bonus := map[string]float64{}
	for _, c := range cs {
		bonus[c.Path] = math.Max(bonus[c.Path], c.LinkBonus)
	}
	if bonus["answer.md"] <= 0 {
		t.Errorf("the note the top candidate links to gains nothing: %v", bonus)
	}
	if bonus["top.md"] != 0 {
		t.Errorf("the top note, linked from no one, gained %v", bonus["top.md"])
	}
	if bonus["other.md"] != 0 {
		t.Errorf("a note with no link gained %v", bonus["other.md"])
	}
	for i := 0; i < 8; i++ {
		if b := bonus[fmt.Sprintf("tail%d.md", i)]; b != 0 {
			t.Errorf("tail%d.md, which only links to others, gained %v", i, b)
		}
	}
	if bonus["leaf.md"] >= bonus["answer.md"] && bonus["leaf.md"] > 0 {
		t.Errorf("leaf.md (linked from a weaker note and the tail) gained %v, not less than answer.md's %v", bonus["leaf.md"], bonus["answer.md"])
	}
}

// A unit the caller holds that changed since it was delivered comes back as
// replace even when the new query would not select it: the agent must never
// keep stale text without being told.
func TestActivate_ChangedHeldUnitIsReplacedUnderAnotherQuery(t *testing.T) {
	tv, _ := activateVault(t, deltaNotes)
	first := tv.activate("sync", "")
	if actions(first)["mem_a/sync/0/0"] != "add" {
		t.Fatalf("first call: %v", actions(first))
	}
	tv.Write("a.md", strings.Replace(deltaNotes["a.md"], "exponentially", "exponentially up to five minutes", 1))
	other := tv.activate("cache invalidation", first.NextState)
	var got *vault.Fragment
	for i, f := range other.Fragments {
		if f.UnitKey == "mem_a/sync/0/0" {
			got = &other.Fragments[i]
		}
	}
	if got == nil || got.Action != "replace" || !strings.Contains(got.Content, "up to five minutes") {
		t.Fatalf("the changed held unit under another query: %+v (fragments %v)", got, actions(other))
	}
	if a := actions(other)["mem_b/sync/0/0"]; a != "" {
		t.Errorf("an unchanged held unit was sent again: %s", a)
	}
	// Held at its new hash now: the next call says nothing about it.
	again := tv.activate("cache invalidation", other.NextState)
	if a := actions(again)["mem_a/sync/0/0"]; a != "" || len(again.Removed) != 0 {
		t.Errorf("after the replace: %s, removed %v", a, again.Removed)
	}
}

// A superseded note arrives marked, and never above the note that
// supersedes it — also when the successor shares no word with the query (a
// mixed Chinese/English query that only the old note's words match), and
// when the old note is an exact match. Links are written Obsidian's way.
func TestActivate_SupersededIsMarkedAndNeverAboveItsSuccessor(t *testing.T) {
	tv, _ := activateVault(t, map[string]string{
		"adr/adr-004-single-redis.md": "---\nid: mem_adr4\ntitle: ADR 004 Stripe webhook 幂等性\nstatus: superseded\nsuperseded_by: \"[[adr-012-redlock]]\"\n---\n# ADR 004\n\nStripe webhook 幂等性 uses one Redis 分布式锁 per event id.\n",
		"adr/adr-012-redlock.md":      "---\nid: mem_adr12\ntitle: ADR 012 Redlock\nsupersedes: [adr-004-single-redis]\n---\n# ADR 012\n\nLocks are taken with Redlock across five nodes; a lost node no longer loses a lock.\n",
		"notes/other.md":              "# Other\n\nunrelated text about caching\n",
	})
	for _, q := range []string{"Stripe webhook 幂等性 分布式锁", "ADR 004 Stripe webhook 幂等性", "double refunds 幂等性 webhook"} {
		act := tv.activate(q, "")
		pos := map[string]int{}
		for i, f := range act.Fragments {
			if _, ok := pos[f.ResourceID]; !ok {
				pos[f.ResourceID] = i
			}
			if f.ResourceID == "mem_adr4" && f.Status != "superseded" {
				t.Errorf("%q: the superseded note arrives unmarked: %+v", q, f)
			}
			if f.ResourceID == "mem_adr12" && f.Status != "" {
				t.Errorf("%q: the active note is marked %q", q, f.Status)
			}
		}
		old, hasOld := pos["mem_adr4"]
		neu, hasNew := pos["mem_adr12"]
		if hasOld && (!hasNew || neu > old) {
			t.Errorf("%q: fragments %v: the superseded ADR-004 comes before ADR-012", q, keys(act))
		}
	}
}

package retrieve

import (
	"context"
	"strings"
	"testing"

	"github.com/lore-memory/lore/vault"
)

// brokenCitations is the code checker's port answered from a table: what
// each note's check found (the checker itself is tested on real git in
// package stale; here the pipeline's use of its answer is).
type brokenCitations map[string][]vault.CodeFinding

func (b brokenCitations) CheckNote(_ context.Context, path string, _ []byte) ([]vault.CodeFinding, error) {
	return b[path], nil
}

// Two notes equally relevant to the task: the one whose citations of code
// hold comes first, whatever order they ranked in; the other carries its
// findings (its section's only), and a note the check finds nothing in
// carries none. Without a checker nothing is marked.
func TestActivate_StaleMarkedAndAnEqualSectionThatHoldsFirst(t *testing.T) {
	// Not the same text (a copy is delivered once): as many words, as
	// relevant.
	note := func(name, n string) string {
		return "# Retries " + name + "\n\n## Backoff\n\nThe sync retry backoff caps the wait at " + n + " minutes.\n\n## Other\n\nunrelated words here\n"
	}
	tv, _ := activateVault(t, map[string]string{"a.md": note("A", "five"), "b.md": note("B", "nine")})
	q := "sync retry backoff cap"
	plain, err := tv.Ix.Activate(context.Background(), vault.ActivateRequest{Query: q})
	if err != nil || len(plain.Fragments) < 2 {
		t.Fatalf("%v %v", err, plain)
	}
	first := plain.Fragments[0].Path
	for _, f := range plain.Fragments {
		if len(f.Stale) > 0 {
			t.Fatalf("marked without a checker: %+v", f)
		}
	}
	finding := vault.CodeFinding{Cites: "backoffFor", Kind: "identifier", Problem: vault.ProblemIdentifier, HeadingPath: []string{"Retries " + strings.ToUpper(strings.TrimSuffix(first, ".md")), "Backoff"}, Line: 5}
	code := brokenCitations{first: {finding, {Cites: "x.go", Kind: "path", Problem: vault.ProblemRemoved, HeadingPath: []string{"Retries", "Other"}, Line: 9}}}
	act, err := tv.Ix.Activate(context.Background(), vault.ActivateRequest{Query: q, Code: code})
	if err != nil {
		t.Fatal(err)
	}
	if act.Fragments[0].Path == first || len(act.Fragments[0].Stale) != 0 {
		t.Fatalf("the section whose citations broke still first: %+v", act.Fragments)
	}
	for _, f := range act.Fragments {
		if f.Path == first && f.HeadingPath[len(f.HeadingPath)-1] == "Backoff" && (len(f.Stale) != 1 || f.Stale[0].Cites != "backoffFor") {
			t.Errorf("the broken section's findings: %+v", f.Stale)
		}
		if f.Path != first && len(f.Stale) != 0 {
			t.Errorf("a note that holds is marked: %+v", f)
		}
	}
}

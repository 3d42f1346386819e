package eval

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/lore-memory/lore/markdown"
	"github.com/lore-memory/lore/vault"
)

// Case is an evaluation case a person made from a retrieval run ("report
// inaccurate"): the query and the resources that should have come back.
// Cases are kept locally in <data dir>/cases.jsonl, never pushed.
type Case struct {
	ID        string   `json:"id"`
	CreatedAt string   `json:"created_at"`
	RunID     string   `json:"run_id,omitempty"`
	Project   string   `json:"project"`
	Query     string   `json:"query"`
	Expected  []string `json:"expected"` // resource ids (paths are resolved when the case is made)
	// Sections names the sections that should have come back, as section
	// keys (a unit key without its chunk: resource/slug/n); a case that
	// names them is scored by section, so the right note with the wrong
	// section is a miss.
	Sections []string `json:"expected_sections,omitempty"`
	Note     string   `json:"note,omitempty"`
}

// SectionKey is a unit key's section: the key without its chunk number
// ("mem_x/release/0/2" → "mem_x/release/0").
func SectionKey(unitKey string) string {
	if i := strings.LastIndexByte(unitKey, '/'); i > 0 {
		return unitKey[:i]
	}
	return unitKey
}

// Loader finds resources by id or path, as load does.
type Loader interface {
	Load(ctx context.Context, targets []string, project string) ([]vault.Loaded, error)
}

// UnitRanker ranks units for a query as activate does, best first.
type UnitRanker interface {
	Rank(ctx context.Context, q, mode, project string, depth int) ([]vault.RankedUnit, error)
}

// Cases is a vault's file of evaluation cases.
type Cases struct {
	Path string           // <data dir>/cases.jsonl
	Now  func() time.Time // the clock; time.Now when nil
}

// CasesOf returns the cases file of a vault.
func CasesOf(v *vault.Vault) Cases {
	return Cases{Path: filepath.Join(v.DataDir(), "cases.jsonl")}
}

var casesMu sync.Mutex

// Add checks and stores a case: the query must not be empty and every
// expected resource must exist in the project's memory (a path is stored
// as its resource id).
func (cs Cases) Add(ctx context.Context, mem Loader, c Case) (Case, error) {
	c.Query = strings.TrimSpace(c.Query)
	if c.Query == "" {
		return Case{}, vault.Errorf(vault.CodeInvalid, "a case needs the query")
	}
	if len(c.Expected) == 0 && len(c.Sections) == 0 {
		return Case{}, vault.Errorf(vault.CodeInvalid, "a case needs at least one resource or section that should have come back")
	}
	var ids, sections []string
	seen := map[string]bool{}
	addID := func(id string) {
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	for _, e := range c.Expected {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		// "path#Heading" names a section of a note.
		target, heading, hasHeading := strings.Cut(e, "#")
		rs, err := mem.Load(ctx, []string{strings.TrimSpace(target)}, c.Project)
		if err != nil {
			return Case{}, err
		}
		addID(rs[0].ResourceID)
		if hasHeading {
			key, err := sectionNamed(rs[0], strings.TrimSpace(heading))
			if err != nil {
				return Case{}, err
			}
			sections = append(sections, key)
		}
	}
	for _, k := range c.Sections {
		k = SectionKey(strings.TrimSpace(k))
		if k == "" {
			continue
		}
		id, _, _ := strings.Cut(k, "/")
		if _, err := mem.Load(ctx, []string{id}, c.Project); err != nil {
			return Case{}, err
		}
		addID(id)
		sections = append(sections, k)
	}
	c.Expected, c.Sections = ids, sections
	now := time.Now
	if cs.Now != nil {
		now = cs.Now
	}
	t := now().UTC()
	var b [6]byte
	rand.Read(b[:])
	c.CreatedAt = t.Format(time.RFC3339)
	c.ID = fmt.Sprintf("case_%012x%s", t.UnixMilli(), hex.EncodeToString(b[:]))
	line, err := json.Marshal(c)
	if err != nil {
		return Case{}, err
	}
	casesMu.Lock()
	defer casesMu.Unlock()
	if err := os.MkdirAll(filepath.Dir(cs.Path), 0o755); err != nil {
		return Case{}, err
	}
	f, err := os.OpenFile(cs.Path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return Case{}, err
	}
	defer f.Close()
	if _, err := f.Write(append(line, '\n')); err != nil {
		return Case{}, err
	}
	return c, f.Sync()
}

// sectionNamed returns the key of the section of r whose heading is
// heading (case and spacing aside).
func sectionNamed(r vault.Loaded, heading string) (string, error) {
	res, err := markdown.Parse(r.Path, []byte(r.Content))
	if err != nil {
		return "", err
	}
	for _, u := range res.Units {
		if n := len(u.HeadingPath); n > 0 && strings.EqualFold(strings.Join(strings.Fields(u.HeadingPath[n-1]), " "), strings.Join(strings.Fields(heading), " ")) {
			return SectionKey(u.Key), nil
		}
	}
	return "", vault.Errorf(vault.CodeNotFound, "%s has no section %q", r.Path, heading)
}

// All returns the stored cases (a damaged line is skipped).
func (cs Cases) All() ([]Case, error) {
	var out []Case
	err := readJSONL(cs.Path, func(b []byte) error {
		var c Case
		if json.Unmarshal(b, &c) == nil && c.Query != "" {
			out = append(out, c)
		}
		return nil
	})
	if os.IsNotExist(err) {
		return nil, nil
	}
	return out, err
}

// CaseMetrics are the figures of an evaluation over cases.
type CaseMetrics struct {
	Cases    int     `json:"cases"`
	Recall20 float64 `json:"recall_at_20"`
	NDCG10   float64 `json:"ndcg_at_10"`
	MRR      float64 `json:"mrr"`
}

// ScoreCases ranks each case's query as activate would (mode hybrid,
// lexical or vector) and scores the resources that come back.
func ScoreCases(ctx context.Context, r UnitRanker, cases []Case, mode string) (CaseMetrics, error) {
	var m CaseMetrics
	for _, c := range cases {
		ranked, err := r.Rank(ctx, c.Query, mode, c.Project, 40)
		if err != nil {
			return m, err
		}
		// By section when the case names sections, else by resource.
		key := func(u vault.RankedUnit) string { return u.ResourceID }
		expected := c.Expected
		if len(c.Sections) > 0 {
			key, expected = func(u vault.RankedUnit) string { return SectionKey(u.UnitKey) }, c.Sections
		}
		var res []string
		seen := map[string]bool{}
		for _, u := range ranked {
			if k := key(u); !seen[k] {
				seen[k] = true
				res = append(res, k)
			}
		}
		want := map[string]int{}
		for _, e := range expected {
			want[e] = 1
		}
		if len(want) == 0 {
			continue // a case that expects nothing cannot be scored (nor divide by zero)
		}
		ndcg, recall, rr := rankMetrics(res, want, 10, 20, 0)
		m.Recall20 += recall
		m.NDCG10 += ndcg
		m.MRR += rr
		m.Cases++
	}
	if m.Cases > 0 {
		k := float64(m.Cases)
		m.Recall20, m.NDCG10, m.MRR = m.Recall20/k, m.NDCG10/k, m.MRR/k
	}
	return m, nil
}

package vault

// The words of retrieval, as the edges (MCP, the web UI, the CLI, the
// journal, the activity view) exchange them: a resource as load returns it
// (Loaded), a search hit, an activation and its fragments, the assembly
// limits, a ranked unit and a recalled resource. The index (package fts) and the
// retrieval pipeline (package retrieve) produce them; nothing here knows how they are stored.

import (
	"fmt"
	"strconv"
	"strings"
)

// Loaded is a whole resource as load returns it.
type Loaded struct {
	ResourceID  string `json:"resource_id"`
	Scope       string `json:"scope"`
	Kind        string `json:"kind"`
	Path        string `json:"path"`
	Title       string `json:"title"`
	Description string `json:"description"`
	ContentHash string `json:"content_hash"`
	Content     string `json:"content"`
	// DraftID names the project's open Draft this version comes from; empty
	// for the vault's working tree.
	DraftID string `json:"draft_id,omitempty"`
}

// Hit is one unit found by a search.
type Hit struct {
	UnitKey     string   `json:"unit_key"`
	ResourceID  string   `json:"resource_id"`
	Path        string   `json:"path"`
	Title       string   `json:"title"`
	HeadingPath []string `json:"heading_path"`
	Scope       string   `json:"scope"`
	Status      string   `json:"status"`
	Score       float64  `json:"score"`
	Stage       string   `json:"stage"` // "exact" or "bm25"
	Snippet     string   `json:"snippet"`
	Line        int      `json:"line"` // the line of the file the section starts on
	ContentHash string   `json:"content_hash"`
	DraftID     string   `json:"draft_id,omitempty"` // the Draft this text comes from
}

// SearchOptions narrow a search.
type SearchOptions struct {
	Limit int // units to return; default 10
	// Project limits results to shared resources and that project's own; ""
	// searches every resource of the vault.
	Project string
}

// Fragment is one delivered unit.
type Fragment struct {
	Action      string   `json:"action"` // add, replace or reuse
	UnitKey     string   `json:"unit_key"`
	ContentHash string   `json:"content_hash"`
	ResourceID  string   `json:"resource_id"`
	Scope       string   `json:"scope"`
	Kind        string   `json:"kind"`
	Path        string   `json:"path"`
	HeadingPath []string `json:"heading_path"`
	Content     string   `json:"content,omitempty"`
	// DraftID names the project's open Draft the text comes from; omitted
	// for the vault's working tree.
	DraftID string `json:"draft_id,omitempty"`
	// Status is the note's status when it is not active (superseded,
	// deprecated, …): an agent must not take a replaced decision for a
	// current one.
	Status string `json:"status,omitempty"`
	// Stale lists the section's citations of code that no longer hold in
	// the bound workspace's repository, each with the commit that broke
	// it: check the code before relying on the text.
	Stale []CodeFinding `json:"stale,omitempty"`
}

// Activation is the response of activate, shaped as the spec shows it.
type Activation struct {
	IndexRevision string     `json:"index_revision"`
	Profile       string     `json:"profile"`
	NextState     string     `json:"next_state"`
	Fragments     []Fragment `json:"fragments"`
	Removed       []string   `json:"removed"`
	// RemovedLabels says where each removed unit was ("path › headings";
	// "" when unknown), for the text rendering; not part of the JSON.
	RemovedLabels []string `json:"-"`
	RunID         string   `json:"run_id,omitempty"`
}

// ActivateRequest is one activate call.
type ActivateRequest struct {
	Query   string
	State   string // the previous next_state, or ""
	Project string
	Limits  Limits
	// Mode restricts the stages for evaluation: "hybrid" (default), "lexical", "vector".
	Mode string
	// PublishedOnly delivers reviewed memory only: the org ref plus a
	// person's own edits, never a Draft's text (nor an embed's from one).
	// What is put before a model unasked (lore hook) is that.
	PublishedOnly bool
	// RelevantOnly delivers only what clears a relevance bar (an exact
	// match, a section whose own text covers half the query's words, or a
	// close vector), so an unrelated query delivers nothing.
	RelevantOnly bool
	// Code checks the fragments' citations of code against the bound
	// workspace's repository (nil: not checked).
	Code CodeChecker `json:"-"`
}

// Limits are the assembly limits of activate.
type Limits struct {
	MaxFragments int // default 12
	PerResource  int // default 2
	TokenBudget  int // default 2,400
}

// LimitsFrom reads lore.yaml's retrieval section, filling defaults.
func LimitsFrom(c RetrievalConfig) Limits {
	l := Limits{MaxFragments: c.MaxFragments, PerResource: c.PerResource, TokenBudget: c.TokenBudget}
	if l.MaxFragments <= 0 {
		l.MaxFragments = 12
	}
	if l.PerResource <= 0 {
		l.PerResource = 2
	}
	if l.TokenBudget <= 0 {
		l.TokenBudget = 2400
	}
	return l
}

// RankedUnit is one unit of a ranking, for evaluation.
type RankedUnit struct {
	UnitKey, ResourceID, Path string
	Score                     float64
}

// RecallHit is one resource as recall_memory returns it: its best unit's
// score and a snippet, its tier and its link counts.
type RecallHit struct {
	ResourceID string  `json:"resource_id"`
	Path       string  `json:"path"`
	Title      string  `json:"title"`
	Tier       string  `json:"tier"`
	Score      float64 `json:"score"`
	LinksIn    int     `json:"links_in"`
	LinksOut   int     `json:"links_out"`
	Snippet    string  `json:"snippet"`
	DraftID    string  `json:"draft_id,omitempty"`
}

// Compact is the recall line of specs/003:
// !μ:<tier>|<path>|score:<score>|links:<in>/<out> § <snippet>
// compactSnippet is a snippet for a compact line: a '|' becomes '/', so the
// line's fields read apart, except inside a wikilink, whose display text it
// introduces ([[Configuration folder|config folder]] stays as written).
func compactSnippet(s string) string {
	var b strings.Builder
	depth := 0
	for i := 0; i < len(s); i++ {
		switch {
		case strings.HasPrefix(s[i:], "[["):
			depth++
			b.WriteString("[[")
			i++
			continue
		case strings.HasPrefix(s[i:], "]]") && depth > 0:
			depth--
			b.WriteString("]]")
			i++
			continue
		case s[i] == '|' && depth == 0:
			b.WriteByte('/')
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func (h RecallHit) Compact() string {
	tier := h.Tier
	if tier == "" {
		tier = "-"
	}
	snip := compactSnippet(h.Snippet)
	score := strings.TrimRight(strings.TrimRight(strconv.FormatFloat(h.Score, 'f', 3, 64), "0"), ".")
	if score == "" || score == "-" || score == "-0" {
		score = "0"
	}
	return fmt.Sprintf("!μ:%s|%s|score:%s|links:%d/%d § %s", tier, h.Path, score, h.LinksIn, h.LinksOut, snip)
}

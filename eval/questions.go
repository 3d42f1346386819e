package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/lore-memory/lore/vault"
)

// Question is one question over a vault and the section that answers it,
// written as "path#Heading" (the heading is the section's own, the last of
// its heading path).
type Question struct {
	Query    string `json:"query"`
	Project  string `json:"project"`
	Expected string `json:"expected"`
}

// LoadQuestions reads a JSON Lines file of questions; a line that is not a
// question with a query and an expected "path#Heading" is an error naming
// the line.
func LoadQuestions(path string) ([]Question, error) {
	var qs []Question
	err := readJSONL(path, func(b []byte) error {
		var q Question
		dec := json.NewDecoder(strings.NewReader(string(b)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&q); err != nil {
			return err
		}
		if strings.TrimSpace(q.Query) == "" {
			return fmt.Errorf("query is empty")
		}
		if p, h, ok := strings.Cut(q.Expected, "#"); !ok || p == "" || h == "" {
			return fmt.Errorf("expected %q is not path#Heading", q.Expected)
		}
		qs = append(qs, q)
		return nil
	})
	return qs, err
}

// Answer is how one question fared: the place of the expected section
// among the delivered fragments (0: not delivered), and the tokens of what
// the agent was sent.
type Answer struct {
	Question
	Rank          int      `json:"rank"`
	NoteRank      int      `json:"note_rank"` // the place of the expected note among the delivered notes (0: none)
	Delivered     []string `json:"delivered"` // path#Heading of each fragment, in order
	TextTokens    int      `json:"text_tokens"`
	ContentTokens int      `json:"content_tokens"`
	StateTokens   int      `json:"state_tokens"`
	WireBytes     int      `json:"wire_bytes"`
	// What the model reads: Claude Code and Codex put the structuredContent
	// before the model, not the text content (measured with the real
	// clients, e2e/clients.test.mjs).
	StructuredChars  int `json:"structured_chars"`
	StructuredTokens int `json:"structured_tokens"`
	TextChars        int `json:"text_chars"`
	// FirstHash is the content hash of the first fragment delivered ("":
	// none), to tell a copy of the answer from another text.
	FirstHash string `json:"-"`
}

// QuestionMetrics are the figures of a question set.
type QuestionMetrics struct {
	Questions int     `json:"questions"`
	Success1  float64 `json:"success_at_1"` // the expected section first
	Success3  float64 `json:"success_at_3"`
	Note1     float64 `json:"note_success_at_1"` // the expected note first (a note counts once, at its first section)
	Note3     float64 `json:"note_success_at_3"`
	Delivered float64 `json:"success_at_all"` // delivered at all
	MRR       float64 `json:"mrr"`
	Share     float64 `json:"median_content_share"` // of the text's tokens
	Text      int     `json:"median_text_tokens"`
	State     int     `json:"median_state_tokens"`
	Wire      int     `json:"median_wire_bytes"` // text and structuredContent
	// The structuredContent's and the text's characters and tokens,
	// median and 95th percentile (ModelReads).
	Structured ModelReads `json:"structured"`
	TextRead   ModelReads `json:"text"`
	// AfterHook is the structuredContent of the same activate asked in a
	// session whose prompt hook already delivered (reviewed, relevant
	// memory within the hook's 600 tokens), with the session's state, as
	// the session handle the hook gives the model makes it.
	AfterHook ModelReads `json:"structured_after_hook"`
	Answers   []Answer   `json:"answers"`
}

// ModelReads is the size of one form of an activate answer over a
// question set.
type ModelReads struct {
	CharsMedian  int `json:"chars_median"`
	CharsP95     int `json:"chars_p95"`
	TokensMedian int `json:"tokens_median"`
	TokensP95    int `json:"tokens_p95"`
}

func readsOf(chars, tokens []int) ModelReads {
	return ModelReads{medianInt(chars), percentileInt(chars, 0.95), medianInt(tokens), percentileInt(tokens, 0.95)}
}

// percentileInt is the nearest-rank percentile p (0–1) of xs.
func percentileInt(xs []int, p float64) int {
	if len(xs) == 0 {
		return 0
	}
	s := append([]int(nil), xs...)
	sort.Ints(s)
	i := int(math.Ceil(p*float64(len(s)))) - 1
	return s[max(0, min(i, len(s)-1))]
}

// Render returns what a tool call sends for an activation: its text
// content and its structuredContent.
type Render func(*vault.Activation) (text, structured string, err error)

// InMode returns a with every activate asked in one retrieval mode
// ("lexical", "hybrid"), as lore eval --questions … --mode asks them.
func InMode(a vault.Activator, mode string) vault.Activator { return inMode{a, mode} }

type inMode struct {
	vault.Activator
	mode string
}

func (m inMode) Activate(ctx context.Context, req vault.ActivateRequest) (*vault.Activation, error) {
	req.Mode = m.mode
	return m.Activator.Activate(ctx, req)
}

// ScoreQuestions runs each question through activate (no state) and scores
// where the expected section was delivered, and how much of what the agent
// reads is memory: the share of the text content's tokens that are the
// fragments' own text (vault.EstimateTokens counts both).
func ScoreQuestions(ctx context.Context, a vault.Activator, qs []Question, render Render) (QuestionMetrics, error) {
	var m QuestionMetrics
	var shares []float64
	var texts, states, wires []int
	var sChars, sTokens, tChars, hChars, hTokens []int
	for _, q := range qs {
		act, err := a.Activate(ctx, vault.ActivateRequest{Query: q.Query, Project: q.Project})
		if err != nil {
			return m, fmt.Errorf("%q: %w", q.Query, err)
		}
		ans := Answer{Question: q}
		var places []place
		for _, f := range act.Fragments {
			places = append(places, place{f.Path, f.HeadingPath})
			ans.ContentTokens += vault.EstimateTokens(f.Content)
		}
		ans.rank(places)
		if len(act.Fragments) > 0 {
			ans.FirstHash = act.Fragments[0].ContentHash
		}
		text, structured, err := render(act)
		if err != nil {
			return m, err
		}
		ans.TextTokens = vault.EstimateTokens(text)
		ans.StateTokens = vault.EstimateTokens(act.NextState)
		ans.WireBytes = len(text) + len(structured)
		ans.StructuredChars, ans.StructuredTokens, ans.TextChars = utf8.RuneCountInString(structured), vault.EstimateTokens(structured), utf8.RuneCountInString(text)
		sChars, sTokens, tChars = append(sChars, ans.StructuredChars), append(sTokens, ans.StructuredTokens), append(tChars, ans.TextChars)
		c, t, err := afterHook(ctx, a, q, render)
		if err != nil {
			return m, err
		}
		hChars, hTokens = append(hChars, c), append(hTokens, t)
		m.add(ans)
		if ans.TextTokens > 0 {
			shares = append(shares, float64(ans.ContentTokens)/float64(ans.TextTokens))
		}
		texts, states, wires = append(texts, ans.TextTokens), append(states, ans.StateTokens), append(wires, ans.WireBytes)
	}
	m.average()
	m.Share = median(shares)
	m.Text, m.State, m.Wire = medianInt(texts), medianInt(states), medianInt(wires)
	m.Structured, m.TextRead, m.AfterHook = readsOf(sChars, sTokens), readsOf(tChars, texts), readsOf(hChars, hTokens)
	return m, nil
}

// afterHook asks q as the prompt hook does (reviewed, relevant memory,
// 6 fragments within 600 tokens: lore hook's defaults), then as the
// agent's activate with the state that left, and returns the size of the
// second answer's structuredContent.
func afterHook(ctx context.Context, a vault.Activator, q Question, render Render) (chars, tokens int, err error) {
	hooked, err := a.Activate(ctx, HookRequest(q.Query, q.Project))
	if err != nil {
		return 0, 0, err
	}
	act, err := a.Activate(ctx, vault.ActivateRequest{Query: q.Query, Project: q.Project, State: hooked.NextState})
	if err != nil {
		return 0, 0, err
	}
	_, structured, err := render(act)
	return utf8.RuneCountInString(structured), vault.EstimateTokens(structured), err
}

// place is where a delivered fragment or a hit is: its note and headings.
type place struct {
	path    string
	heading []string
}

// rank sets the answer's section and note ranks from what was delivered,
// in order.
func (a *Answer) rank(places []place) {
	wantPath, _, _ := strings.Cut(a.Expected, "#")
	notes := map[string]bool{}
	for i, p := range places {
		at := p.path + "#"
		if n := len(p.heading); n > 0 {
			at += p.heading[n-1]
		}
		a.Delivered = append(a.Delivered, at)
		if at == a.Expected && a.Rank == 0 {
			a.Rank = i + 1
		}
		if !notes[p.path] {
			notes[p.path] = true
			if p.path == wantPath && a.NoteRank == 0 {
				a.NoteRank = len(notes)
			}
		}
	}
}

// add counts one answer.
func (m *QuestionMetrics) add(a Answer) {
	m.Answers = append(m.Answers, a)
	m.Questions++
	if a.Rank == 1 {
		m.Success1++
	}
	if a.Rank >= 1 && a.Rank <= 3 {
		m.Success3++
	}
	if a.NoteRank == 1 {
		m.Note1++
	}
	if a.NoteRank >= 1 && a.NoteRank <= 3 {
		m.Note3++
	}
	if a.Rank > 0 {
		m.Delivered++
		m.MRR += 1 / float64(a.Rank)
	}
}

// average turns the counts into shares of the questions.
func (m *QuestionMetrics) average() {
	if m.Questions > 0 {
		k := float64(m.Questions)
		m.Success1, m.Success3, m.Note1, m.Note3, m.Delivered, m.MRR = m.Success1/k, m.Success3/k, m.Note1/k, m.Note3/k, m.Delivered/k, m.MRR/k
	}
}

// ScoreSearch runs each question through search (the top limit sections)
// and scores where the expected section and note were found.
func ScoreSearch(ctx context.Context, s vault.Searcher, qs []Question, limit int) (QuestionMetrics, error) {
	var m QuestionMetrics
	for _, q := range qs {
		hits, err := s.Search(ctx, q.Query, vault.SearchOptions{Limit: limit, Project: q.Project})
		if err != nil {
			return m, fmt.Errorf("%q: %w", q.Query, err)
		}
		ans := Answer{Question: q}
		var places []place
		for _, h := range hits {
			places = append(places, place{h.Path, h.HeadingPath})
		}
		ans.rank(places)
		m.add(ans)
	}
	m.average()
	return m, nil
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	sort.Float64s(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	} else {
		return (s[n/2-1] + s[n/2]) / 2
	}
}

func medianInt(xs []int) int {
	f := make([]float64, len(xs))
	for i, x := range xs {
		f[i] = float64(x)
	}
	return int(median(f) + 0.5)
}

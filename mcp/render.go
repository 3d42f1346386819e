package mcp

import (
	"bytes"
	"encoding/json"

	"github.com/lore-memory/lore/internal/termtext"
	"github.com/lore-memory/lore/vault"
)

// activation is an activate result: structuredContent is the spec's JSON,
// laid out for the model that reads it (Claude Code and Codex put the
// structuredContent before the model, not the text content: measured with
// the real clients, e2e/clients.test.mjs). The text content is
// vault.Activation.Text, a rendering an agent reads at a glance in which the
// notes' own text is most of the tokens.
type activation struct{ *vault.Activation }

// AgentText implements agentText: control, escape and bidirectional
// characters shown visibly (termtext.Visible), as in the JSON.
func (a activation) AgentText() string { return termtext.Visible(a.Text()) }

// RenderActivation returns what an activate call sends: its text and its
// structuredContent.
func RenderActivation(a *vault.Activation) (text, structured string, err error) {
	return Render(activation{a})
}

// modelFragment is a fragment as the model reads it: every field of the
// contract's fragment, in the order a reader needs them. What the fragment
// is comes first: its action, then its scope, which for a Draft's fragment
// is "draft" with the Draft's id beside it, so that no reader takes an
// unreviewed proposal for published memory before it reaches the text;
// then where it is, its status, and the code it cites that changed since
// it was written (stale: check the code before relying on the text), then
// the text (its control, escape and bidirectional
// characters shown visibly: <U+202E>, ^[; content_hash is of the note's own
// bytes); the ids and the hash, which only operations take, come last.
type modelFragment struct {
	Action      string              `json:"action"`
	Scope       string              `json:"scope"`
	DraftID     string              `json:"draft_id,omitempty"`
	Path        string              `json:"path"`
	HeadingPath []string            `json:"heading_path"`
	Status      string              `json:"status,omitempty"`
	Stale       []vault.CodeFinding `json:"stale,omitempty"`
	Content     string              `json:"content,omitempty"`
	UnitKey     string              `json:"unit_key"`
	ResourceID  string              `json:"resource_id"`
	ContentHash string              `json:"content_hash"`
	Kind        string              `json:"kind"`
}

// DraftScope is a Draft's fragment's scope in what the memory tool sends.
const DraftScope = "draft"

// MarshalJSON implements json.Marshaler: the contract's fields, fragments
// as modelFragment lays them out.
func (a activation) MarshalJSON() ([]byte, error) {
	fs := make([]modelFragment, len(a.Fragments))
	for i, f := range a.Fragments {
		scope := f.Scope
		if f.DraftID != "" {
			scope = DraftScope
		}
		fs[i] = modelFragment{Action: f.Action, Scope: scope, DraftID: f.DraftID, Path: f.Path, HeadingPath: f.HeadingPath,
			Status: f.Status, Stale: visibleFindings(f.Stale), Content: termtext.Visible(f.Content), UnitKey: f.UnitKey, ResourceID: f.ResourceID, ContentHash: f.ContentHash, Kind: f.Kind}
	}
	removed := a.Removed
	if removed == nil {
		removed = []string{}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // a note's "<" and "&" stay as written
	err := enc.Encode(struct {
		NextState     string          `json:"next_state"`
		Fragments     []modelFragment `json:"fragments"`
		Removed       []string        `json:"removed"`
		IndexRevision string          `json:"index_revision"`
		Profile       string          `json:"profile"`
		RunID         string          `json:"run_id,omitempty"`
	}{a.NextState, fs, removed, a.IndexRevision, a.Profile, a.RunID})
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), err
}

// visibleFindings are a fragment's findings with what a note or a commit
// wrote in them (the citation, the paths, the author) shown visibly, as
// the fragment's text is.
func visibleFindings(fs []vault.CodeFinding) []vault.CodeFinding {
	if len(fs) == 0 {
		return nil
	}
	out := make([]vault.CodeFinding, len(fs))
	for i, f := range fs {
		f.Cites, f.Path, f.RenamedTo, f.Author = termtext.Visible(f.Cites), termtext.Visible(f.Path), termtext.Visible(f.RenamedTo), termtext.Visible(f.Author)
		out[i] = f
	}
	return out
}

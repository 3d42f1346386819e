package mcp

import "github.com/lore-memory/lore/vault"

// activation is an activate result: structuredContent is the spec's JSON,
// exactly (the embedded activation's fields, encoded as every result is,
// without HTML escaping); the text content is vault.Activation.Text, a
// rendering an agent reads at a glance in which the notes' own text is most
// of the tokens (measured by `lore eval --questions`; README).
type activation struct{ *vault.Activation }

// AgentText implements agentText.
func (a activation) AgentText() string { return a.Text() }

// RenderActivation returns what an activate call sends: its text and its
// structuredContent.
func RenderActivation(a *vault.Activation) (text, structured string, err error) {
	return Render(activation{a})
}

package offload

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/lore-memory/lore/vault"
)

// GCOptions are gc_session_context's knobs, with the spec's defaults.
type GCOptions struct {
	Threshold     int // lines before a tool output is folded (20)
	HotWindow     int // most recent turns left untouched (the tool's default is 5)
	ContextWindow int // tokens (128,000)
}

// GCResult is gc_session_context's result.
type GCResult struct {
	SessionID     string            `json:"session_id"`
	Turns         []json.RawMessage `json:"turns"`
	Folded        int               `json:"folded"`
	Collapsed     int               `json:"collapsed"` // repeats turned into references
	Nodes         []string          `json:"nodes"`
	TokensBefore  int               `json:"tokens_before"`
	TokensAfter   int               `json:"tokens_after"`
	TRR           float64           `json:"trr"` // token reduction ratio, 1 − after/before
	ContextWindow int               `json:"context_window"`
	UsageBefore   float64           `json:"usage_before_pct"`
	UsageAfter    float64           `json:"usage_after_pct"`
	Zone          string            `json:"zone"` // below (< 15 %), smart (15–60 %), above (> 60 %)
}

var foldFields = []string{"content", "output", "tool_output"}

// GC folds a trajectory (see the package doc).
func (s *Store) GC(trajectory string, o GCOptions) (GCResult, error) {
	if err := checkSize("trajectory_json", trajectory); err != nil {
		return GCResult{}, err
	}
	if o.Threshold == 0 {
		o.Threshold = 20
	}
	if o.ContextWindow == 0 {
		o.ContextWindow = 128000
	}
	if o.Threshold < 1 || o.HotWindow < 0 || o.ContextWindow < 1000 {
		return GCResult{}, vault.Errorf(vault.CodeInvalid, "threshold must be ≥ 1, hot_window ≥ 0 and context_window ≥ 1000")
	}
	var tr struct {
		SessionID string            `json:"session_id"`
		Turns     []json.RawMessage `json:"turns"`
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(trajectory)))
	if err := dec.Decode(&tr); err != nil {
		return GCResult{}, vault.Errorf(vault.CodeInvalid, "trajectory_json is not a JSON object: %v", err)
	}
	if tr.Turns == nil {
		return GCResult{}, vault.Errorf(vault.CodeInvalid, "trajectory_json has no turns array")
	}
	res := GCResult{SessionID: tr.SessionID, ContextWindow: o.ContextWindow, Nodes: []string{}}
	first := map[string]int{} // node id → turn index that folded it first
	for i, raw := range tr.Turns {
		res.TokensBefore += vault.EstimateTokens(string(raw))
		var turn map[string]any
		if err := json.Unmarshal(raw, &turn); err != nil || turn == nil {
			return GCResult{}, vault.Errorf(vault.CodeInvalid, "turns[%d] is not a JSON object", i)
		}
		if i < len(tr.Turns)-o.HotWindow {
			if err := s.fold(turn, i, o.Threshold, first, &res); err != nil {
				return GCResult{}, err
			}
		}
		out, err := json.Marshal(turn)
		if err != nil {
			return GCResult{}, err
		}
		res.Turns = append(res.Turns, out)
		res.TokensAfter += vault.EstimateTokens(string(out))
	}
	if res.Turns == nil {
		res.Turns = []json.RawMessage{}
	}
	if res.TokensBefore > 0 {
		res.TRR = round3(1 - float64(res.TokensAfter)/float64(res.TokensBefore))
	}
	res.UsageBefore = round1(100 * float64(res.TokensBefore) / float64(o.ContextWindow))
	res.UsageAfter = round1(100 * float64(res.TokensAfter) / float64(o.ContextWindow))
	switch {
	case res.UsageAfter < 15:
		res.Zone = "below"
	case res.UsageAfter <= 60:
		res.Zone = "smart"
	default:
		res.Zone = "above"
	}
	return res, nil
}

// fold offloads each long field of turn i (over threshold lines) into a log
// node and puts a one-line stand-in in its place: the node's id and first
// error line, or, for a text an earlier turn folded (first), a pointer to it.
func (s *Store) fold(turn map[string]any, i, threshold int, first map[string]int, res *GCResult) error {
	for _, f := range foldFields {
		text, ok := turn[f].(string)
		if !ok || countLines(text) <= threshold {
			continue
		}
		id, err := s.Put(text)
		if err != nil {
			return err
		}
		if at, dup := first[id]; dup {
			turn[f] = fmt.Sprintf("[same %d lines as turn %d: %s]", countLines(text), at, id)
			res.Collapsed++
		} else {
			first[id] = i
			res.Nodes = append(res.Nodes, id)
			sum := ""
			for _, l := range splitLines(text) {
				if errorLine().MatchString(l) {
					sum = "; first error: " + oneLine(l, 120)
					break
				}
			}
			turn[f] = fmt.Sprintf("[%d lines offloaded as %s%s; inspect_log_node to read them]", countLines(text), id, sum)
		}
		res.Folded++
	}

	return nil
}

func round3(f float64) float64 { return float64(int(f*1000+0.5)) / 1000 }

func splitLines(s string) []string {
	var out []string
	for len(s) > 0 {
		i := bytes.IndexByte([]byte(s), '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i])
		s = s[i+1:]
	}
	return out
}

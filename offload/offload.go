package offload

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/lore-memory/lore/internal/lazyre"
	"github.com/lore-memory/lore/vault"
)

// MaxText is the largest text offload and distill accept (8 MiB).
const MaxText = 8 << 20

// MinLines: text of this many lines or fewer is not offloaded.
const MinLines = 30

// Store keeps offloaded text in one folder, within bounds: at most
// maxBytes in all and maxNodes logs. An agent that offloads again and
// again once filled a 48 MiB file system, and then other agents' reads
// failed; past a bound, the oldest logs are collected first, as gc folds
// the oldest turns first.
type Store struct {
	dir      string
	maxBytes int64
	maxNodes int
}

// NewStore returns the store in dir (created on first write), bounded to
// maxBytes and maxNodes (vault.Config.OffloadLimits).
func NewStore(dir string, maxBytes int64, maxNodes int) *Store {
	return &Store{dir: dir, maxBytes: maxBytes, maxNodes: maxNodes}
}

// validNodeID reports whether id is `node_` and 8 to 64 lowercase hex
// digits. (A regexp with {8,64} built 200 KB of program at package init.)
func validNodeID(id string) bool {
	hex, ok := strings.CutPrefix(id, "node_")
	if !ok || len(hex) < 8 || len(hex) > 64 {
		return false
	}
	for i := 0; i < len(hex); i++ {
		if c := hex[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

func checkSize(field string, s string) error {
	if len(s) > MaxText {
		return vault.Errorf(vault.CodeInvalid, "%s is %.1f MiB; the limit is %d MiB", field, float64(len(s))/(1<<20), MaxText>>20)
	}
	return nil
}

// Put stores text and returns its node id (content-addressed).
func (s *Store) Put(text string) (string, error) {
	sum := sha256.Sum256([]byte(text))
	full := hex.EncodeToString(sum[:])
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return "", err
	}
	for _, n := range []int{8, 16, 64} {
		id := "node_" + full[:n]
		p := filepath.Join(s.dir, id+".log")
		have, err := os.ReadFile(p)
		if err == nil {
			if bytes.Equal(have, []byte(text)) {
				now := time.Now()
				os.Chtimes(p, now, now) // used again: the last to be collected
				return id, nil
			}
			continue // a different text with the same short id
		}
		if !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
		if err := s.makeRoom(int64(len(text))); err != nil {
			return "", err
		}
		if err := vault.WriteFileAtomic(p, []byte(text)); err != nil {
			return "", err
		}
		return id, nil
	}
	return "", fmt.Errorf("cannot store node %s", full)
}

// makeRoom deletes the oldest logs until one of size more fits within the
// store's bounds; a log larger than the whole bound is refused.
func (s *Store) makeRoom(size int64) error {
	if s.maxBytes > 0 && size > s.maxBytes {
		return vault.Errorf(vault.CodeInvalid, "the log is %.1f MiB, more than the %d MiB this vault keeps of offloaded logs (offload.max_mb in lore.yaml)", float64(size)/(1<<20), s.maxBytes>>20)
	}
	ents, err := os.ReadDir(s.dir)
	if err != nil {
		return err
	}
	type node struct {
		name string
		size int64
		mod  int64
	}
	var nodes []node
	var total int64
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".log") || !validNodeID(strings.TrimSuffix(e.Name(), ".log")) {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		nodes = append(nodes, node{e.Name(), info.Size(), info.ModTime().UnixNano()})
		total += info.Size()
	}
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].mod < nodes[j].mod })
	for len(nodes) > 0 && ((s.maxBytes > 0 && total+size > s.maxBytes) || (s.maxNodes > 0 && len(nodes)+1 > s.maxNodes)) {
		if err := os.Remove(filepath.Join(s.dir, nodes[0].name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		total -= nodes[0].size
		nodes = nodes[1:]
	}
	return nil
}

// Get returns the text of a node.
func (s *Store) Get(id string) (string, error) {
	if !validNodeID(id) {
		return "", vault.Errorf(vault.CodeInvalid, "node_id %q is not a node id (node_ and 8 or more hex digits)", id)
	}
	data, err := os.ReadFile(filepath.Join(s.dir, id+".log"))
	if errors.Is(err, os.ErrNotExist) {
		return "", vault.Errorf(vault.CodeNotFound, "no offloaded node %s in this vault", id)
	}
	return string(data), err
}

// Offloaded is offload_context's result.
type Offloaded struct {
	NodeID       string  `json:"node_id,omitempty"`
	Lines        int     `json:"lines"`
	TokensBefore int     `json:"tokens_before"`
	TokensAfter  int     `json:"tokens_after"`
	Reduction    float64 `json:"reduction_pct"`
	Diagram      string  `json:"diagram,omitempty"`
	Offloaded    bool    `json:"offloaded"`
	Text         string  `json:"text"` // what the agent reads
}

// Offload stores long text and returns a short summary of it.
func (s *Store) Offload(content, taskID string) (Offloaded, error) {
	if strings.TrimSpace(content) == "" {
		return Offloaded{}, vault.Errorf(vault.CodeInvalid, "content is empty")
	}
	if err := checkSize("content", content); err != nil {
		return Offloaded{}, err
	}
	lines := countLines(content)
	before := vault.EstimateTokens(content)
	if lines <= MinLines {
		return Offloaded{Lines: lines, TokensBefore: before, TokensAfter: before, Text: content}, nil
	}
	id, err := s.Put(content)
	if err != nil {
		return Offloaded{}, err
	}
	diagram := Diagram(content, id, lines)
	text := "```mermaid\n" + diagram + "```\n"
	after := vault.EstimateTokens(text) + 30
	red := 100 * (1 - float64(after)/float64(max(before, 1)))
	if red < 0 {
		red = 0
	}
	label := ""
	if taskID != "" {
		label = " [" + oneLine(taskID, 40) + "]"
	}
	text += fmt.Sprintf("\n✓ Log offloaded%s (%d lines, %.1f%% token reduction) Reference ID: %s Use 'inspect_log_node' to view raw lines.\n", label, lines, red, id)
	return Offloaded{NodeID: id, Lines: lines, TokensBefore: before, TokensAfter: vault.EstimateTokens(text), Reduction: round1(red), Diagram: diagram, Offloaded: true, Text: text}, nil
}

func round1(f float64) float64 { return float64(int(f*10+0.5)) / 10 }

func countLines(s string) int {
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// Inspected is inspect_log_node's result.
type Inspected struct {
	NodeID string `json:"node_id"`
	Lines  int    `json:"lines"` // in the node
	From   int    `json:"from"`
	To     int    `json:"to"`
	Text   string `json:"text"`
}

// Inspect returns a node's raw text, or lines from..to of it (1-based,
// inclusive; zero for the start or the end).
func (s *Store) Inspect(id string, from, to int) (Inspected, error) {
	text, err := s.Get(id)
	if err != nil {
		return Inspected{}, err
	}
	lines := strings.SplitAfter(text, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	n := len(lines)
	if from == 0 {
		from = 1
	}
	if to == 0 || to > n {
		to = n
	}
	if from < 1 || from > max(n, 1) || to < from {
		return Inspected{}, vault.Errorf(vault.CodeInvalid, "line range %d..%d is outside the node's %d lines", from, to, n)
	}
	return Inspected{NodeID: id, Lines: n, From: from, To: to, Text: strings.Join(lines[from-1:to], "")}, nil
}

var (
	errorLine  = lazyre.New(`(?i)(^\s*[\w./-]+\.\w+:\d+(:\d+)?: |\bundefined:|\berror\b|\berr:|\bpanic\b|\bfatal\b|\bexception\b|traceback|\bfailed\b|\bfail\b|segmentation fault|undefined reference|cannot find|not found)`)
	strongLine = lazyre.New(`(?i)(^\s*[\w./-]+\.\w+:\d+(:\d+)?: |\bundefined:|\berror\b|\berr:|\bpanic\b|\bfatal\b|\bexception\b|traceback|segmentation fault|undefined reference)`)
	phases     = []struct {
		name string
		re   func() *regexp.Regexp
	}{
		{"Dependencies", lazyre.New(`(?i)(npm (install|ci)|go: downloading|downloading|installing|resolving|pip install|cargo fetch|updating crates)`)},
		{"Compilation", lazyre.New(`(?i)(compiling|building|\bbuild\b|\bgo build\b|\btsc\b|javac|\bgcc\b|\bclang\b|\bcc1\b|\bmake\b)`)},
		{"Linking", lazyre.New(`(?i)(linking|\bld\b:)`)},
		{"Testing", lazyre.New(`(?i)(=== run|--- (pass|fail)|\brunning \d+ tests?\b|\btest result\b|\bpytest\b|\bjest\b|\bgo test\b|\btests? (passed|failed)\b)`)},
		{"Lint", lazyre.New(`(?i)(\blint\b|eslint|golangci|clippy|go vet)`)},
		{"Deploy", lazyre.New(`(?i)(deploy|kubectl|helm|terraform)`)},
	}
)

// Diagram summarizes text as a Mermaid state diagram of at most 15 lines.
func Diagram(text, id string, lines int) string {
	var seen []string
	have := map[string]bool{}
	var errs []string
	for _, l := range strings.Split(text, "\n") {
		if len(seen) < 5 {
			for _, p := range phases {
				if !have[p.name] && p.re().MatchString(l) {
					have[p.name] = true
					seen = append(seen, p.name)
					break
				}
			}
		}
		if len(errs) < 3 && errorLine().MatchString(l) {
			e := label(l)
			dup := false
			for _, x := range errs {
				dup = dup || x == e
			}
			if !dup && e != "" {
				errs = append(errs, e)
			}
		}
	}
	if len(seen) == 0 {
		seen = []string{"Output"}
	}
	node := "Node_" + strings.TrimPrefix(id, "node_")
	var b strings.Builder
	b.WriteString("stateDiagram-v2\n    direction TB\n")
	fmt.Fprintf(&b, "    [*] --> %s\n", seen[0])
	for i := 1; i < len(seen); i++ {
		fmt.Fprintf(&b, "    %s --> %s\n", seen[i-1], seen[i])
	}
	last := seen[len(seen)-1]
	if len(errs) > 0 {
		fmt.Fprintf(&b, "    %s --> ErrorDetected: %s\n", last, errs[0])
		for _, e := range errs[1:] {
			fmt.Fprintf(&b, "    ErrorDetected --> ErrorDetected: %s\n", e)
		}
		last = "ErrorDetected"
	}
	fmt.Fprintf(&b, "    %s --> %s: %d lines offloaded\n", last, node, lines)
	fmt.Fprintf(&b, "    %s --> [*]\n", node)
	return b.String()
}

// label makes a log line safe and short for a Mermaid transition label.
func label(l string) string {
	l = strings.Map(func(r rune) rune {
		switch r {
		case ':', ';', '#', '"', '`', '{', '}', '<', '>', '[', ']', '|', '\t', '\r':
			return ' '
		}
		return r
	}, l)
	return oneLine(l, 60)
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		s = string(r[:n]) + "…"
	}
	return s
}

package activity

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/lore-memory/lore/hook"
)

// Session is one opened session: its requests, each with its activations.
type Session struct {
	Summary
	Requests []Request `json:"requests"`
	Problems []string  `json:"problems,omitempty"` // lines or records that could not be read
	Partial  bool      `json:"partial,omitempty"`  // the log's end is being written
	mod      time.Time
}

// Request is one human message and the memory activations that followed it.
type Request struct {
	Index       int          `json:"index"`
	Text        string       `json:"text"`
	At          time.Time    `json:"at"`
	Activations []Activation `json:"activations"`
	// Refusals are the commands lore's guard refused during the request
	// (the pre-tool hook's deny, as the client recorded the tool's result).
	Refusals []Refusal `json:"refusals,omitempty"`
}

// Refusal is one shell command lore's guard refused, and the reason the
// model was given.
type Refusal struct {
	Command string    `json:"command"`
	Reason  string    `json:"reason"`
	At      time.Time `json:"at"`
}

// Activation is one call of lore's activate, as the log recorded it.
type Activation struct {
	CallID string `json:"call_id,omitempty"`
	// Via is "hook" for what lore's own hooks put in the context (Event
	// names the hook event); "" for a call the agent made.
	Via           string     `json:"via,omitempty"`
	Event         string     `json:"event,omitempty"`
	Query         string     `json:"query"`
	HadState      bool       `json:"had_state"`
	Status        string     `json:"status"` // ok, error, pending
	Error         string     `json:"error,omitempty"`
	RunID         string     `json:"run_id,omitempty"`
	Run           string     `json:"run,omitempty"` // joined, missing, other project, ambiguous, unknown
	TotalUS       *int64     `json:"total_us,omitempty"`
	IndexRevision string     `json:"index_revision,omitempty"`
	Fragments     []Fragment `json:"fragments"`
	Removed       []string   `json:"removed,omitempty"`
	At            time.Time  `json:"at"`
	hookText      string     // the delivered text, to count it once
}

// Fragment is one delivered fragment.
type Fragment struct {
	Action      string   `json:"action"`
	UnitKey     string   `json:"unit_key"`
	ResourceID  string   `json:"resource_id,omitempty"`
	Path        string   `json:"path"`
	HeadingPath []string `json:"heading_path"`
	Content     string   `json:"content"`
	From        string   `json:"from"` // result (the tool result), run (the run's stored copy), none
	// DraftID names the Draft the fragment came from: an unreviewed
	// proposal the agent was shown, never published memory.
	DraftID string `json:"draft_id,omitempty"`
}

// Runs reads retrieval runs of a vault (implemented over the index).
type Runs interface {
	Run(ctx context.Context, vault, id string) (json.RawMessage, error)
	RunsByQuery(ctx context.Context, vault, project, query string) ([]string, error)
}

// MaxLog bounds how much of one session log is read (256 MiB).
const MaxLog = 256 << 20

// SessionPage is one page of a session's requests.
type SessionPage struct {
	Session
	Total int `json:"total_requests"`
	Next  int `json:"next_page,omitempty"` // 0: none
}

// Open parses the session with the given token (host:session_id) and
// returns page (1-based) of its requests, limit per page, with their
// activations joined to retrieval runs.
func (a *Activity) Open(ctx context.Context, token string, runs Runs, page, limit int) (SessionPage, error) {
	if limit == 0 {
		limit = DefaultPage
	}
	if limit < 1 || limit > MaxPage || page < 0 {
		return SessionPage{}, fmt.Errorf("page %d, limit %d: limit must be 1–%d", page, limit, MaxPage)
	}
	if page == 0 {
		page = 1
	}
	sum, ok := a.find(token)
	if !ok {
		return SessionPage{}, fmt.Errorf("no session %s among the bound workspaces", token)
	}
	s, err := a.parsed(ctx, sum, runs)
	if err != nil {
		return SessionPage{}, err
	}
	out := SessionPage{Session: *s, Total: len(s.Requests)}
	from := (page - 1) * limit
	out.Requests = []Request{}
	if from < len(s.Requests) {
		to := min(from+limit, len(s.Requests))
		out.Requests = s.Requests[from:to]
		if to < len(s.Requests) {
			out.Next = page + 1
		}
	}
	return out, nil
}

// find looks a token up in the snapshots, else in a new discovery.
func (a *Activity) find(token string) (Summary, bool) {
	a.mu.Lock()
	for i := len(a.snapshots) - 1; i >= 0; i-- {
		for _, s := range a.snapshots[i].list {
			if s.Token == token {
				a.mu.Unlock()
				return s, true
			}
		}
	}
	a.mu.Unlock()
	for _, s := range a.discover(Filter{}).list {
		if s.Token == token {
			return s, true
		}
	}
	return Summary{}, false
}

// parsed returns the parsed session, from the cache when its file has not changed.
func (a *Activity) parsed(ctx context.Context, sum Summary, runs Runs) (*Session, error) {
	info, err := os.Stat(sum.File)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", sum.File, err)
	}
	a.mu.Lock()
	for _, s := range a.sessions {
		if s.Token == sum.Token && s.mod.Equal(info.ModTime()) && s.File == sum.File {
			a.mu.Unlock()
			return s, nil
		}
	}
	a.mu.Unlock()
	if info.Size() > MaxLog {
		return nil, fmt.Errorf("%s is %d MiB; lore reads session logs up to %d MiB", sum.File, info.Size()>>20, MaxLog>>20)
	}
	s := &Session{Summary: sum, mod: info.ModTime()}
	var b builder
	src := sourceOf(sum.Host)
	if src == nil {
		return nil, fmt.Errorf("%s: no reader for %q sessions", sum.File, sum.Host)
	}
	err = src.read(s, &b)
	if err != nil {
		return nil, err
	}
	s.Requests, s.Problems = b.requests, b.problems
	if s.Requests == nil {
		s.Requests = []Request{}
	}
	a.join(ctx, s, runs)
	a.mu.Lock()
	a.sessions = append(a.sessions, s)
	if len(a.sessions) > 4 {
		a.sessions = a.sessions[1:]
	}
	a.mu.Unlock()
	return s, nil
}

// eachLine calls fn for each line of a file (numbered from 1).
func eachLine(p string, fn func(int, []byte)) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	for n := 1; ; n++ {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			fn(n, line)
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// runRecord is what activity reads of a retrieval run.
type runRecord struct {
	Project       string `json:"project"`
	TotalUS       int64  `json:"total_us"`
	IndexRevision string `json:"index_revision"`
	Delivered     []struct {
		Action  string `json:"action"`
		UnitKey string `json:"unit_key"`
		Path    string `json:"path"`
		Content string `json:"content"`
	} `json:"delivered"`
	Removed    []string `json:"removed"`
	Candidates []struct {
		UnitKey     string   `json:"unit_key"`
		HeadingPath []string `json:"heading_path"`
	} `json:"candidates"`
}

// fromRun replaces a hook delivery's fragments, parsed from the text the
// client recorded, with what the run record says was delivered: the text a
// client logs is the context the model saw, which a note's own lines are
// part of, while the record is lore's. (A hook's frame cannot be forged by
// a note — its mark is made per run — but what activity reports as
// delivered rests on lore's record, not on a parse of text.)
func fromRun(act *Activation, rec runRecord) {
	headings := map[string][]string{}
	for _, c := range rec.Candidates {
		headings[c.UnitKey] = c.HeadingPath
	}
	frags := make([]Fragment, 0, len(rec.Delivered))
	for _, d := range rec.Delivered {
		h := headings[d.UnitKey]
		if h == nil {
			h = []string{}
		}
		frags = append(frags, Fragment{Action: d.Action, UnitKey: d.UnitKey, Path: d.Path, HeadingPath: h, Content: d.Content, From: "run"})
	}
	act.Fragments, act.Removed = frags, rec.Removed
}

// join links activations to retrieval runs (see the package doc).
func (a *Activity) join(ctx context.Context, s *Session, runs Runs) {
	if runs == nil || s.Vault == "" {
		return
	}
	for i := range s.Requests {
		for j := range s.Requests[i].Activations {
			act := &s.Requests[i].Activations[j]
			id := act.RunID
			if id == "" {
				if act.Query == "" || act.Status != "ok" {
					continue
				}
				ids, err := runs.RunsByQuery(ctx, s.Vault, s.Project, strings.TrimSpace(act.Query))
				switch {
				case err != nil || len(ids) == 0:
					act.Run = "missing"
					continue
				case len(ids) > 1:
					act.Run = "ambiguous"
					continue
				}
				id = ids[0]
			}
			raw, err := runs.Run(ctx, s.Vault, id)
			if err != nil {
				act.Run = "missing"
				continue
			}
			var rec runRecord
			if json.Unmarshal(raw, &rec) != nil {
				act.Run = "unknown"
				continue
			}
			if rec.Project != s.Project {
				act.Run = "other project"
				continue
			}
			act.RunID, act.Run = id, "joined"
			t := rec.TotalUS
			act.TotalUS = &t
			if act.IndexRevision == "" {
				act.IndexRevision = rec.IndexRevision
			}
			if act.Via == "hook" && act.Event != hook.SessionStart {
				fromRun(act, rec)
				continue
			}
			stored := map[string]string{}
			byText := map[string]string{} // a hook's text names no unit key
			for _, d := range rec.Delivered {
				stored[d.UnitKey] = d.Content
				byText[strings.TrimRight(d.Content, "\n")] = d.UnitKey
			}
			for k := range act.Fragments {
				f := &act.Fragments[k]
				if f.UnitKey == "" {
					f.UnitKey = byText[f.Content]
				}
				if c, ok := stored[f.UnitKey]; ok && c != "" && (f.Content == "" || strings.HasSuffix(f.Content, "…") || len(c) > len(f.Content)) {
					f.Content, f.From = c, "run"
				}
			}
		}
	}
}

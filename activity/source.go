package activity

import (
	"io/fs"
	"path/filepath"
	"strings"
)

// A source is one agent's log format. Adding a format is one file that
// implements source (and its fixtures), plus its entry in sources: the
// discovery, the session reader and the web UI go through this interface,
// never through the host's name.
type source interface {
	// host names the agent ("codex"); it is the sessions' Host and the
	// first part of their tokens.
	host() string
	// find calls add for every log file of this source under homes, with
	// active false for an archived copy that an active one replaces.
	find(homes Homes, add func(path string, info fs.FileInfo, active bool)) error
	// header reads a log's bounded header into a Summary (false: not a
	// session of this source).
	header(path string, info fs.FileInfo) (Summary, bool)
	// titles returns session titles kept beside the logs, by session id
	// (nil when the source has none).
	titles(homes Homes) map[string]string
	// read parses a whole session's records into b (and may mark s partial).
	read(s *Session, b *builder) error
}

// sources are the log formats lore reads, in discovery order.
var sources = []source{codexSource{}, claudeSource{}, dshSource{}}

// sourceOf returns the source of a host, or nil.
func sourceOf(host string) source {
	for _, s := range sources {
		if s.host() == host {
			return s
		}
	}
	return nil
}

// codexSource reads Codex CLI rollouts (~/.codex/sessions, archived_sessions).
type codexSource struct{}

func (codexSource) host() string { return "codex" }

func (codexSource) find(h Homes, add func(string, fs.FileInfo, bool)) error {
	var first error
	for _, dir := range []string{"archived_sessions", "sessions"} {
		err := walkFiles(filepath.Join(h.Codex, dir), func(p string, info fs.FileInfo) {
			if strings.HasSuffix(p, ".jsonl") {
				add(p, info, dir == "sessions")
			}
		})
		if err != nil && first == nil {
			first = err
		}
	}
	return first
}

func (codexSource) header(p string, info fs.FileInfo) (Summary, bool) { return codexHeader(p, info) }

func (codexSource) titles(h Homes) map[string]string {
	return codexTitles(filepath.Join(h.Codex, "session_index.jsonl"))
}

func (codexSource) read(s *Session, b *builder) error {
	err := eachLine(s.File, func(_ int, l []byte) {
		if _, ok := codexUserText(l); ok {
			b.structured = true
		}
	})
	if err == nil {
		err = eachLine(s.File, func(n int, l []byte) { b.codex(n, l) })
	}
	return err
}

// claudeSource reads Claude Code transcripts (~/.claude/projects), without
// subagents' own transcripts.
type claudeSource struct{}

func (claudeSource) host() string { return "claude" }

func (claudeSource) find(h Homes, add func(string, fs.FileInfo, bool)) error {
	return walkFiles(filepath.Join(h.Claude, "projects"), func(p string, info fs.FileInfo) {
		base := filepath.Base(p)
		if strings.HasSuffix(base, ".jsonl") && !strings.HasPrefix(base, "agent-") && !strings.Contains(filepath.ToSlash(p), "/subagents/") {
			add(p, info, false)
		}
	})
}

func (claudeSource) header(p string, info fs.FileInfo) (Summary, bool) { return claudeHeader(p, info) }

func (claudeSource) titles(Homes) map[string]string { return nil }

func (claudeSource) read(s *Session, b *builder) error {
	return eachLine(s.File, func(n int, l []byte) { b.claude(n, l) })
}

// dshSource reads DSH sessions (~/.dsh/sessions/…/session.jsonl.zstd).
type dshSource struct{}

func (dshSource) host() string { return "dsh" }

func (dshSource) find(h Homes, add func(string, fs.FileInfo, bool)) error {
	return walkFiles(filepath.Join(h.DSH, "sessions"), func(p string, info fs.FileInfo) {
		if filepath.Base(p) == "session.jsonl.zstd" {
			add(p, info, false)
		}
	})
}

func (dshSource) header(p string, info fs.FileInfo) (Summary, bool) { return dshHeader(p, info) }

func (dshSource) titles(Homes) map[string]string { return nil }

func (dshSource) read(s *Session, b *builder) error {
	recs, complete, err := readDSH(s.File, 0)
	s.Partial = !complete
	for _, r := range recs {
		b.dsh(r)
	}
	return err
}

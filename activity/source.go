package activity

import (
	"io/fs"
	"os"
	"path/filepath"
)

// A source is one agent's log format. Each is one file (codex.go,
// claude.go, dsh.go) that says where the agent keeps its logs and how to
// find, head and read them; adding a format is one such file, its entry in
// sources and its fixtures in the contract test (source_test.go). The
// discovery, the session reader, lore activity's flags and the web UI go
// through this interface, never through the host's name.
type source interface {
	// host names the agent ("codex"); it is the sessions' Host and the
	// first part of their tokens.
	host() string
	// home says where the agent keeps its logs and how a person names
	// another folder.
	home() SourceHome
	// find calls add for every log file of this source under homes, with
	// active false for an archived copy that an active one replaces.
	find(home string, add func(path string, info fs.FileInfo, active bool)) error
	// header reads a log's bounded header into a Summary (false: not a
	// session of this source).
	header(path string, info fs.FileInfo) (Summary, bool)
	// titles returns session titles kept beside the logs, by session id
	// (nil when the source has none).
	titles(home string) map[string]string
	// read parses a whole session's records into b (and may mark s partial).
	read(s *Session, b *builder) error
	// contains reports whether a log's bytes hold text, where the bytes
	// are not plain text (DSH's are compressed); nil for plain logs.
	contains(data []byte, text string) bool
}

// SourceHome is where one agent keeps its logs.
type SourceHome struct {
	Host  string   // the source's host ("codex")
	Agent string   // the agent's name ("Codex CLI")
	Dir   string   // the default folder, under the user's home (".codex")
	Env   []string // the environment variables that name another, first wins
	Flag  string   // lore activity's flag that names another ("codex-home")
}

// Sources are the homes of every log format lore reads, in discovery order.
func Sources() []SourceHome {
	out := make([]SourceHome, len(sources))
	for i, s := range sources {
		out[i] = s.home()
		out[i].Host = s.host()
	}
	return out
}

// Homes are where the agents keep their logs, by host ("codex": "/home/me/.codex").
type Homes map[string]string

// DefaultHomes reads each source's environment variables, then the home
// folder.
func DefaultHomes(getenv func(string) string) Homes {
	home, _ := os.UserHomeDir()
	h := Homes{}
	for _, s := range Sources() {
		h[s.Host] = filepath.Join(home, s.Dir)
		for _, v := range s.Env {
			if d := getenv(v); d != "" {
				h[s.Host] = d
				break
			}
		}
	}
	return h
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

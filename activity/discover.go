package activity

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lore-memory/lore/internal/safe"
)

// Workspace is a bound workspace.
type Workspace struct {
	Root    string `json:"root"`
	Vault   string `json:"vault"`
	Project string `json:"project"`
}

// Summary is one session in a list.
type Summary struct {
	Token     string    `json:"session_token"` // host:session_id
	Host      string    `json:"host"`          // codex, claude or dsh
	SessionID string    `json:"session_id"`
	Title     string    `json:"title"`
	Workspace string    `json:"workspace"`
	Project   string    `json:"project"`
	Vault     string    `json:"vault"`
	Started   time.Time `json:"started_at"`
	Updated   time.Time `json:"updated_at"`
	File      string    `json:"file"`
}

// Filter narrows a list.
type Filter struct {
	Project   string
	Workspace string
}

// Page is one page of summaries.
type Page struct {
	Sessions []Summary `json:"sessions"`
	Total    int       `json:"total"`
	Next     string    `json:"next_cursor,omitempty"`
	Snapshot string    `json:"snapshot"`
	Problems []string  `json:"problems,omitempty"` // sources that could not be read
}

// Activity lists and reads sessions for a set of bound workspaces.
type Activity struct {
	homes      Homes
	workspaces []Workspace

	mu        sync.Mutex
	snapshots []*snapshot // newest last, at most 8
	sessions  []*Session  // opened sessions, at most 4
}

type snapshot struct {
	id       string
	filter   Filter
	list     []Summary
	problems []string
}

// New returns the activity of the given workspaces.
func New(h Homes, ws []Workspace) *Activity {
	for i := range ws {
		ws[i].Root = filepath.Clean(ws[i].Root)
	}
	return &Activity{homes: h, workspaces: ws}
}

// Workspaces returns the bound workspaces.
func (a *Activity) Workspaces() []Workspace { return a.workspaces }

// bound returns the workspace a cwd belongs to (the longest root that holds it).
func (a *Activity) bound(cwd string, f Filter) (Workspace, bool) {
	if cwd == "" {
		return Workspace{}, false
	}
	cwd = filepath.Clean(cwd)
	var best Workspace
	ok := false
	for _, w := range a.workspaces {
		if cwd == w.Root || strings.HasPrefix(cwd, w.Root+string(filepath.Separator)) {
			if !ok || len(w.Root) > len(best.Root) {
				best, ok = w, true
			}
		}
	}
	if !ok || (f.Project != "" && best.Project != f.Project) {
		return Workspace{}, false
	}
	if f.Workspace != "" && filepath.Clean(f.Workspace) != best.Root {
		return Workspace{}, false
	}
	return best, true
}

// MaxPage bounds a page; DefaultPage is its default size.
const (
	DefaultPage = 20
	MaxPage     = 100
)

// List returns a page of sessions, newest first. An empty cursor takes a
// new snapshot; a cursor pages through the snapshot it came from.
func (a *Activity) List(f Filter, cursor string, limit int) (Page, error) {
	if limit == 0 {
		limit = DefaultPage
	}
	if limit < 1 || limit > MaxPage {
		return Page{}, fmt.Errorf("limit %d is not 1–%d", limit, MaxPage)
	}
	if f.Workspace != "" {
		found := false
		for _, w := range a.workspaces {
			found = found || w.Root == filepath.Clean(f.Workspace)
		}
		if !found {
			return Page{Sessions: []Summary{}}, nil
		}
	}
	var snap *snapshot
	offset := 0
	if cursor != "" {
		id, off, ok := strings.Cut(cursor, ":")
		n, err := strconv.Atoi(off)
		if !ok || err != nil || n < 0 {
			return Page{}, fmt.Errorf("cursor %q is not one this server gave", cursor)
		}
		offset = n
		a.mu.Lock()
		for _, s := range a.snapshots {
			if s.id == id && s.filter == f {
				snap = s
			}
		}
		a.mu.Unlock()
	}
	if snap == nil {
		snap = a.discover(f)
	}
	p := Page{Total: len(snap.list), Snapshot: snap.id, Problems: snap.problems, Sessions: []Summary{}}
	if offset < len(snap.list) {
		end := min(offset+limit, len(snap.list))
		p.Sessions = append(p.Sessions, snap.list[offset:end]...)
		if end < len(snap.list) {
			p.Next = fmt.Sprintf("%s:%d", snap.id, end)
		}
	}
	return p, nil
}

// discover reads every log's header and makes a snapshot.
func (a *Activity) discover(f Filter) *snapshot {
	var b [6]byte
	rand.Read(b[:])
	snap := &snapshot{id: "snap_" + hex.EncodeToString(b[:]), filter: f}
	byKey := map[string]Summary{}
	add := func(s Summary, replace bool) {
		if _, ok := byKey[s.Token]; ok && !replace {
			return
		}
		byKey[s.Token] = s
	}
	jobs, results, found := a.headers(snap)
	titles := map[string]map[string]string{}
	for _, src := range sources {
		if home := a.homes[src.host()]; home != "" {
			titles[src.host()] = src.titles(home)
		}
	}
	for i, j := range jobs {
		if !found[i] {
			continue
		}
		s := results[i]
		w, ok := a.bound(s.Workspace, f)
		if !ok {
			continue
		}
		s.Project, s.Vault = w.Project, w.Vault
		if t := titles[s.Host][s.SessionID]; t != "" {
			s.Title = t
		}
		// An active copy wins over an archived one (archived come first).
		add(s, j.active)
	}
	for _, s := range byKey {
		snap.list = append(snap.list, s)
	}
	sort.Slice(snap.list, func(i, j int) bool {
		x, y := snap.list[i], snap.list[j]
		if !x.Updated.Equal(y.Updated) {
			return x.Updated.After(y.Updated)
		}
		return x.Token < y.Token
	})
	a.mu.Lock()
	a.snapshots = append(a.snapshots, snap)
	if len(a.snapshots) > 8 {
		a.snapshots = a.snapshots[1:]
	}
	a.mu.Unlock()
	return snap
}

// logFile is a session log a source found.
type logFile struct {
	src    source
	path   string
	info   fs.FileInfo
	active bool // not archived
}

// headers finds the logs of every source, then reads their headers in
// parallel: results[i] is jobs[i]'s summary when found[i]. A source that
// fails is named in snap's problems.
func (a *Activity) headers(snap *snapshot) (jobs []logFile, results []Summary, found []bool) {
	for _, src := range sources {
		home := a.homes[src.host()]
		if home == "" {
			continue // a source without a home is not read (not the working directory)
		}
		err := src.find(home, func(p string, info fs.FileInfo, active bool) {
			jobs = append(jobs, logFile{src, p, info, active})
		})
		if err != nil {
			snap.problems = append(snap.problems, src.host()+": "+err.Error())
		}
	}
	results = make([]Summary, len(jobs))
	found = make([]bool, len(jobs))
	var wg sync.WaitGroup
	var caught safe.Catcher
	next := make(chan int)
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				func() {
					defer caught.Catch() // the next log is still read
					results[i], found[i] = jobs[i].src.header(jobs[i].path, jobs[i].info)
				}()
			}
		}()
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	wg.Wait()
	caught.Rethrow()
	return jobs, results, found
}

// walkFiles calls fn for every regular file under root (a missing root is
// no error: that agent is not installed).
func walkFiles(root string, fn func(string, fs.FileInfo)) error {
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return nil // an unreadable folder is skipped
		}
		if d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				fn(p, info)
			}
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// headerBytes bounds what discovery reads of a log.
const headerBytes = 64 << 10

// headLines returns the complete lines in the first headerBytes of a file.
func headLines(p string) ([][]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, headerBytes)
	n, err := io.ReadFull(f, buf)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, err
	}
	buf = buf[:n]
	var out [][]byte
	for len(buf) > 0 {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			if n < headerBytes {
				out = append(out, buf) // the file's last line
			}
			break
		}
		out = append(out, buf[:i])
		buf = buf[i+1:]
	}
	return out, nil
}

func parseTime(s string) time.Time {
	for _, layout := range []string{time.RFC3339Nano, time.RFC3339} {
		if t, err := time.Parse(layout, s); err == nil {
			return t
		}
	}
	return time.Time{}
}

func preview(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 80 {
		s = string(r[:80]) + "…"
	}
	return s
}

// Mentions reports whether a session's log holds text (a Draft's id in a
// store call's result, say): the file's bytes, or what its source decodes
// them to.
func Mentions(s Summary, text string) bool {
	data, err := os.ReadFile(s.File)
	if err != nil {
		return false
	}
	if bytes.Contains(data, []byte(text)) {
		return true
	}
	if src := sourceOf(s.Host); src != nil {
		return src.contains(data, text)
	}
	return false
}

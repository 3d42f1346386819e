package activity

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
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

	"github.com/klauspost/compress/zstd"

	"github.com/lore-memory/lore/internal/safe"
)

// Homes are where the agents keep their logs.
type Homes struct {
	Codex  string // default ~/.codex ($LORE_CODEX_HOME, else $CODEX_HOME)
	Claude string // default ~/.claude ($LORE_CLAUDE_HOME)
	DSH    string // default ~/.dsh ($LORE_DSH_HOME)
}

// DefaultHomes reads the environment, then the home folder.
func DefaultHomes(getenv func(string) string) Homes {
	home, _ := os.UserHomeDir()
	pick := func(vars []string, def string) string {
		for _, v := range vars {
			if s := getenv(v); s != "" {
				return s
			}
		}
		return filepath.Join(home, def)
	}
	return Homes{
		Codex:  pick([]string{"LORE_CODEX_HOME", "CODEX_HOME"}, ".codex"),
		Claude: pick([]string{"LORE_CLAUDE_HOME"}, ".claude"),
		DSH:    pick([]string{"LORE_DSH_HOME"}, ".dsh"),
	}
}

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
		titles[src.host()] = src.titles(a.homes)
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
		err := src.find(a.homes, func(p string, info fs.FileInfo, active bool) {
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

func codexTitles(p string) map[string]string {
	out := map[string]string{}
	f, err := os.Open(p)
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var r struct {
			ID         string `json:"id"`
			Title      string `json:"title"`
			ThreadName string `json:"thread_name"`
		}
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.ID != "" {
			if r.ThreadName != "" {
				r.Title = r.ThreadName
			}
			if r.Title != "" {
				out[r.ID] = r.Title
			}
		}
	}
	return out
}

func codexHeader(p string, info fs.FileInfo) (Summary, bool) {
	lines, err := headLines(p)
	if err != nil {
		return Summary{}, false
	}
	for _, l := range lines {
		var r struct {
			Type    string `json:"type"`
			Payload struct {
				ID        string          `json:"id"`
				Cwd       string          `json:"cwd"`
				Timestamp string          `json:"timestamp"`
				Source    json.RawMessage `json:"source"`
			} `json:"payload"`
		}
		if json.Unmarshal(l, &r) != nil || r.Type != "session_meta" {
			continue
		}
		if r.Payload.ID == "" || isSubagent(r.Payload.Source) {
			return Summary{}, false
		}
		s := Summary{Host: "codex", SessionID: r.Payload.ID, Workspace: r.Payload.Cwd, Started: parseTime(r.Payload.Timestamp), Updated: info.ModTime().UTC(), File: p}
		s.Token = "codex:" + s.SessionID
		s.Title = firstCodexPrompt(lines)
		return s, true
	}
	return Summary{}, false
}

// isSubagent reads session_meta.source: "subagent", or {"subagent": …}.
func isSubagent(src json.RawMessage) bool {
	var s string
	if json.Unmarshal(src, &s) == nil {
		return strings.Contains(strings.ToLower(s), "subagent")
	}
	var m map[string]any
	if json.Unmarshal(src, &m) == nil {
		_, ok := m["subagent"]
		return ok
	}
	return false
}

func firstCodexPrompt(lines [][]byte) string {
	for _, l := range lines {
		if t, ok := codexUserText(l); ok {
			return preview(t)
		}
	}
	return ""
}

func preview(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 80 {
		s = string(r[:80]) + "…"
	}
	return s
}

func claudeHeader(p string, info fs.FileInfo) (Summary, bool) {
	lines, err := headLines(p)
	if err != nil {
		return Summary{}, false
	}
	s := Summary{Host: "claude", Updated: info.ModTime().UTC(), File: p}
	for _, l := range lines {
		var r claudeRecord
		if json.Unmarshal(l, &r) != nil {
			continue
		}
		if r.Type == "summary" && s.Title == "" && r.Summary != "" {
			s.Title = preview(r.Summary)
		}
		if r.IsSidechain {
			continue
		}
		if s.SessionID == "" && r.SessionID != "" {
			s.SessionID, s.Workspace, s.Started = r.SessionID, r.Cwd, parseTime(r.Timestamp)
		}
		if s.Title == "" {
			if t, ok := r.prompt(); ok {
				s.Title = preview(t)
			}
		}
	}
	if s.SessionID == "" {
		return Summary{}, false
	}
	s.Token = "claude:" + s.SessionID
	return s, true
}

func dshHeader(p string, info fs.FileInfo) (Summary, bool) {
	recs, _, err := readDSH(p, headerBytes)
	if err != nil && len(recs) == 0 {
		return Summary{}, false
	}
	s := Summary{Host: "dsh", Updated: info.ModTime().UTC(), File: p}
	for _, r := range recs {
		switch r.Type {
		case "session":
			s.SessionID, s.Workspace, s.Started = r.str("id", "sessionId"), r.str("workspace", "cwd", "workspaceRoot"), parseTime(r.str("createdAt", "timestamp"))
		case "session/title":
			s.Title = preview(r.str("title"))
		}
	}
	if s.SessionID == "" {
		return Summary{}, false
	}
	s.Token = "dsh:" + s.SessionID
	return s, true
}

// dshRecord is one DSH record, kept loosely typed (the log format evolves).
type dshRecord struct {
	Type string
	m    map[string]any
}

func (r dshRecord) str(keys ...string) string {
	for _, k := range keys {
		if v, ok := r.m[k].(string); ok && v != "" {
			return v
		}
	}
	return ""
}

// readDSH decodes the complete zstd frames of a DSH session (each a JSONL
// record, or several), stopping after limit bytes of output when limit > 0.
// A half-written last frame ends the read without an error (complete is
// false); a file that is not zstd at all is an error.
func readDSH(p string, limit int) (recs []dshRecord, complete bool, err error) {
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, false, err
	}
	recs, complete, err = decodeDSH(data, limit)
	if err != nil {
		err = fmt.Errorf("%s: %w", p, err)
	}
	return recs, complete, err
}

var (
	zdecOnce sync.Once
	zdec     *zstd.Decoder
	zdecErr  error
)

// decodeDSH decodes a DSH session's bytes (see readDSH). One decoder serves
// every call (DecodeAll is safe for concurrent use).
func decodeDSH(data []byte, limit int) (recs []dshRecord, complete bool, err error) {
	zdecOnce.Do(func() {
		zdec, zdecErr = zstd.NewReader(nil, zstd.WithDecoderConcurrency(2), zstd.WithDecoderMaxMemory(256<<20))
	})
	if zdecErr != nil {
		return nil, false, zdecErr
	}
	dec := zdec
	var out []byte
	rest := data
	frames := 0
	for len(rest) > 0 {
		n, ferr := frameLen(rest)
		if ferr != nil {
			if frames == 0 {
				return nil, false, fmt.Errorf("not a zstd file: %v", ferr)
			}
			break // a half-written last frame: keep the prefix
		}
		plain, derr := dec.DecodeAll(rest[:n], nil)
		if derr != nil {
			if frames == 0 {
				return nil, false, derr
			}
			break
		}
		out = append(out, plain...)
		rest = rest[n:]
		frames++
		if limit > 0 && len(out) >= limit {
			break
		}
	}
	complete = len(rest) == 0
	for _, l := range bytes.Split(out, []byte("\n")) {
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		var m map[string]any
		if json.Unmarshal(l, &m) != nil {
			continue
		}
		t, _ := m["type"].(string)
		recs = append(recs, dshRecord{Type: t, m: m})
	}
	return recs, complete, nil
}

// frameLen returns the length of the zstd frame at the start of b, from its
// header and block headers, without decoding it; an incomplete frame is an
// error.
func frameLen(b []byte) (int, error) {
	if len(b) >= 8 && b[0]&0xF0 == 0x50 && b[1] == 0x2A && b[2] == 0x4D && b[3] == 0x18 {
		n := int(uint32(b[4]) | uint32(b[5])<<8 | uint32(b[6])<<16 | uint32(b[7])<<24) // skippable frame
		if len(b) < 8+n {
			return 0, io.ErrUnexpectedEOF
		}
		return 8 + n, nil
	}
	if len(b) < 5 || b[0] != 0x28 || b[1] != 0xB5 || b[2] != 0x2F || b[3] != 0xFD {
		return 0, errors.New("no zstd frame magic")
	}
	fhd := b[4]
	dictIDFlag, singleSegment, fcsFlag, checksum := fhd&3, fhd>>5&1, fhd>>6, fhd>>2&1
	pos := 5
	if singleSegment == 0 {
		pos++ // window descriptor
	}
	pos += []int{0, 1, 2, 4}[dictIDFlag]
	fcs := []int{0, 2, 4, 8}[fcsFlag]
	if fcsFlag == 0 && singleSegment == 1 {
		fcs = 1
	}
	pos += fcs
	for {
		if len(b) < pos+3 {
			return 0, io.ErrUnexpectedEOF
		}
		h := uint32(b[pos]) | uint32(b[pos+1])<<8 | uint32(b[pos+2])<<16
		last, typ, size := h&1, h>>1&3, int(h>>3)
		pos += 3
		switch typ {
		case 1: // RLE: one byte
			pos++
		case 3:
			return 0, errors.New("reserved block type")
		default:
			pos += size
		}
		if len(b) < pos {
			return 0, io.ErrUnexpectedEOF
		}
		if last == 1 {
			break
		}
	}
	if checksum == 1 {
		pos += 4
	}
	if len(b) < pos {
		return 0, io.ErrUnexpectedEOF
	}
	return pos, nil
}

// Mentions reports whether a session's log holds text (a Draft's id in a
// store call's result, say): the file itself, or, for DSH, its records.
func Mentions(s Summary, text string) bool {
	data, err := os.ReadFile(s.File)
	if err != nil {
		return false
	}
	if bytes.Contains(data, []byte(text)) {
		return true
	}
	if s.Host != "dsh" {
		return false
	}
	recs, _, _ := decodeDSH(data, 0)
	for _, r := range recs {
		if b, err := json.Marshal(r.m); err == nil && bytes.Contains(b, []byte(text)) {
			return true
		}
	}
	return false
}

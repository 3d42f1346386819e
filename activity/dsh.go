package activity

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// dshSource reads DSH sessions (~/.dsh/sessions/…/session.jsonl.zstd).
type dshSource struct{}

func (dshSource) host() string { return "dsh" }

func (dshSource) home() SourceHome {
	return SourceHome{Agent: "DSH", Dir: ".dsh", Env: []string{"LORE_DSH_HOME"}, Flag: "dsh-home"}
}

func (dshSource) find(home string, add func(string, fs.FileInfo, bool)) error {
	return walkFiles(filepath.Join(home, "sessions"), func(p string, info fs.FileInfo) {
		if filepath.Base(p) == "session.jsonl.zstd" {
			add(p, info, false)
		}
	})
}

func (dshSource) header(p string, info fs.FileInfo) (Summary, bool) { return dshHeader(p, info) }

func (dshSource) titles(string) map[string]string { return nil }

// contains looks in the decoded records: the file's bytes are compressed.
func (dshSource) contains(data []byte, text string) bool {
	recs, _, _ := decodeDSH(data, 0)
	for _, r := range recs {
		if b, err := json.Marshal(r.m); err == nil && bytes.Contains(b, []byte(text)) {
			return true
		}
	}
	return false
}

func (dshSource) read(s *Session, b *builder) error {
	recs, complete, err := readDSH(s.File, 0)
	s.Partial = !complete
	for _, r := range recs {
		b.dsh(r)
	}
	return err
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

// frameLen returns the length of the zstd frame at the start of b without
// decoding it: zstd.Header reads the frame header, then the block headers
// (3 bytes each: last flag, type, size) are walked to the frame's end; an
// incomplete frame is an error.
func frameLen(b []byte) (int, error) {
	var h zstd.Header
	if err := h.Decode(b); err != nil {
		return 0, err
	}
	if h.Skippable {
		n := h.HeaderSize + int(h.SkippableSize)
		if len(b) < n {
			return 0, io.ErrUnexpectedEOF
		}
		return n, nil
	}
	pos := h.HeaderSize
	for last := false; !last; {
		if len(b) < pos+3 {
			return 0, io.ErrUnexpectedEOF
		}
		bh := uint32(b[pos]) | uint32(b[pos+1])<<8 | uint32(b[pos+2])<<16
		pos += 3
		last = bh&1 == 1
		switch bh >> 1 & 3 {
		case 1: // RLE: one byte repeated
			pos++
		case 3:
			return 0, errors.New("reserved block type")
		default: // raw or compressed: size bytes
			pos += int(bh >> 3)
		}
	}
	if h.HasCheckSum {
		pos += 4
	}
	if len(b) < pos {
		return 0, io.ErrUnexpectedEOF
	}
	return pos, nil
}

func (b *builder) dsh(r dshRecord) {
	at := parseTime(r.str("timestamp", "at", "createdAt"))
	switch r.Type {
	case "user/message":
		src, _ := r.m["source"].(map[string]any)
		if kind, _ := src["kind"].(string); kind != "user" {
			return
		}
		if text := r.str("text", "content", "message"); text != "" {
			b.human(text, at)
		}
	case "tool/call":
		name := r.str("name", "tool")
		server, tool, ok := splitToolName(name)
		if !ok || !loreServers[server] {
			return
		}
		args := r.m["arguments"]
		if args == nil {
			args = r.m["input"]
		}
		q, st, ok := activateArgs(tool, args)
		if !ok {
			return
		}
		b.call(r.str("callId"), Activation{Query: q, HadState: st, At: at})
	case "tool/result":
		isErr, _ := r.m["isError"].(bool)
		res := r.m["result"]
		if res == nil {
			res = r.m["output"]
		}
		if e, ok := r.m["error"]; ok && e != nil {
			res, isErr = e, true
		}
		b.result(r.str("callId"), res, isErr)
	}
}

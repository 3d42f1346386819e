package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"sync"
)

// maxMessage bounds one JSON-RPC message read from stdin (64 MiB: the
// largest argument, offload_context's 8 MiB of text, fits even with every
// character escaped as \uXXXX, and a tool can still say by how much an
// argument is over its limit): tools refuse oversized arguments themselves,
// with a tool error that says the limit; a longer message is answered with a
// JSON-RPC error. maxDepth bounds how deeply a message nests (no tool's
// input goes past 8 levels) and maxID how long a request id may be; both are
// answered with a JSON-RPC error before any decoding, so one request cannot
// cost without bound or go unanswered.
const (
	maxMessage = 64 << 20
	maxDepth   = 64
	maxID      = 256
)

// filterInput copies newline-delimited JSON-RPC messages from in to w,
// answering a server/discover request itself with a JSON-RPC error (see the
// package doc). It closes w at the end of in.
func filterInput(in io.Reader, w *io.PipeWriter, out *lineWriter) {
	r := bufio.NewReaderSize(in, 64*1024)
	for {
		line, cut, err := readLine(r)
		if cut {
			out.writeMessage(map[string]any{
				"jsonrpc": "2.0", "id": leadingID(line),
				"error": map[string]any{"code": -32600, "message": fmt.Sprintf("message larger than %d MiB", maxMessage>>20)},
			})
			line = nil
		}
		if len(bytes.TrimSpace(line)) > 0 {
			if problem := shapeProblem(line); problem != "" {
				out.writeMessage(map[string]any{
					"jsonrpc": "2.0", "id": leadingID(line),
					"error": map[string]any{"code": -32600, "message": problem},
				})
			} else if id, ok := discoverID(line); ok {
				out.writeMessage(map[string]any{
					"jsonrpc": "2.0", "id": id,
					"error": map[string]any{"code": -32601, "message": "method not found: server/discover; this server speaks the initialize handshake (protocol 2025-11-25)"},
				})
			} else if _, werr := w.Write(append(line, '\n')); werr != nil {
				return
			}
		}
		if err != nil {
			w.Close()
			return
		}
	}
}

// readLine reads one line without its newline; of a line longer than
// maxMessage only the first and the last 4 KiB are kept (where a request's
// id is), and cut is true.
func readLine(r *bufio.Reader) (line []byte, cut bool, err error) {
	var tail []byte
	for {
		chunk, isPrefix, err := r.ReadLine()
		switch {
		case !cut && len(line)+len(chunk) <= maxMessage:
			line = append(line, chunk...)
		case !cut:
			cut = true
			line = line[:min(len(line), 4096)]
			tail = append(tail, chunk...)
		default:
			tail = append(tail, chunk...)
		}
		if len(tail) > 8192 {
			tail = append(tail[:0], tail[len(tail)-4096:]...)
		}
		if err != nil || !isPrefix {
			if cut {
				line = append(append(line, "\x00"...), tail[max(0, len(tail)-4096):]...)
			}
			return line, cut, err
		}
	}
}

var (
	idField = regexp.MustCompile(`"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)`)
	// A top-level id written last (as the TypeScript SDK writes it).
	lastID = regexp.MustCompile(`"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)\s*}\s*$`)
	// A top-level id written first, or after "jsonrpc".
	firstID = regexp.MustCompile(`^\s*{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)`)
)

// leadingID finds the id of a request that will not be decoded, in the
// first or last 4 KiB of the message (null when there is none, or it is
// longer than maxID: an id is never echoed at any length).
func leadingID(line []byte) json.RawMessage {
	head, tail := line[:min(len(line), 4096)], line[max(0, len(line)-4096):]
	for _, m := range [][][]byte{lastID.FindSubmatch(tail), firstID.FindSubmatch(head), idField.FindSubmatch(head)} {
		if m != nil && len(m[1]) <= maxID {
			return json.RawMessage(m[1])
		}
	}
	return json.RawMessage("null")
}

// shapeProblem scans a message once, without decoding it, and says what is
// wrong with its shape: nesting deeper than maxDepth, or a top-level request
// id longer than maxID bytes ("" when neither). It reads every message, so it
// decodes none: the same scan finds the id's value and measures it.
func shapeProblem(line []byte) string {
	depth, inString, escaped := 0, false, false
	strStart, idStart := -1, -1
	for i, c := range line {
		switch {
		case escaped:
			escaped = false
		case inString:
			if c == '\\' {
				escaped = true
			} else if c == '"' {
				inString = false
				if depth == 1 && idStart < 0 && i-strStart == 3 && string(line[strStart:i+1]) == `"id"` {
					if j := skipSpace(line, i+1); j < len(line) && line[j] == ':' {
						idStart = skipSpace(line, j+1)
					}
				}
			}
		case c == '"':
			inString, strStart = true, i
		case c == '{' || c == '[':
			if depth++; depth > maxDepth {
				return fmt.Sprintf("message nests deeper than %d levels", maxDepth)
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	if n := valueLen(line, idStart); n > maxID {
		return fmt.Sprintf("request id is %d bytes; the limit is %d", n, maxID)
	}
	return ""
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// valueLen measures the JSON scalar that starts at i (a string with its
// quotes, or a number or literal up to the next delimiter); 0 when i < 0.
func valueLen(b []byte, i int) int {
	if i < 0 || i >= len(b) {
		return 0
	}
	if b[i] == '"' {
		for j := i + 1; j < len(b); j++ {
			switch b[j] {
			case '\\':
				j++
			case '"':
				return j - i + 1
			}
		}
		return len(b) - i
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ' ' {
		j++
	}
	return j - i
}

// discoverID returns the id of a server/discover request.
func discoverID(line []byte) (json.RawMessage, bool) {
	if !bytes.Contains(line, []byte("server/discover")) {
		return nil, false
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(line, &m) != nil || m.Method != "server/discover" || len(m.ID) == 0 {
		return nil, false
	}
	return m.ID, true
}

// lineWriter serializes whole messages to stdout and makes every tool
// result say isError explicitly.
type lineWriter struct {
	mu  sync.Mutex
	w   io.Writer
	buf []byte
}

func (lw *lineWriter) Write(p []byte) (int, error) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	lw.buf = append(lw.buf, p...)
	for {
		i := bytes.IndexByte(lw.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		msg := withIsError(lw.buf[:i])
		if _, err := lw.w.Write(append(msg, '\n')); err != nil {
			return 0, err
		}
		lw.buf = lw.buf[i+1:]
	}
}

func (lw *lineWriter) writeMessage(v any) {
	data, _ := json.Marshal(v)
	lw.Write(append(data, '\n'))
}

// withIsError adds "isError": false to a tool result that lacks it.
func withIsError(msg []byte) []byte {
	if !bytes.Contains(msg, []byte(`"structuredContent"`)) || bytes.Contains(msg, []byte(`"isError"`)) {
		return msg
	}
	// mcp-go writes a response as {"jsonrpc":…,"id":…,"result":{…}} and a
	// successful tool result without isError (false is omitted): the key is
	// added at the start of the result object, without decoding and encoding
	// the whole message again. (An id cannot hold the unescaped bytes
	// "result":{, so the first match is the key.)
	i := bytes.Index(msg, []byte(`"result":{`))
	if i < 0 {
		return msg
	}
	i += len(`"result":{`)
	out := make([]byte, 0, len(msg)+len(`"isError":false,`))
	out = append(append(append(out, msg[:i]...), `"isError":false,`...), msg[i:]...)
	return out
}

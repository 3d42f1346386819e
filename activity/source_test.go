package activity

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// sampleLog is one session as a source's log holds it: its id, workspace,
// one person's prompt, one activate call and its result with one fragment,
// then a record half written (the agent is still writing). Each source
// writes it in its own format (sampleWriters); the contract test reads it
// back through the public API.
type sampleLog struct {
	id, cwd, prompt, query string
}

// sampleWriters write a sampleLog under a source's home, in its format, and
// return the file's path. A source without one fails TestSourceContract.
var sampleWriters = map[string]func(t *testing.T, home string, s sampleLog) string{
	"codex": func(t *testing.T, home string, s sampleLog) string {
		p := filepath.Join(home, "sessions/2026/12/01/rollout-2026-12-01T10-00-00-"+s.id+".jsonl")
		return writeLines(t, p, []byte(strings.Join([]string{
			`{"timestamp":"2026-12-01T10:00:00Z","type":"session_meta","payload":{"id":` + q(s.id) + `,"cwd":` + q(s.cwd) + `,"timestamp":"2026-12-01T10:00:00Z"}}`,
			`{"timestamp":"2026-12-01T10:00:01Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":` + q(s.prompt) + `}]}}`,
			`{"timestamp":"2026-12-01T10:00:02Z","type":"response_item","payload":{"type":"function_call","name":"mcp__lore__memory","arguments":` + q(`{"op":{"activate":{"query":`+q(s.query)+`}}}`) + `,"call_id":"fc_1"}}`,
			`{"timestamp":"2026-12-01T10:00:03Z","type":"response_item","payload":{"type":"function_call_output","call_id":"fc_1","output":` + q(sampleResult) + `}}`,
			`{"timestamp":"2026-12-01T10:00:04Z","type":"response_item","payload":{"type":"mess`,
		}, "\n")))
	},
	"claude": func(t *testing.T, home string, s sampleLog) string {
		p := filepath.Join(home, "projects/-work-sample/"+s.id+".jsonl")
		rec := func(typ, content string) string {
			return `{"type":"` + typ + `","sessionId":` + q(s.id) + `,"cwd":` + q(s.cwd) + `,"timestamp":"2026-12-01T10:00:00Z","message":{"role":"` + typ + `","content":` + content + `}}`
		}
		// Claude Code 2.1.3xx opens a transcript with records that carry
		// the session but no cwd: queue-operation in -p mode, last-prompt
		// and mode in interactive sessions.
		return writeLines(t, p, []byte(strings.Join([]string{
			`{"type":"queue-operation","operation":"enqueue","timestamp":"2026-12-01T09:59:59Z","sessionId":` + q(s.id) + `}`,
			`{"type":"last-prompt","lastPrompt":"earlier","sessionId":` + q(s.id) + `}`,
			`{"type":"mode","mode":"default","sessionId":` + q(s.id) + `}`,
			rec("user", q(s.prompt)),
			rec("assistant", `[{"type":"tool_use","id":"tu_1","name":"mcp__lore__memory","input":{"op":{"activate":{"query":`+q(s.query)+`}}}}]`),
			rec("user", `[{"type":"tool_result","tool_use_id":"tu_1","content":[{"type":"text","text":`+q(sampleResult)+`}]}]`),
			`{"type":"user","sessionId":`,
		}, "\n")))
	},
	"dsh": func(t *testing.T, home string, s sampleLog) string {
		p := filepath.Join(home, "sessions/-work-sample/"+s.id+"/session.jsonl.zstd")
		enc, err := zstd.NewWriter(nil)
		if err != nil {
			t.Fatal(err)
		}
		var file []byte
		for _, rec := range []string{
			`{"type":"session","id":` + q(s.id) + `,"workspace":` + q(s.cwd) + `,"createdAt":"2026-12-01T10:00:00Z"}`,
			`{"type":"user/message","source":{"kind":"user"},"text":` + q(s.prompt) + `,"timestamp":"2026-12-01T10:00:01Z"}`,
			`{"type":"tool/call","callId":"k1","name":"mcp__lore__memory","arguments":{"op":{"activate":{"query":` + q(s.query) + `}}}}`,
			`{"type":"tool/result","callId":"k1","result":{"structuredContent":` + sampleResult + `}}`,
		} {
			file = append(file, enc.EncodeAll([]byte(rec+"\n"), nil)...)
		}
		half := enc.EncodeAll([]byte(`{"type":"user/message","source":{"kind":"user"},"text":"later"}`+"\n"), nil)
		return writeLines(t, p, append(file, half[:len(half)/2]...))
	},
}

const sampleResult = `{"run_id":"run_x","fragments":[{"action":"add","unit_key":"mem_1/steps/0/0","path":"howto/deploy.md","heading_path":["Deploy","Steps"],"content":"Run make deploy."}],"removed":[]}`

func q(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func writeLines(t *testing.T, p string, data []byte) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSourceContract runs every log source through the same checks, as one
// suite runs against every backend: its home is declared in full and read
// from its environment variable; its sample session is found, headed and
// read (the prompt, the activation and its fragment) through List and Open,
// with the half-written tail neither an error nor a request; its unbound
// workspace is not listed; garbage where its logs go and a missing home are
// neither errors nor sessions; and a session's text is found by Mentions.
func TestSourceContract(t *testing.T) {
	for _, src := range Sources() {
		t.Run(src.Host, func(t *testing.T) {
			write := sampleWriters[src.Host]
			if write == nil {
				t.Fatalf("source %s has no sample writer in this test", src.Host)
			}
			if src.Agent == "" || src.Dir == "" || len(src.Env) == 0 || !strings.HasSuffix(src.Flag, "-home") {
				t.Fatalf("source %s declares its home incompletely: %+v", src.Host, src)
			}
			home := t.TempDir()
			env := map[string]string{src.Env[0]: home}
			if got := DefaultHomes(func(k string) string { return env[k] })[src.Host]; got != home {
				t.Fatalf("$%s=%s: home %q", src.Env[0], home, got)
			}

			s := sampleLog{id: "s-" + src.Host, cwd: "/work/sample", prompt: "How do we deploy?", query: "deploy steps"}
			write(t, home, s)
			write(t, home, sampleLog{id: "elsewhere", cwd: "/work/other", prompt: "x", query: "y"})
			// Garbage where this source's logs go.
			p := write(t, home, sampleLog{id: "garbage", cwd: "/work/sample", prompt: "x", query: "y"})
			if err := os.WriteFile(p, []byte("\x00\xffnot a log\n{\"type\":"), 0o644); err != nil {
				t.Fatal(err)
			}

			a := New(Homes{src.Host: home}, []Workspace{{Root: "/work/sample", Vault: "/v", Project: "api"}})
			page, err := a.List(Filter{}, "", 50)
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Sessions) != 1 {
				t.Fatalf("listed %d sessions, want the one sample in the bound workspace: %+v", len(page.Sessions), page.Sessions)
			}
			sum := page.Sessions[0]
			if sum.Host != src.Host || sum.SessionID != s.id || sum.Token != src.Host+":"+s.id || sum.Workspace != s.cwd || sum.Project != "api" {
				t.Fatalf("summary %+v", sum)
			}
			open, err := a.Open(context.Background(), sum.Token, nil, 1, 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(open.Requests) != 1 || open.Requests[0].Text != s.prompt {
				t.Fatalf("requests %+v, want the one prompt %q (the half-written record is not one)", open.Requests, s.prompt)
			}
			acts := open.Requests[0].Activations
			if len(acts) != 1 || acts[0].Query != s.query || acts[0].Status != "ok" || len(acts[0].Fragments) != 1 || acts[0].Fragments[0].Path != "howto/deploy.md" {
				t.Fatalf("activations %+v", acts)
			}
			if !Mentions(sum, "howto/deploy.md") || Mentions(sum, "no such text anywhere") {
				t.Fatal("Mentions does not read this source's log")
			}

			// A home that does not exist is no session and no error.
			a = New(Homes{src.Host: filepath.Join(home, "missing")}, []Workspace{{Root: "/work/sample", Vault: "/v", Project: "api"}})
			if page, err := a.List(Filter{}, "", 50); err != nil || len(page.Sessions) != 0 {
				t.Fatalf("missing home: %v %+v", err, page)
			}
		})
	}
	for host := range sampleWriters {
		if sourceOf(host) == nil {
			t.Errorf("sampleWriters has %s, which is no source", host)
		}
	}
}

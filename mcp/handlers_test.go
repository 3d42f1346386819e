package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/lore-memory/lore/vault"
)

// Every tool of every profile, called at the handler: one good call and one
// bad one each, the bad one an invalid_input (or the tool's own code) error.
func TestHandlers_EveryToolAnswersAndRefuses(t *testing.T) {
	ctx := context.Background()
	trace := "$ go test ./...\n--- FAIL: TestSync\n    sync_test.go:42: error: remote rejected\nFAIL\n$ git fetch origin\n$ go test ./...\nok  example.com/sync 0.02s\n"
	traceJSON, _ := json.Marshal(trace)
	var long strings.Builder
	for i := 0; i < 200; i++ {
		long.WriteString("  compiling module\n")
	}
	longJSON, _ := json.Marshal("$ make\n" + long.String() + "error: boom\n")
	type call struct {
		tool      string
		good, bad string
	}
	profiles := map[string][]call{
		"memory": {
			{"memory", `{"op":{"activate":{"query":"release TTL"}}}`, `{"op":{"activate":{"query":" "}}}`},
			{"memory", `{"op":{"load":{"ids":["mem_release"],"knownHashes":{"mem_release":"sha256:x"}}}}`, `{"op":{"activate":{"query":"x"},"load":{"ids":["a"]}}}`},
		},
		"vault": {
			{"distill_session_skill", `{"raw_trace":` + string(traceJSON) + `,"dry_run":true}`, `{}`},
			{"offload_context", `{"content":` + string(longJSON) + `,"task_id":"t1"}`, `{"content":""}`},
			{"gc_session_context", `{"trajectory_json":"{\"session_id\":\"s\",\"turns\":[{\"role\":\"user\",\"content\":\"hi\"}]}"}`, `{"trajectory_json":"not json"}`},
		},
		"journal": {
			{"now", `{}`, `{"x":1}`},
			{"keywords_list", `{"namespace":"u1/p1"}`, `{"namespace":"u1"}`},
			{"keywords_list_global", `{}`, `{"namespace":"u1/p1"}`},
			{"remember", `{"namespace":"u1/p1","keywords":["cache"],"slice":"TTL is 30 s.","diary":"after load tests"}`, `{"namespace":"u1/p1","keywords":[],"slice":"x","diary":"y"}`},
			{"recall", `{"namespace":"u1/p1","keywords":["cache"],"include_diary":true}`, `{"namespace":"u1/p1","limit":0}`},
		},
	}
	for profile, calls := range profiles {
		ts := newTestServer(t, profile, releaseFiles)
		handlers := map[string]func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error){}
		for _, tl := range ts.Tools() {
			name := tl.Name
			handlers[name] = func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
				return ts.srv.GetTool(name).Handler(ctx, req)
			}
		}
		for _, c := range calls {
			h := handlers[c.tool]
			if h == nil {
				t.Fatalf("%s: no tool %s", profile, c.tool)
			}
			for _, args := range []string{c.good, c.bad} {
				var req mcpgo.CallToolRequest
				req.Params.Name = c.tool
				req.Params.Arguments = json.RawMessage(args)
				res, err := h(ctx, req)
				if err != nil {
					t.Fatalf("%s %s: %v", c.tool, args, err)
				}
				text := res.Content[0].(mcpgo.TextContent).Text
				if want := args == c.bad; res.IsError != want {
					t.Errorf("%s %s: isError %v (%s)", c.tool, args, res.IsError, text)
				}
				if res.IsError {
					var e errorObject
					if err := json.Unmarshal([]byte(text), &e); err != nil || e.Error.Code == "" {
						t.Errorf("%s %s: the error is not {error: {code, message}}: %s", c.tool, args, text)
					}
					if e.Error.Code != vault.CodeInvalid && e.Error.Code != vault.CodeNotFound {
						t.Errorf("%s %s: code %s", c.tool, args, e.Error.Code)
					}
				}
			}
		}
	}
}

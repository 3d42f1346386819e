package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/lore-memory/lore/vault"
)

// handlerCalls are, for every tool, calls that must answer and calls that
// must be refused. TestHandlers_EveryToolAnswersAndRefuses runs them over
// the registry (profiles), so a tool registered without calls here fails
// it. NODE in an argument is the node id the vault profile's
// offload_context call made (it runs before inspect_log_node).
var handlerCalls = map[string]struct{ good, bad []string }{
	"memory": {
		good: []string{
			`{"op":{"activate":{"query":"release TTL"}}}`,
			`{"op":{"load":{"ids":["mem_release"],"knownHashes":{"mem_release":"sha256:x"}}}}`,
			`{"op":{"store":{"create":{"path":"howto/deploy.md","body":"# Deploy\n\nrun make deploy\n"}}}}`,
		},
		bad: []string{
			`{"op":{"activate":{"query":" "}}}`,
			`{"op":{"activate":{"query":"x"},"load":{"ids":["a"]}}}`,
			`{"op":{"store":{"create":{"path":"../out.md","body":"x"}}}}`,
			`{"op":{"load":{"ids":["mem_nowhere"]}}}`,
		},
	},
	"get_project_loadout":   {good: []string{`{}`, `{"project_name":"api"}`}, bad: []string{`{"project_name":"other"}`}},
	"recall_memory":         {good: []string{`{"query":"release TTL"}`, `{"query":"TTL","limit":2,"full":true,"mode":"bm25"}`}, bad: []string{`{"query":""}`, `{"query":"x","mode":"fuzzy"}`, `{"query":"x","limit":0}`}},
	"guard_check":           {good: []string{`{"diff":""}`, `{"files":["src/main.go"]}`}, bad: []string{`{"repo_path":"/"}`, `{"files":["/etc/passwd"]}`}},
	"flush_session":         {good: []string{`{"title":"Cache TTL","content":"The TTL is 30 s.","category":"decision","supersedes":"mem_release"}`}, bad: []string{`{"title":"x"}`, `{"title":"x","content":"y","supersedes":"no such note"}`}},
	"distill_session_skill": {good: []string{`{"raw_trace":TRACE,"dry_run":true}`}, bad: []string{`{}`, `{"raw_trace":TRACE,"target":"nowhere"}`}},
	"offload_context":       {good: []string{`{"content":LONG,"task_id":"t1"}`}, bad: []string{`{"content":""}`}},
	"inspect_log_node":      {good: []string{`{"node_id":"NODE","start_line":1,"end_line":3}`}, bad: []string{`{"node_id":""}`, `{"node_id":"node_00000000"}`}},
	"gc_session_context":    {good: []string{`{"trajectory_json":"{\"session_id\":\"s\",\"turns\":[{\"role\":\"user\",\"content\":\"hi\"}]}"}`}, bad: []string{`{"trajectory_json":"not json"}`, `{"trajectory_json":"{}","threshold":0}`}},
	"now":                   {good: []string{`{}`}, bad: []string{`{"x":1}`}},
	"keywords_list":         {good: []string{`{"namespace":"u1/p1"}`}, bad: []string{`{"namespace":"u1"}`}},
	"keywords_list_global":  {good: []string{`{}`}, bad: []string{`{"namespace":"u1/p1"}`}},
	"remember":              {good: []string{`{"namespace":"u1/p1","keywords":["cache"],"slice":"TTL is 30 s.","diary":"after load tests"}`}, bad: []string{`{"namespace":"u1/p1","keywords":[],"slice":"x","diary":"y"}`}},
	"recall":                {good: []string{`{"namespace":"u1/p1","keywords":["cache"],"include_diary":true}`}, bad: []string{`{"namespace":"u1/p1","limit":0}`}},
}

// Every tool of every profile, called through its MCP handler: each good
// call answers, and each bad one is an isError result carrying
// {error: {code, message}} with invalid_input or not_found.
func TestHandlers_EveryToolAnswersAndRefuses(t *testing.T) {
	ctx := context.Background()
	trace, _ := json.Marshal("$ go test ./...\n--- FAIL: TestSync\n    sync_test.go:42: error: remote rejected\nFAIL\n$ git fetch origin\n$ go test ./...\nok  example.com/sync 0.02s\n")
	var long strings.Builder
	long.WriteString("$ make\n")
	for i := 0; i < 200; i++ {
		long.WriteString("  compiling module\n")
	}
	long.WriteString("error: boom\n")
	longJSON, _ := json.Marshal(long.String())
	called := map[string]bool{}
	for profile, defs := range profiles {
		ts := newTestServer(t, profile, releaseFiles)
		node := ""
		for _, d := range defs {
			calls, ok := handlerCalls[d.name]
			if !ok || len(calls.good) == 0 || len(calls.bad) == 0 {
				t.Errorf("tool %s (profile %s) has no good and bad calls in handlerCalls", d.name, profile)
				continue
			}
			called[d.name] = true
			h := ts.srv.GetTool(d.name)
			if h == nil {
				t.Fatalf("%s: the server does not serve %s", profile, d.name)
			}
			for _, args := range append(append([]string{}, calls.good...), calls.bad...) {
				bad := false
				for _, b := range calls.bad {
					bad = bad || b == args
				}
				args = strings.NewReplacer("TRACE", string(trace), "LONG", string(longJSON), "NODE", node).Replace(args)
				var req mcpgo.CallToolRequest
				req.Params.Name = d.name
				req.Params.Arguments = json.RawMessage(args)
				res, err := h.Handler(ctx, req)
				if err != nil {
					t.Fatalf("%s %s: %v", d.name, args, err)
				}
				text := res.Content[0].(mcpgo.TextContent).Text
				if res.IsError != bad {
					t.Errorf("%s %s %s: isError %v (%s)", profile, d.name, args, res.IsError, text)
				}
				if d.name == "offload_context" && !res.IsError {
					var o struct {
						NodeID string `json:"node_id"`
					}
					if err := json.Unmarshal(res.StructuredContent.(json.RawMessage), &o); err != nil || o.NodeID == "" {
						t.Fatalf("offload_context made no node: %v %s", err, res.StructuredContent)
					}
					node = o.NodeID
				}
				if res.IsError {
					var e errorObject
					if err := json.Unmarshal([]byte(text), &e); err != nil || e.Error.Code == "" {
						t.Errorf("%s %s: the error is not {error: {code, message}}: %s", d.name, args, text)
					}
					if e.Error.Code != vault.CodeInvalid && e.Error.Code != vault.CodeNotFound {
						t.Errorf("%s %s: code %s", d.name, args, e.Error.Code)
					}
				}
			}
		}
	}
	for name := range handlerCalls {
		if !called[name] {
			t.Errorf("handlerCalls has %s, which no profile registers", name)
		}
	}
}

package mcp

import (
	"bytes"
	"encoding/json"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/lore-memory/lore/internal/golden"
)

// TestToolSchemaSnapshot keeps each profile's tools/list entry in testdata,
// so any change to what agents see is a reviewed diff (go test -update).
func TestToolSchemaSnapshot(t *testing.T) {
	for name, defs := range profiles {
		var tools []mcpgo.Tool
		for _, d := range defs {
			tools = append(tools, d.def("LORE.md"))
		}
		got, err := json.MarshalIndent(map[string]any{"tools": tools}, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		golden.Check(t, "tools-"+name+".json", string(got)+"\n")
	}
}

// TestSchemaIsValidJSON keeps the hand-written input schemas parseable
// (TestSchemasMatchTheDecodingTypes holds them to the Go types field by
// field).
func TestSchemaIsValidJSON(t *testing.T) {
	for _, defs := range profiles {
		for _, d := range defs {
			var s map[string]any
			if err := json.Unmarshal([]byte(d.schema), &s); err != nil {
				t.Fatalf("%s: %v\n%s", d.name, err, d.schema)
			}
		}
	}
}

func TestWithIsError(t *testing.T) {
	in := []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{}"}],"structuredContent":{}}}`)
	out := withIsError(in)
	var m struct {
		Result map[string]json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(out, &m); err != nil || string(m.Result["isError"]) != "false" {
		t.Fatalf("%s %v", out, err)
	}
	already := []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[],"structuredContent":{},"isError":true}}`)
	if !bytes.Equal(withIsError(already), already) {
		t.Fatal("rewrote a result that has isError")
	}
}

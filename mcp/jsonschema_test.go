package mcp

import (
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The jsonschema module under mcp-go is lore's patched copy
// (third_party/jsonschema): its drafts' metaschemas are compiled by the
// first NewCompiler instead of at init. A schema still validates documents,
// and a schema that breaks its draft's metaschema is still refused, which
// needs the metaschemas.
func TestJSONSchema_MetaschemasCompiledOnFirstUse(t *testing.T) {
	c := jsonschema.NewCompiler()
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(`{"type":"object","properties":{"n":{"type":"integer","minimum":1}},"required":["n"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddResource("mem://s.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("mem://s.json")
	if err != nil {
		t.Fatal(err)
	}
	for in, ok := range map[string]bool{`{"n": 2}`: true, `{"n": 0}`: false, `{}`: false, `{"n": "x"}`: false} {
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(v); (err == nil) != ok {
			t.Errorf("Validate(%s) = %v, want valid %v", in, err, ok)
		}
	}
	bad, _ := jsonschema.UnmarshalJSON(strings.NewReader(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"no-such-type"}`))
	c2 := jsonschema.NewCompiler()
	if err := c2.AddResource("mem://bad.json", bad); err != nil {
		t.Fatal(err)
	}
	if _, err := c2.Compile("mem://bad.json"); err == nil {
		t.Error(`a schema with "type": "no-such-type" compiled; the draft's metaschema should refuse it`)
	}
}

package mcp

import (
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/lore-memory/lore/journal"
)

// The input schemas agents see are written by hand (schemas.go); the Go types
// that decode the same input are the other half. This test holds them
// together field by field, at every level: the schema's properties are the
// type's JSON fields, and its required list is the fields without omitempty
// (which the strict decoder requires).
func TestSchemasMatchTheDecodingTypes(t *testing.T) {
	types := map[string]reflect.Type{
		"memory":                reflect.TypeOf(memoryInput{}),
		"get_project_loadout":   reflect.TypeOf(loadoutInput{}),
		"recall_memory":         reflect.TypeOf(recallInput{}),
		"guard_check":           reflect.TypeOf(guardInput{}),
		"flush_session":         reflect.TypeOf(flushInput{}),
		"distill_session_skill": reflect.TypeOf(distillInput{}),
		"offload_context":       reflect.TypeOf(offloadInput{}),
		"inspect_log_node":      reflect.TypeOf(inspectInput{}),
		"gc_session_context":    reflect.TypeOf(gcInput{}),
		"now":                   reflect.TypeOf(noInput{}),
		"keywords_list":         reflect.TypeOf(nsInput{}),
		"keywords_list_global":  reflect.TypeOf(noInput{}),
		"remember":              reflect.TypeOf(journal.RememberInput{}),
		"recall":                reflect.TypeOf(journal.RecallInput{}),
	}
	seen := map[string]bool{}
	for _, profile := range []string{"memory", "vault", "journal"} {
		ts := newTestServer(t, profile, releaseFiles)
		for _, tool := range ts.Tools() {
			typ, ok := types[tool.Name]
			if !ok {
				t.Errorf("tool %s has no decoding type in this test", tool.Name)
				continue
			}
			seen[tool.Name] = true
			var schema map[string]any
			if err := json.Unmarshal(tool.RawInputSchema, &schema); err != nil {
				t.Fatalf("%s: %v", tool.Name, err)
			}
			compareSchema(t, tool.Name, schema, typ)
		}
	}
	for name := range types {
		if !seen[name] {
			t.Errorf("no profile serves %s", name)
		}
	}
}

// compareSchema checks one object schema against a struct type, and recurses
// into properties that are objects (or arrays of objects).
func compareSchema(t *testing.T, where string, schema map[string]any, typ reflect.Type) {
	t.Helper()
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	if typ.Kind() != reflect.Struct {
		return // a map, or a value the schema describes by type alone
	}
	props, _ := schema["properties"].(map[string]any)
	fields := map[string]reflect.StructField{}
	var required []string
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		fields[name] = f
		if !strings.Contains(opts, "omitempty") {
			required = append(required, name)
		}
	}
	var schemaNames, fieldNames []string
	for n := range props {
		schemaNames = append(schemaNames, n)
	}
	for n := range fields {
		fieldNames = append(fieldNames, n)
	}
	sort.Strings(schemaNames)
	sort.Strings(fieldNames)
	if strings.Join(schemaNames, ",") != strings.Join(fieldNames, ",") {
		t.Errorf("%s: the schema names %v, the Go type %v", where, schemaNames, fieldNames)
	}
	var req []string
	if r, ok := schema["required"].([]any); ok {
		for _, x := range r {
			req = append(req, x.(string))
		}
	}
	sort.Strings(req)
	sort.Strings(required)
	if strings.Join(req, ",") != strings.Join(required, ",") {
		t.Errorf("%s: the schema requires %v, the Go type (no omitempty) %v", where, req, required)
	}
	for name, f := range fields {
		sub, _ := props[name].(map[string]any)
		if sub == nil {
			continue
		}
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch {
		case sub["type"] == "object" && ft.Kind() == reflect.Struct:
			compareSchema(t, where+"."+name, sub, ft)
		case sub["type"] == "array" && ft.Kind() == reflect.Slice:
			if items, ok := sub["items"].(map[string]any); ok && items["type"] == "object" {
				compareSchema(t, where+"."+name+"[]", items, ft.Elem())
			}
		}
	}
}

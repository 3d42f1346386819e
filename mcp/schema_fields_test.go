package mcp

import (
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// The input schemas agents see are written by hand (each tool_<name>.go);
// the Go type that decodes the same input, registered beside it, is the
// other half. This test holds them together field by field, at every level:
// the schema's properties are the type's JSON fields, and its required list
// is the fields without omitempty (which the strict decoder requires).
func TestSchemasMatchTheDecodingTypes(t *testing.T) {
	for _, defs := range profiles {
		for _, d := range defs {
			var schema map[string]any
			if err := json.Unmarshal([]byte(d.schema), &schema); err != nil {
				t.Fatalf("%s: %v", d.name, err)
			}
			compareSchema(t, d.name, schema, reflect.TypeOf(d.input))
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

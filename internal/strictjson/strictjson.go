// Package strictjson reads the JSON input of lore's contracts (the MCP
// tools' arguments, the web API's bodies, a Draft's operation on the
// command line) strictly: exact field names, nothing unknown or repeated,
// no null, required fields required, and every failure an invalid_input
// error (vault.CodeInvalid) that names the field by its path.
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/lore-memory/lore/vault"
)

// Decode decodes one JSON value into v (a pointer to a struct) the way
// lore's contracts want input read: object keys must name a field exactly
// (case-sensitive; json tags), unknown and repeated keys are refused, null is
// refused anywhere (optional fields are omitted instead), values must have
// the field's type, every field whose json tag lacks omitempty must be given
// (a required field is required: an update's replacement without new_text
// once deleted text), and nothing may follow the value. Every failure is a
// CodeInvalid error that names the field by its path, e.g.
// "op.store.update.replacements[1].old_text".
func Decode(data []byte, v any) error { return decode(data, v, false) }

// DecodeOpen is Decode for contracts whose schemas allow fields they
// do not name (the vault profile's, spec 003): an unknown field is skipped
// instead of refused; everything else is as strict.
func DecodeOpen(data []byte, v any) error { return decode(data, v, true) }

func decode(data []byte, v any, open bool) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("strictjson.Decode needs a non-nil pointer, got %T", v)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	c := checker{open: open}
	if err := c.value(dec, rv.Type().Elem(), ""); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return vault.Errorf(vault.CodeInvalid, "unexpected data after the JSON value")
	}
	dec = json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return vault.Errorf(vault.CodeInvalid, "%s: expected %s, got JSON %s", orTop(te.Field), typeName(te.Type), te.Value)
		}
		return vault.Errorf(vault.CodeInvalid, "invalid JSON: %v", err)
	}
	return nil
}

func orTop(p string) string {
	if p == "" {
		return "the input"
	}
	return p
}

func typeName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int64, reflect.Int32, reflect.Uint, reflect.Uint64, reflect.Uint32:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Pointer:
		return typeName(t.Elem())
	}
	return t.String()
}

// checker checks keys and nulls; open skips unknown fields.
type checker struct{ open bool }

// value reads one value from dec and checks its keys and nulls against t.
func (c checker) value(dec *json.Decoder, t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	tok, err := dec.Token()
	if err != nil {
		return vault.Errorf(vault.CodeInvalid, "invalid JSON at %s: %v", orTop(path), syntaxMessage(err))
	}
	switch tok := tok.(type) {
	case nil:
		return vault.Errorf(vault.CodeInvalid, "%s is null: omit optional fields instead of sending null", orTop(path))
	case json.Delim:
		switch tok {
		case '{':
			return c.object(dec, t, path)
		case '[':
			var elem reflect.Type
			switch t.Kind() {
			case reflect.Slice, reflect.Array:
				elem = t.Elem()
			case reflect.Interface:
				elem = t
			default:
				return vault.Errorf(vault.CodeInvalid, "%s: expected %s, got an array", orTop(path), typeName(t))
			}
			for i := 0; dec.More(); i++ {
				if err := c.value(dec, elem, fmt.Sprintf("%s[%d]", path, i)); err != nil {
					return err
				}
			}
			if _, err := dec.Token(); err != nil {
				return vault.Errorf(vault.CodeInvalid, "invalid JSON at %s: %v", orTop(path), syntaxMessage(err))
			}
			return nil
		}
	}
	return nil // scalars: their types are checked by the decoder
}

func (c checker) object(dec *json.Decoder, t reflect.Type, path string) error {
	fields, required, err := jsonFields(t, path)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return vault.Errorf(vault.CodeInvalid, "invalid JSON at %s: %v", orTop(path), syntaxMessage(err))
		}
		key := kt.(string)
		sub := key
		if path != "" {
			sub = path + "." + key
		}
		if seen[key] {
			return vault.Errorf(vault.CodeInvalid, "%s is given twice", sub)
		}
		seen[key] = true
		var ft reflect.Type
		switch t.Kind() {
		case reflect.Struct:
			var ok bool
			if ft, ok = fields[key]; !ok {
				if c.open {
					if err := skipValue(dec); err != nil {
						return vault.Errorf(vault.CodeInvalid, "invalid JSON at %s: %v", sub, syntaxMessage(err))
					}
					continue
				}
				return vault.Errorf(vault.CodeInvalid, "unknown field %s (field names are case-sensitive)", sub)
			}
		case reflect.Map:
			ft = t.Elem()
		default:
			ft = t
		}
		if err := c.value(dec, ft, sub); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return vault.Errorf(vault.CodeInvalid, "invalid JSON at %s: %v", orTop(path), syntaxMessage(err))
	}
	for _, name := range required {
		if !seen[name] {
			sub := name
			if path != "" {
				sub = path + "." + name
			}
			return vault.Errorf(vault.CodeInvalid, "%s is required", sub)
		}
	}
	return nil
}

// jsonFields returns the JSON fields of a struct type t with their types,
// and those whose tag has no omitempty (required); a map or interface has
// none to check. Anything else cannot hold the object found at path.
func jsonFields(t reflect.Type, path string) (fields map[string]reflect.Type, required []string, err error) {
	fields = map[string]reflect.Type{}
	switch t.Kind() {
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			fields[name] = f.Type
			if !strings.Contains(opts, "omitempty") {
				required = append(required, name)
			}
		}
	case reflect.Map, reflect.Interface:
	default:
		return nil, nil, vault.Errorf(vault.CodeInvalid, "%s: expected %s, got an object", orTop(path), typeName(t))
	}
	return fields, required, nil
}

func syntaxMessage(err error) string {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return "the JSON ends too early"
	}
	return err.Error()
}

// skipValue reads one whole value from dec and drops it.
func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}

package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/agentls/agentls/internal/textcut"
	"github.com/google/jsonschema-go/jsonschema"
)

// A tool declares its arguments once, as a struct: the json tag names a
// field (omitempty makes it optional), the jsonschema tag describes it to
// the model, and minimum/maximum tags bound an integer. jsonschema-go infers
// the schema from that struct (jsonschema.For); the model is shown that
// schema marshalled, and its arguments are validated against the same
// schema, resolved, before they are decoded into it. One schema, so what
// the model is told and what is checked cannot differ. The text is
// marshalled once per declaration, and json.Marshal of the same schema is
// the same bytes every time, which a prompt cache needs.

// args is the declaration of a tool's arguments T.
type args[T any] struct {
	root  *jsonschema.Schema
	whole *jsonschema.Resolved
	text  json.RawMessage
	// field holds each property resolved alone, so that an error can name
	// the field at fault; resolved on the first error (fieldOnce), since
	// valid calls never need it.
	field     map[string]*jsonschema.Resolved
	fieldOnce sync.Once
}

// declare infers T's schema. adjust, if not nil, may change the properties
// first (bounds and descriptions known only at run time). An error is a
// mistake in T or adjust, found by every test that builds the tools, so it
// panics like regexp.MustCompile.
func declare[T any](adjust func(props map[string]*jsonschema.Schema)) *args[T] {
	fail := func(err error) { panic(fmt.Sprintf("tools: arguments %T: %v", *new(T), err)) }
	root, err := jsonschema.For[T](nil)
	if err != nil {
		fail(err)
	}
	if err := bounds(reflect.TypeFor[T](), root); err != nil {
		fail(err)
	}
	if adjust != nil {
		adjust(root.Properties)
	}
	whole, err := root.Resolve(nil)
	if err != nil {
		fail(err)
	}
	text, err := json.Marshal(root)
	if err != nil {
		fail(err)
	}
	return &args[T]{root: root, whole: whole, text: text}
}

// bounds checks that t's fields are of the kinds a tool argument may have
// (a string, a bool, a signed integer, a list of objects), sets the
// minimum and maximum tags of its integers on root's properties, and
// makes a list's type "array": a nil slice marshals to null, so the
// library allows null, but the model is told an array and null is dropped
// before validation anyway (check).
func bounds(t reflect.Type, root *jsonschema.Schema) error {
	if t.Kind() != reflect.Struct {
		return fmt.Errorf("not a struct")
	}
	for _, f := range reflect.VisibleFields(t) {
		if !f.IsExported() || f.Anonymous || f.Tag.Get("json") == "-" {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" {
			name = f.Name
		}
		p := root.Properties[name]
		if p == nil {
			return fmt.Errorf("jsonschema-go has no property %s", name)
		}
		integer := false
		switch f.Type.Kind() {
		case reflect.String, reflect.Bool:
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			integer = true
		case reflect.Slice:
			if f.Type.Elem().Kind() != reflect.Struct || p.Items == nil {
				return fmt.Errorf("field %s: a list argument must be of objects", f.Name)
			}
			if err := bounds(f.Type.Elem(), p.Items); err != nil {
				return fmt.Errorf("field %s: %v", f.Name, err)
			}
			p.Type, p.Types = "array", nil
		default:
			return fmt.Errorf("field %s: type %s is not one a tool argument may have (string, bool, a signed integer, a list of objects)", f.Name, f.Type)
		}
		for tag, dst := range map[string]**float64{"minimum": &p.Minimum, "maximum": &p.Maximum} {
			v, ok := f.Tag.Lookup(tag)
			if !ok {
				continue
			}
			if !integer {
				return fmt.Errorf("field %s: %s on a field that is not an integer property", f.Name, tag)
			}
			n, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return fmt.Errorf("field %s: %s: %v", f.Name, tag, err)
			}
			*dst = &n
		}
	}
	return nil
}

// schema is the JSON Schema the model is shown.
func (a *args[T]) schema() json.RawMessage { return a.text }

// parse validates raw against the schema and decodes it. Its errors are
// written for the model: they name the field at fault and repeat the
// schema so that the next call can be right.
func (a *args[T]) parse(tool string, raw json.RawMessage) (T, error) {
	var v T
	fields, err := a.check(raw)
	if err == nil {
		err = json.Unmarshal(fields, &v)
	}
	if err != nil {
		return v, fmt.Errorf("invalid arguments for %s: %v; expected arguments matching this JSON schema: %s", tool, err, a.text)
	}
	return v, nil
}

// check validates raw and returns the object to decode: explicit nulls
// removed (models send them for optional fields; they mean "not given")
// and integers written as 10.0 rewritten as 10 for Go's int fields.
func (a *args[T]) check(raw json.RawMessage) ([]byte, error) {
	trimmed := bytes.TrimSpace(raw)
	fields := map[string]json.RawMessage{}
	// Models call argument-less tools with "" or null; both mean {}.
	if len(trimmed) > 0 && !bytes.Equal(trimmed, []byte("null")) {
		if trimmed[0] != '{' {
			return nil, fmt.Errorf("arguments must be a JSON object, got %s", snippet(trimmed))
		}
		if err := json.Unmarshal(trimmed, &fields); err != nil {
			return nil, fmt.Errorf("arguments are not valid JSON (%v)", err)
		}
	}
	values := map[string]any{}
	for k, raw := range fields {
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("field %q is not valid JSON (%v)", k, err)
		}
		if v == nil {
			delete(fields, k)
			continue
		}
		values[k] = v
		if f, ok := v.(float64); ok && f == math.Trunc(f) && math.Abs(f) <= 1<<53 {
			fields[k] = strconv.AppendInt(nil, int64(f), 10)
		}
	}
	if err := a.whole.Validate(values); err != nil {
		return nil, a.explain(values, err)
	}
	return json.Marshal(fields)
}

// explain says which field made values fail the schema. The library has
// decided that they do; this only finds the field and words the reason
// from its schema. err is the fallback for a case it does not know.
func (a *args[T]) explain(values map[string]any, err error) error {
	var unknown []string
	for k := range values {
		if _, ok := a.root.Properties[k]; !ok {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 && a.root.AdditionalProperties != nil {
		slices.Sort(unknown)
		return fmt.Errorf("unknown field(s) %s", strings.Join(unknown, ", "))
	}
	for _, k := range a.root.Required {
		if _, ok := values[k]; !ok {
			return fmt.Errorf("missing required field %q", k)
		}
	}
	for _, k := range a.root.PropertyOrder {
		v, ok := values[k]
		if !ok || a.fieldSchema(k).Validate(v) == nil {
			continue
		}
		got, _ := json.Marshal(v)
		return fmt.Errorf("field %q must be %s, got %s", k, expect(a.root.Properties[k]), snippet(got))
	}
	return err
}

// expect words what a property's schema accepts.
func expect(p *jsonschema.Schema) string {
	switch p.Type {
	case "string":
		return "a string"
	case "boolean":
		return "true or false"
	case "array":
		if it := p.Items; it != nil {
			var names []string
			for _, k := range it.PropertyOrder {
				names = append(names, k)
			}
			if len(names) == 0 {
				for k := range it.Properties {
					names = append(names, k)
				}
				slices.Sort(names)
			}
			return fmt.Sprintf("a list of objects with the fields %s (required: %s)", strings.Join(names, ", "), strings.Join(it.Required, ", "))
		}
		return "a list"
	case "integer":
		switch lo, hi := p.Minimum, p.Maximum; {
		case lo != nil && hi != nil:
			return fmt.Sprintf("an integer from %s to %s", num(*lo), num(*hi))
		case lo != nil:
			return "an integer of at least " + num(*lo)
		case hi != nil:
			return "an integer of at most " + num(*hi)
		}
		return "an integer"
	}
	b, _ := json.Marshal(p)
	return "a value matching " + string(b)
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func snippet(b []byte) string {
	const max = 60
	s := string(b)
	if len(s) > max {
		s = textcut.Head(s, max) + "…"
	}
	return s
}

// fieldSchema is property k's schema resolved alone.
func (a *args[T]) fieldSchema(k string) *jsonschema.Resolved {
	a.fieldOnce.Do(func() {
		a.field = map[string]*jsonschema.Resolved{}
		for name, p := range a.root.Properties {
			r, err := p.CloneSchemas().Resolve(nil)
			if err != nil {
				panic(fmt.Sprintf("tools: arguments %T, field %s: %v", *new(T), name, err))
			}
			a.field[name] = r
		}
	})
	return a.field[k]
}

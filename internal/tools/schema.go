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
// the model, and minimum/maximum tags bound an integer. The model is shown
// the schema rendered from that struct (render), and its arguments are
// validated against the schema jsonschema-go infers from the same struct
// (jsonschema.For) before they are decoded into it. TestSchemaTextMatchesLibrary
// holds the two equal for every tool.
//
// The text is rendered by hand because every command that starts the
// agent shows the model its tools: inferring, marshalling and resolving
// the library's schemas cost about 1.3 ms of a 10 ms one-turn run, for
// arguments a text-only answer never parses. The library's schema is built
// on the first parse instead.

// args is the declaration of a tool's arguments T.
type args[T any] struct {
	props []prop // the properties, in field order, adjusted
	text  json.RawMessage

	libOnce sync.Once
	root    *jsonschema.Schema
	whole   *jsonschema.Resolved
	// field holds each property resolved alone, so that an error can name
	// the field at fault; resolved on the first error (fieldOnce), since
	// valid calls never need it.
	field     map[string]*jsonschema.Resolved
	fieldOnce sync.Once
}

// prop is one property as the model is shown it. adjust may change
// Description and the bounds.
type prop struct {
	Name, Type, Description string
	Minimum, Maximum        *float64
	required                bool
}

// declare reads T's declaration and renders its schema. adjust, if not
// nil, may change the properties first (for bounds and descriptions known
// only at run time). An error is a mistake in T or adjust, found by every
// test that builds the tools, so it panics like regexp.MustCompile.
func declare[T any](adjust func(props map[string]*prop)) *args[T] {
	props, err := properties(reflect.TypeFor[T]())
	if err != nil {
		panic(fmt.Sprintf("tools: arguments %T: %v", *new(T), err))
	}
	if adjust != nil {
		byName := make(map[string]*prop, len(props))
		for i := range props {
			byName[props[i].Name] = &props[i]
		}
		adjust(byName)
	}
	return &args[T]{props: props, text: render(props)}
}

// properties reads the properties of the argument struct t.
func properties(t reflect.Type) ([]prop, error) {
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("not a struct")
	}
	var props []prop
	for _, f := range reflect.VisibleFields(t) {
		if !f.IsExported() || f.Anonymous {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		p := prop{Name: name, Description: f.Tag.Get("jsonschema"), required: !strings.Contains(","+opts+",", ",omitempty,")}
		switch f.Type.Kind() {
		case reflect.String:
			p.Type = "string"
		case reflect.Bool:
			p.Type = "boolean"
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			p.Type = "integer"
		default:
			return nil, fmt.Errorf("field %s: type %s is not one a tool argument may have (string, bool, a signed integer)", f.Name, f.Type)
		}
		lo, hasLo := f.Tag.Lookup("minimum")
		hi, hasHi := f.Tag.Lookup("maximum")
		if (hasLo || hasHi) && p.Type != "integer" {
			return nil, fmt.Errorf("field %s: minimum or maximum on a field that is not an integer property", f.Name)
		}
		var err error
		if hasLo {
			if p.Minimum, err = parseBound(lo); err != nil {
				return nil, fmt.Errorf("field %s: minimum: %v", f.Name, err)
			}
		}
		if hasHi {
			if p.Maximum, err = parseBound(hi); err != nil {
				return nil, fmt.Errorf("field %s: maximum: %v", f.Name, err)
			}
		}
		props = append(props, p)
	}
	return props, nil
}

func parseBound(s string) (*float64, error) {
	n, err := strconv.ParseFloat(s, 64)
	return &n, err
}

// render writes the schema of props: an object of exactly these
// properties, the ones without omitempty required.
func render(props []prop) json.RawMessage {
	b := []byte(`{"type":"object","properties":{`)
	var required []string
	for i, p := range props {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, p.Name)
		b = append(b, `:{"type":`...)
		b = appendString(b, p.Type)
		if p.Description != "" {
			b = append(b, `,"description":`...)
			b = appendString(b, p.Description)
		}
		if p.Minimum != nil {
			b = append(b, `,"minimum":`...)
			b = strconv.AppendFloat(b, *p.Minimum, 'f', -1, 64)
		}
		if p.Maximum != nil {
			b = append(b, `,"maximum":`...)
			b = strconv.AppendFloat(b, *p.Maximum, 'f', -1, 64)
		}
		b = append(b, '}')
		if p.required {
			required = append(required, p.Name)
		}
	}
	b = append(b, '}')
	if len(required) > 0 {
		b = append(b, `,"required":[`...)
		for i, r := range required {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, r)
		}
		b = append(b, ']')
	}
	return append(b, `,"additionalProperties":false}`...)
}

// appendString appends s as a JSON string.
func appendString(b []byte, s string) []byte {
	q, _ := json.Marshal(s) // a string always marshals
	return append(b, q...)
}

// lib is T's schema as jsonschema-go infers it, with the same adjustments,
// inferred and resolved on first use.
func (a *args[T]) lib() {
	a.libOnce.Do(func() {
		root, err := jsonschema.For[T](nil)
		if err != nil {
			panic(fmt.Sprintf("tools: arguments %T: %v", *new(T), err))
		}
		for _, p := range a.props {
			lp := root.Properties[p.Name]
			if lp == nil {
				panic(fmt.Sprintf("tools: arguments %T: jsonschema-go has no property %s", *new(T), p.Name))
			}
			lp.Description, lp.Minimum, lp.Maximum = p.Description, p.Minimum, p.Maximum
		}
		whole, err := root.Resolve(nil)
		if err != nil {
			panic(fmt.Sprintf("tools: arguments %T: %v", *new(T), err))
		}
		a.root, a.whole = root, whole
	})
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
	a.lib()
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

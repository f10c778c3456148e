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

	"github.com/google/jsonschema-go/jsonschema"
)

// A tool declares its arguments once, as a struct: the json tag names a
// field (omitempty makes it optional), the jsonschema tag describes it to
// the model, and minimum/maximum tags bound an integer. The schema the
// model is shown is inferred from that struct (jsonschema.For), and the
// model's arguments are validated against the same schema before they are
// decoded into it.

// args is the declaration of a tool's arguments T.
type args[T any] struct {
	root  *jsonschema.Schema
	whole *jsonschema.Resolved
	// field holds each property resolved alone, so that an error can name
	// the field at fault; resolved on the first error (fieldOnce), since
	// valid calls never need it and start-up should not pay for it.
	field     map[string]*jsonschema.Resolved
	fieldOnce sync.Once
	text      json.RawMessage
}

// declare infers the schema of T. adjust, if not nil, may change the
// properties' schemas first (for bounds and descriptions known only at
// run time). An error is a mistake in T or adjust, found by every test
// that builds the tools, so it panics like regexp.MustCompile.
func declare[T any](adjust func(props map[string]*jsonschema.Schema)) *args[T] {
	root, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("tools: arguments %T: %v", *new(T), err))
	}
	if err := bounds(reflect.TypeFor[T](), root); err != nil {
		panic(fmt.Sprintf("tools: arguments %T: %v", *new(T), err))
	}
	if adjust != nil {
		adjust(root.Properties)
	}
	a := &args[T]{root: root}
	if a.whole, err = root.Resolve(nil); err != nil {
		panic(fmt.Sprintf("tools: arguments %T: %v", *new(T), err))
	}
	if a.text, err = json.Marshal(root); err != nil {
		panic(fmt.Sprintf("tools: arguments %T: %v", *new(T), err))
	}
	return a
}

// bounds copies the minimum and maximum tags of T's fields to their
// properties.
func bounds(t reflect.Type, root *jsonschema.Schema) error {
	for _, f := range reflect.VisibleFields(t) {
		lo, hasLo := f.Tag.Lookup("minimum")
		hi, hasHi := f.Tag.Lookup("maximum")
		if !hasLo && !hasHi {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		p := root.Properties[name]
		if p == nil || p.Type != "integer" {
			return fmt.Errorf("field %s: minimum or maximum on a field that is not an integer property", f.Name)
		}
		var err error
		if hasLo {
			if p.Minimum, err = parseBound(lo); err != nil {
				return fmt.Errorf("field %s: minimum: %v", f.Name, err)
			}
		}
		if hasHi {
			if p.Maximum, err = parseBound(hi); err != nil {
				return fmt.Errorf("field %s: maximum: %v", f.Name, err)
			}
		}
	}
	return nil
}

func parseBound(s string) (*float64, error) {
	n, err := strconv.ParseFloat(s, 64)
	return &n, err
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
		s = s[:max] + "…"
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

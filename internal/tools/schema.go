package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
)

// The tools' parameters are flat objects of strings, integers and booleans,
// so a small validator that knows exactly that shape replaces a JSON Schema
// library. The schema the model sees is generated from the same declaration,
// so the two cannot drift.

type paramType string

const (
	typeString  paramType = "string"
	typeInteger paramType = "integer"
	typeBoolean paramType = "boolean"
)

type param struct {
	Name        string
	Type        paramType
	Description string
	Required    bool
	Min         *int // integers only
	Max         *int
}

func intp(v int) *int { return &v }

// schema is the JSON Schema object for params.
func schema(params []param) json.RawMessage {
	type prop struct {
		Type        paramType `json:"type"`
		Description string    `json:"description,omitempty"`
		Minimum     *int      `json:"minimum,omitempty"`
		Maximum     *int      `json:"maximum,omitempty"`
	}
	// Properties are written in declaration order (a map would sort them),
	// which keeps the contract order readable for the model.
	var buf bytes.Buffer
	buf.WriteString(`{"type":"object","properties":{`)
	var required []string
	for i, p := range params {
		if i > 0 {
			buf.WriteByte(',')
		}
		name, _ := json.Marshal(p.Name)
		body, _ := json.Marshal(prop{p.Type, p.Description, p.Min, p.Max})
		buf.Write(name)
		buf.WriteByte(':')
		buf.Write(body)
		if p.Required {
			required = append(required, p.Name)
		}
	}
	buf.WriteString(`}`)
	if len(required) > 0 {
		r, _ := json.Marshal(required)
		buf.WriteString(`,"required":`)
		buf.Write(r)
	}
	buf.WriteString(`,"additionalProperties":false}`)
	return json.RawMessage(buf.Bytes())
}

// validate checks raw against params and decodes it into dst (a pointer to a
// struct whose json tags name the params). Its errors are written for the
// model: they say what is wrong and repeat the expected schema so the next
// call can be right.
func validate(tool string, params []param, raw json.RawMessage, dst any) error {
	if err := check(params, raw); err != nil {
		return fmt.Errorf("invalid arguments for %s: %v; expected arguments matching this JSON schema: %s", tool, err, schema(params))
	}
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return nil
	}
	if err := json.Unmarshal(stripNulls(trimmed), dst); err != nil {
		return fmt.Errorf("invalid arguments for %s: %v; expected arguments matching this JSON schema: %s", tool, err, schema(params))
	}
	return nil
}

func check(params []param, raw json.RawMessage) error {
	trimmed := bytes.TrimSpace(raw)
	fields := map[string]json.RawMessage{}
	// Models call argument-less tools with "" or null; both mean {}.
	if len(trimmed) > 0 && !bytes.Equal(trimmed, []byte("null")) {
		if trimmed[0] != '{' {
			return fmt.Errorf("arguments must be a JSON object, got %s", snippet(trimmed))
		}
		if err := json.Unmarshal(trimmed, &fields); err != nil {
			return fmt.Errorf("arguments are not valid JSON (%v)", err)
		}
	}
	known := map[string]param{}
	for _, p := range params {
		known[p.Name] = p
	}
	var unknown []string
	for name := range fields {
		if _, ok := known[name]; !ok {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return fmt.Errorf("unknown field(s) %s", strings.Join(unknown, ", "))
	}
	for _, p := range params {
		v, ok := fields[p.Name]
		// An explicit null stands for "not given": models often send it for
		// optional fields.
		if !ok || bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
			if p.Required {
				return fmt.Errorf("missing required field %q", p.Name)
			}
			continue
		}
		if err := checkValue(p, v); err != nil {
			return err
		}
	}
	return nil
}

func checkValue(p param, v json.RawMessage) error {
	switch p.Type {
	case typeString:
		var s string
		if json.Unmarshal(v, &s) != nil {
			return fmt.Errorf("field %q must be a string, got %s", p.Name, snippet(v))
		}
	case typeBoolean:
		var b bool
		if json.Unmarshal(v, &b) != nil {
			return fmt.Errorf("field %q must be true or false, got %s", p.Name, snippet(v))
		}
	case typeInteger:
		var f float64
		if json.Unmarshal(v, &f) != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
			return fmt.Errorf("field %q must be an integer, got %s", p.Name, snippet(v))
		}
		if p.Min != nil && f < float64(*p.Min) {
			return fmt.Errorf("field %q must be at least %d, got %s", p.Name, *p.Min, snippet(v))
		}
		if p.Max != nil && f > float64(*p.Max) {
			return fmt.Errorf("field %q must be at most %d, got %s", p.Name, *p.Max, snippet(v))
		}
	}
	return nil
}

// stripNulls removes top-level null members so they decode as zero values
// (and an integer written as 10.0 decodes into an int field).
func stripNulls(obj []byte) []byte {
	var fields map[string]json.RawMessage
	if json.Unmarshal(obj, &fields) != nil {
		return obj
	}
	for k, v := range fields {
		if bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
			delete(fields, k)
			continue
		}
		var f float64
		if v[0] != '"' && json.Unmarshal(v, &f) == nil && f == math.Trunc(f) {
			fields[k] = json.RawMessage(fmt.Sprintf("%d", int64(f)))
		}
	}
	out, err := json.Marshal(fields)
	if err != nil {
		return obj
	}
	return out
}

func snippet(b []byte) string {
	const max = 60
	s := string(b)
	if len(s) > max {
		s = s[:max] + "…"
	}
	return s
}

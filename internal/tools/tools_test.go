package tools

import (
	"encoding/json"
	"slices"
	"testing"
)

func TestDefaultSpecs(t *testing.T) {
	ws := newDisk(t, nil)
	tools := Default(ws, Options{})
	wantNames := []string{"read_file", "list_files", "grep", "write_file", "edit_file", "run_command"}
	wantRO := []bool{true, true, true, false, false, false}
	wantParams := [][]string{
		{"path", "offset", "limit"},
		{"path", "pattern"},
		{"pattern", "path", "glob"},
		{"path", "content"},
		{"path", "old_string", "new_string", "replace_all"},
		{"command", "timeout_seconds"},
	}
	wantRequired := [][]string{{"path"}, nil, {"pattern"}, {"path", "content"}, {"path", "old_string", "new_string"}, {"command"}}
	if len(tools) != len(wantNames) {
		t.Fatalf("%d tools", len(tools))
	}
	total := 0
	for i, tl := range tools {
		spec := tl.Spec()
		b, err := json.Marshal(spec)
		if err != nil {
			t.Fatal(err)
		}
		total += len(b)
		if spec.Name != wantNames[i] || tl.ReadOnly() != wantRO[i] {
			t.Errorf("tool %d = %s (read-only %v), want %s (%v)", i, spec.Name, tl.ReadOnly(), wantNames[i], wantRO[i])
		}
		if spec.Description == "" {
			t.Errorf("%s has no description", spec.Name)
		}
		var s struct {
			Type                 string                     `json:"type"`
			Properties           map[string]json.RawMessage `json:"properties"`
			Required             []string                   `json:"required"`
			AdditionalProperties *bool                      `json:"additionalProperties"`
		}
		if err := json.Unmarshal(spec.Parameters, &s); err != nil {
			t.Fatalf("%s: %v", spec.Name, err)
		}
		if s.Type != "object" || s.AdditionalProperties == nil || *s.AdditionalProperties {
			t.Errorf("%s: schema %s", spec.Name, spec.Parameters)
		}
		var names []string
		for k := range s.Properties {
			names = append(names, k)
		}
		slices.Sort(names)
		want := slices.Clone(wantParams[i])
		slices.Sort(want)
		if !slices.Equal(names, want) {
			t.Errorf("%s: properties %v, want %v", spec.Name, names, want)
		}
		if !slices.Equal(s.Required, wantRequired[i]) {
			t.Errorf("%s: required %v, want %v", spec.Name, s.Required, wantRequired[i])
		}
	}
	t.Logf("all six specs: %d bytes of JSON", total)
	if total > 3000 {
		t.Errorf("specs take %d bytes; every request pays for them, keep them short", total)
	}
}

func TestParse(t *testing.T) {
	type args struct {
		S string `json:"s"`
		N int    `json:"n,omitempty" minimum:"1" maximum:"10"`
		B bool   `json:"b,omitempty"`
	}
	decl := declare[args](nil)
	tests := []struct {
		raw  string
		want args
		err  string
	}{
		{raw: `{"s":"x","n":3,"b":true}`, want: args{"x", 3, true}},
		{raw: `{"s":"x","n":3.0}`, want: args{S: "x", N: 3}},
		{raw: `{"s":"x","n":1e1}`, want: args{S: "x", N: 10}},
		{raw: `{"s":"x","n":null,"b":null}`, want: args{S: "x"}},
		{raw: ` {"s":""} `, want: args{}},
		{raw: ``, err: `missing required field "s"`},
		{raw: `null`, err: `missing required field "s"`},
		{raw: `{"s":null}`, err: `missing required field "s"`},
		{raw: `{"s":1}`, err: `field "s" must be a string, got 1`},
		{raw: `{"s":"x","n":"3"}`, err: `field "n" must be an integer from 1 to 10, got "3"`},
		{raw: `{"s":"x","n":2.5}`, err: `field "n" must be an integer from 1 to 10, got 2.5`},
		{raw: `{"s":"x","n":0}`, err: `field "n" must be an integer from 1 to 10, got 0`},
		{raw: `{"s":"x","n":11}`, err: `field "n" must be an integer from 1 to 10, got 11`},
		{raw: `{"s":"x","b":"yes"}`, err: `field "b" must be true or false, got "yes"`},
		{raw: `{"s":"x","z":1,"a":2}`, err: `unknown field(s) a, z`},
		{raw: `{"s":"x"`, err: `arguments are not valid JSON`},
		{raw: `"s"`, err: `arguments must be a JSON object, got "s"`},
	}
	for _, tt := range tests {
		got, err := decl.parse("t", json.RawMessage(tt.raw))
		if tt.err != "" {
			if err == nil {
				t.Errorf("%s: no error", tt.raw)
				continue
			}
			wantContains(t, tt.raw, err.Error(), "invalid arguments for t: "+tt.err, `; expected arguments matching this JSON schema: {"type":"object"`)
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.raw, err)
			continue
		}
		if got != tt.want {
			t.Errorf("%s: got %+v, want %+v", tt.raw, got, tt.want)
		}
	}
}

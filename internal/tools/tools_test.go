package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/agentls/agentls/internal/agent"
)

// The schemas the model is shown, property by property: each tool's
// argument struct is the only declaration, so this pins what it declares.
func TestDefaultSpecs(t *testing.T) {
	ws := newDisk(t, nil)
	tools := Default(ws, Options{})
	wantNames := []string{"read_file", "list_files", "grep", "write_file", "edit_file", "delete_file", "move_file", "run_command"}
	wantRO := []bool{true, true, true, false, false, false, false, false}
	// name:type, with [min,max] for bounded integers, in declaration order.
	wantParams := [][]string{
		{"path:string", "offset:integer[1,]", "limit:integer[1,]"},
		{"path:string", "pattern:string", "depth:integer[1,]"},
		{"pattern:string", "path:string", "glob:string", "ignore_case:boolean", "context:integer[0,10]", "output:string"},
		{"path:string", "content:string"},
		{"path:string", "old_string:string", "new_string:string", "replace_all:boolean", "edits:array"},
		{"path:string"},
		{"from:string", "to:string"},
		{"command:string", "timeout_seconds:integer[1,600]"},
	}
	wantRequired := [][]string{{"path"}, nil, {"pattern"}, {"path", "content"}, {"path"}, {"path"}, {"from", "to"}, {"command"}}
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
		type prop struct {
			Type        string   `json:"type"`
			Description string   `json:"description"`
			Minimum     *float64 `json:"minimum"`
			Maximum     *float64 `json:"maximum"`
		}
		var s struct {
			Type                 string          `json:"type"`
			Properties           json.RawMessage `json:"properties"`
			Required             []string        `json:"required"`
			AdditionalProperties *bool           `json:"additionalProperties"`
		}
		if err := json.Unmarshal(spec.Parameters, &s); err != nil {
			t.Fatalf("%s: %v", spec.Name, err)
		}
		if s.Type != "object" || s.AdditionalProperties == nil || *s.AdditionalProperties {
			t.Errorf("%s: schema %s", spec.Name, spec.Parameters)
		}
		// Only the keys an OpenAI-compatible server expects, nothing like
		// $schema or $id.
		var keys map[string]json.RawMessage
		_ = json.Unmarshal(spec.Parameters, &keys)
		for k := range keys {
			if !slices.Contains([]string{"type", "properties", "required", "additionalProperties"}, k) {
				t.Errorf("%s: schema has %q: %s", spec.Name, k, spec.Parameters)
			}
		}
		// The properties in the order they are written.
		dec := json.NewDecoder(bytes.NewReader(s.Properties))
		var got []string
		if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
			t.Fatalf("%s: properties %s", spec.Name, s.Properties)
		}
		for dec.More() {
			name, _ := dec.Token()
			var p prop
			if err := dec.Decode(&p); err != nil {
				t.Fatalf("%s: %v", spec.Name, err)
			}
			if p.Description == "" {
				t.Errorf("%s.%s has no description", spec.Name, name)
			}
			d := fmt.Sprintf("%s:%s", name, p.Type)
			if p.Minimum != nil || p.Maximum != nil {
				d += "[" + bound(p.Minimum) + "," + bound(p.Maximum) + "]"
			}
			got = append(got, d)
		}
		if !slices.Equal(got, wantParams[i]) {
			t.Errorf("%s: properties %v, want %v", spec.Name, got, wantParams[i])
		}
		if !slices.Equal(s.Required, wantRequired[i]) {
			t.Errorf("%s: required %v, want %v", spec.Name, s.Required, wantRequired[i])
		}
	}
	t.Logf("the eight specs with edit_file: %d bytes of JSON", total)
	// The budget is what the descriptions need to say what each tool
	// does and does not (sandbox, network, cwd, limits, approval), with
	// a little room; every request pays for it, so it is still a budget.
	const budget = 6200
	if total > budget {
		t.Errorf("specs take %d bytes, over the budget of %d; every request pays for them", total, budget)
	}
	patch := 0
	for _, tl := range Default(ws, Options{EditTool: "apply_patch"}) {
		b, _ := json.Marshal(tl.Spec())
		patch += len(b)
	}
	t.Logf("the five specs with apply_patch: %d bytes of JSON", patch)
	if patch > budget {
		t.Errorf("apply_patch specs take %d bytes, over the budget of %d", patch, budget)
	}
}

func bound(f *float64) string {
	if f == nil {
		return ""
	}
	return num(*f)
}

// Bad arguments from the model are refused before a tool does anything,
// with an error that names the field and shows the schema.
func TestToolArgumentErrors(t *testing.T) {
	ws := newDisk(t, map[string]string{"a.txt": "a\n"})
	tools := map[string]agent.Tool{}
	for _, tl := range Default(ws, Options{MaxCommandTimeout: 90 * time.Second, Approver: allowAll}) {
		tools[tl.Spec().Name] = tl
	}
	tests := []struct{ tool, args, err string }{
		{"read_file", `{"path":7}`, `field "path" must be a string, got 7`},
		{"read_file", `{"path":"a.txt","limit":0}`, `field "limit" must be an integer of at least 1, got 0`},
		{"read_file", `{"path":"a.txt","offset":1.5}`, `field "offset" must be an integer of at least 1, got 1.5`},
		{"read_file", `{"offset":2}`, `missing required field "path"`},
		{"read_file", `{"path":"a.txt","lines":3}`, `unknown field(s) lines`},
		{"list_files", `{"pattern":["*.go"]}`, `field "pattern" must be a string, got ["*.go"]`},
		{"list_files", `{"dir":"."}`, `unknown field(s) dir`},
		{"grep", `{"path":"."}`, `missing required field "pattern"`},
		{"grep", `{"pattern":"a","glob":true}`, `field "glob" must be a string, got true`},
		{"write_file", `{"path":"b.txt"}`, `missing required field "content"`},
		{"write_file", `{"path":"b.txt","content":{"text":"x"}}`, `field "content" must be a string, got {"text":"x"}`},
		{"edit_file", `{"path":"a.txt","old_string":"a","new_string":"b","replace_all":"yes"}`, `field "replace_all" must be true or false, got "yes"`},
		{"edit_file", `{"path":"a.txt","old_string":"a"}`, `missing required field "new_string" (or give edits)`},
		{"edit_file", `{"path":"a.txt","new_string":"a"}`, `missing required field "old_string" (or give edits)`},
		{"edit_file", `{"path":"a.txt","edits":[{"old_string":"a"}]}`, `field "edits" must be a list of objects with the fields old_string, new_string, replace_all (required: old_string, new_string), got [{"old_string":"a"}]`},
		{"run_command", `{"command":"true","timeout_seconds":91}`, `field "timeout_seconds" must be an integer from 1 to 90, got 91`},
		{"run_command", `{"command":"true","timeout_seconds":-1}`, `field "timeout_seconds" must be an integer from 1 to 90, got -1`},
		{"run_command", `{"command":["true"]}`, `field "command" must be a string, got ["true"]`},
		{"run_command", `{"cmd":"true"}`, `unknown field(s) cmd`},
		{"run_command", `"true"`, `arguments must be a JSON object, got "true"`},
	}
	for _, tt := range tests {
		res, err := tools[tt.tool].Run(context.Background(), json.RawMessage(tt.args))
		if err == nil {
			t.Errorf("%s %s: no error; output %q", tt.tool, tt.args, res.Output)
			continue
		}
		wantContains(t, tt.tool+" "+tt.args, err.Error(), "invalid arguments for "+tt.tool+": "+tt.err+"; expected arguments matching this JSON schema: "+string(tools[tt.tool].Spec().Parameters))
	}
	if got, _ := readDisk(t, ws, "a.txt"); got != "a\n" {
		t.Errorf("a.txt = %q after refused calls", got)
	}
}

// A bound on a field that is not an integer is a mistake in the
// declaration, found when the tools are built.
func TestDeclareRejectsBadBounds(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "not an integer property") {
			t.Errorf("recover() = %v", r)
		}
	}()
	type bad struct {
		S string `json:"s" minimum:"1"`
	}
	declare[bad](nil)
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

// The model is shown the schema jsonschema-go infers from each argument
// struct, with the bounds of its tags and the run-time adjustments, and the
// same bytes on every declaration (a prompt cache keeps working).
func TestSchemaText(t *testing.T) {
	o := Options{CommandTimeout: 30 * time.Second, MaxCommandTimeout: 90 * time.Second}.withDefaults(newDisk(t, nil))
	rc := runCommandDecl(o)
	if want := `{"type":"object","properties":{"command":{"type":"string","description":"The command line."},"timeout_seconds":{"type":"integer","description":"Seconds before it is killed (default 30).","minimum":1,"maximum":90}},"required":["command"],"additionalProperties":false}`; string(rc.schema()) != want {
		t.Errorf("run_command's schema\n%s\nwant\n%s", rc.schema(), want)
	}
	if !bytes.Equal(runCommandDecl(o).schema(), rc.schema()) {
		t.Error("two declarations of run_command differ")
	}
	if ef := string(editFileDecl().schema()); !strings.Contains(ef, `"edits":{"type":"array","items":{"type":"object"`) {
		t.Errorf("edit_file's edits are not an array of objects: %s", ef)
	}
	type mixed struct {
		S string `json:"s" jsonschema:"a \"quoted\" <text> & more"`
		N int    `json:"n,omitempty" minimum:"-2" maximum:"7"`
		B bool   `json:"b"`
		I int64  `json:"i,omitempty"`
	}
	m := declare[mixed](nil)
	if want := `{"type":"object","properties":{"s":{"type":"string","description":"a \"quoted\" \u003ctext\u003e \u0026 more"},"n":{"type":"integer","minimum":-2,"maximum":7},"b":{"type":"boolean"},"i":{"type":"integer"}},"required":["s","b"],"additionalProperties":false}`; string(m.schema()) != want {
		t.Errorf("mixed\n%s\nwant\n%s", m.schema(), want)
	}
	if _, err := m.parse("mixed", json.RawMessage(`{"s":"x","b":true,"n":8}`)); err == nil || !strings.Contains(err.Error(), "from -2 to 7") {
		t.Errorf("n=8 passed the tag's maximum: %v", err)
	}
	for name, bad := range map[string]func(){
		"float":           func() { declare[struct{ F float64 }](nil) },
		"list of strings": func() { declare[struct{ L []string }](nil) },
		"bound on string": func() {
			declare[struct {
				S string `minimum:"1"`
			}](nil)
		},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: declared without a panic", name)
				}
			}()
			bad()
		}()
	}
}

// The argument shown back in an error is cut on a character boundary:
// snippet's cap falls inside an "é" here.
func TestArgumentErrorKeepsWholeCharacters(t *testing.T) {
	ws := newDisk(t, map[string]string{"a.txt": "a\n"})
	var rf agent.Tool
	for _, tl := range Default(ws, Options{Approver: allowAll}) {
		if tl.Spec().Name == "read_file" {
			rf = tl
		}
	}
	arg := `["x` + strings.Repeat("é", 40) + `"]`
	_, err := rf.Run(context.Background(), json.RawMessage(`{"path":`+arg+`}`))
	if err == nil {
		t.Fatal("no error")
	}
	if !utf8.ValidString(err.Error()) || !strings.Contains(err.Error(), `got ["xéé`) {
		t.Errorf("error cut a character: %q", err.Error())
	}
}

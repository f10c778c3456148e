package e2e

import (
	"encoding/json"
	"strings"
	"testing"
)

// scriptOf builds an inline fakellm script: each turn is a list of tool
// calls (name, arguments as a Go value), then a final text answer.
func scriptOf(t *testing.T, turns ...[]call) string {
	t.Helper()
	var out []map[string]any
	for i, calls := range turns {
		var tcs []map[string]any
		for j, c := range calls {
			a, err := json.Marshal(c.args)
			if err != nil {
				t.Fatal(err)
			}
			tcs = append(tcs, map[string]any{"id": "call_" + string(rune('a'+i)) + string(rune('0'+j)), "name": c.name, "arguments": string(a)})
		}
		out = append(out, map[string]any{"toolCalls": tcs})
	}
	out = append(out, map[string]any{"text": "done"})
	b, err := json.Marshal(map[string]any{"turns": out})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

type call struct {
	name string
	args any
}

// toolResults returns the content of every tool message the model was
// sent, in order, without repeats.
func (s *session) toolResults() []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range s.LLM.Requests() {
		for _, m := range r.Body.Messages {
			if m.Role == "tool" && !seen[m.ToolCallID] {
				seen[m.ToolCallID] = true
				out = append(out, m.Content)
			}
		}
	}
	return out
}

// A line-number prefix pasted from read_file and an indentation drift are
// repaired and the results say so; a syntax error an edit introduces is
// in that edit's result; several edits go in one call.
func TestEditRepairsAndSyntaxErrors(t *testing.T) {
	const src = "package a\n\nfunc A() int {\n\treturn 1\n}\n\nfunc B() int {\n\treturn 1\n}\n"
	script := scriptOf(t,
		[]call{{"edit_file", map[string]any{"path": "a.go", "old_string": "     3\tfunc A() int {\n     4\t\treturn 1\n", "new_string": "     3\tfunc A() int {\n     4\t\treturn 10\n"}}},
		[]call{{"edit_file", map[string]any{"path": "a.go", "old_string": "func B() int {\n    return 1\n}", "new_string": "func B() int {\n    return 20\n}"}}},
		[]call{{"edit_file", map[string]any{"path": "a.go", "edits": []any{
			map[string]any{"old_string": "return 10", "new_string": "return 11"},
			map[string]any{"old_string": "return 20", "new_string": "return 21 +"},
		}}}},
	)
	s := start(t, setup{files: map[string]string{"a.go": src}, script: script})
	r := s.run(t, map[string]any{"task": "change the numbers"})
	if r.Status != "ok" {
		t.Fatalf("status %q, error %q", r.Status, r.Error)
	}
	res := s.toolResults()
	if len(res) != 3 {
		t.Fatalf("%d tool results: %q", len(res), res)
	}
	for i, want := range []string{
		"repaired: removed the read_file line-number prefix pasted into old_string and new_string",
		"repaired: old_string matched lines that differ only in whitespace",
		"syntax errors in a.go after this edit",
	} {
		if !strings.Contains(res[i], want) {
			t.Errorf("result %d = %q, want it to say %q", i+1, res[i], want)
		}
	}
	got, _ := s.Text("a.go")
	if want := "package a\n\nfunc A() int {\n\treturn 11\n}\n\nfunc B() int {\n\treturn 21 +\n}\n"; got != want {
		t.Errorf("a.go = %q, want %q", got, want)
	}
}

package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func TestApplyPatch(t *testing.T) {
	const src = "package a\n\nfunc A() int {\n\treturn 1\n}\n\nfunc B() int {\n\treturn 1\n}\n"
	tests := []struct {
		name  string
		patch string
		out   string            // substring of the output
		err   string            // substring of the error
		after map[string]string // contents afterwards; "" = absent
	}{
		{
			name:  "update with an anchor picks the second of two equal hunks",
			patch: "*** Begin Patch\n*** Update File: a.go\n@@ func B() int {\n-\treturn 1\n+\treturn 2\n }\n*** End Patch",
			out:   "updated a.go",
			after: map[string]string{"a.go": strings.Replace(src, "B() int {\n\treturn 1", "B() int {\n\treturn 2", 1)},
		},
		{
			name:  "update without @@, context and trailing-space leniency",
			patch: "*** Begin Patch\n*** Update File: a.go\n func A() int {  \n-\treturn 1\n+\treturn 3\n*** End Patch\n",
			after: map[string]string{"a.go": strings.Replace(src, "A() int {\n\treturn 1", "A() int {\n\treturn 3", 1)},
		},
		{
			name:  "add, delete, move in one patch",
			patch: "*** Begin Patch\n*** Add File: new/c.txt\n+one\n+two\n*** Delete File: b.txt\n*** Update File: a.go\n*** Move to: pkg/a.go\n@@\n-package a\n+package pkg\n*** End Patch",
			out:   "added new/c.txt\ndeleted b.txt\nmoved a.go to pkg/a.go and updated it",
			after: map[string]string{"new/c.txt": "one\ntwo\n", "b.txt": "", "a.go": "", "pkg/a.go": strings.Replace(src, "package a", "package pkg", 1)},
		},
		{
			name:  "a hunk that does not match changes nothing, not even earlier files",
			patch: "*** Begin Patch\n*** Delete File: b.txt\n*** Update File: a.go\n-func C() {\n+func D() {\n*** End Patch",
			err:   "hunk 1: its context and removed lines are not in a.go",
			after: map[string]string{"a.go": src, "b.txt": "b\n"},
		},
		{
			name:  "syntax error reported",
			patch: "*** Begin Patch\n*** Update File: a.go\n-func A() int {\n+func A() int {{\n*** End Patch",
			out:   "syntax errors in a.go after this edit",
		},
		{
			name:  "escape refused",
			patch: "*** Begin Patch\n*** Add File: ../x.txt\n+x\n*** End Patch",
			err:   "outside the workspace",
		},
		{
			name:  "git refused",
			patch: "*** Begin Patch\n*** Delete File: .git/HEAD\n*** End Patch",
			err:   "inside .git",
		},
		{
			name:  "add over an existing file replaces it",
			patch: "*** Begin Patch\n*** Add File: b.txt\n+x\n*** End Patch",
			out:   "replaced b.txt",
			after: map[string]string{"b.txt": "x\n"},
		},
		{
			name:  "no envelope",
			patch: "*** Update File: a.go\n-x\n+y\n",
			err:   "the first line of the patch must be *** Begin Patch",
		},
		{
			name:  "bad hunk line",
			patch: "*** Begin Patch\n*** Update File: a.go\n@@\nreturn 1\n*** End Patch",
			err:   "patch line 4: a hunk line starts with a space, - or +",
		},
		{
			name:  "end of file",
			patch: "*** Begin Patch\n*** Update File: a.go\n@@\n }\n+\n+// end\n*** End of File\n*** End Patch",
			after: map[string]string{"a.go": src + "\n// end\n"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newDisk(t, map[string]string{"a.go": src, "b.txt": "b\n", ".git/HEAD": "ref\n"})
			tl := toolNamed(t, ws, Options{EditTool: "apply_patch"}, "apply_patch")
			args, _ := json.Marshal(map[string]string{"input": tt.patch})
			res, err := tl.Run(context.Background(), args)
			switch {
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Fatalf("error %v, want %q", err, tt.err)
			case tt.err == "" && err != nil:
				t.Fatal(err)
			case !strings.Contains(res.Output, tt.out):
				t.Errorf("output %q, want %q", res.Output, tt.out)
			}
			for rel, want := range tt.after {
				got, ok := readDisk(t, ws, rel)
				if want == "" && ok || want != "" && got != want {
					t.Errorf("%s = %q (exists %v), want %q", rel, got, ok, want)
				}
			}
		})
	}
}

func TestUsesPatch(t *testing.T) {
	for _, tt := range []struct {
		tool, model string
		want        bool
	}{
		{"auto", "gpt-5-codex", true}, {"", "gpt-5.1", true}, {"auto", "openai/gpt-5-mini", true}, {"auto", "codex-mini-latest", true},
		{"auto", "gpt-4.1", false}, {"auto", "claude-sonnet-4", false}, {"edit_file", "gpt-5", false}, {"apply_patch", "llama3", true},
	} {
		if got := UsesPatch(tt.tool, tt.model); got != tt.want {
			t.Errorf("UsesPatch(%q, %q) = %v", tt.tool, tt.model, got)
		}
	}
}

// With read-before-edit, an update, an Add over an existing file and a
// Move onto one are refused until the file was read in this task, and the
// refusal says to read it; a file the patch itself added may be updated
// in a later patch; reading a file makes its update pass.
func TestApplyPatchReadBeforeEdit(t *testing.T) {
	ws := newDisk(t, map[string]string{"a.txt": "one\n", "b.txt": "two\n", "c.txt": "three\n"})
	ts := Default(ws, Options{EditTool: "apply_patch", ReadBeforeEdit: true})
	run := func(name string, args map[string]string) (string, error) {
		t.Helper()
		for _, tl := range ts {
			if tl.Spec().Name == name {
				raw, _ := json.Marshal(args)
				res, err := tl.Run(context.Background(), raw)
				return res.Output, err
			}
		}
		t.Fatalf("no tool %s", name)
		return "", nil
	}
	patch := func(body string) map[string]string {
		return map[string]string{"input": "*** Begin Patch\n" + body + "\n*** End Patch"}
	}
	for _, body := range []string{
		"*** Update File: a.txt\n@@\n-one\n+ONE",
		"*** Add File: b.txt\n+new",
		"*** Add File: d.txt\n+fresh\n*** Update File: a.txt\n@@\n-one\n+ONE",
	} {
		_, err := run("apply_patch", patch(body))
		if err == nil || !strings.Contains(err.Error(), "has not been read in this task: read it with read_file first") {
			t.Errorf("%q: error %v, want a refusal to edit unread text", body, err)
		}
	}
	if got, _ := readDisk(t, ws, "a.txt"); got != "one\n" {
		t.Errorf("a.txt = %q after refusals", got)
	}
	if _, ok := readDisk(t, ws, "d.txt"); ok {
		t.Error("d.txt was added by a refused patch")
	}
	if _, err := run("read_file", map[string]string{"path": "a.txt"}); err != nil {
		t.Fatal(err)
	}
	if _, err := run("apply_patch", patch("*** Update File: a.txt\n*** Move to: c.txt\n@@\n-one\n+ONE")); err == nil {
		t.Error("moved onto c.txt, which was never read")
	}
	if _, err := run("apply_patch", patch("*** Update File: a.txt\n@@\n-one\n+ONE\n*** Add File: e.txt\n+e")); err != nil {
		t.Fatal(err)
	}
	if _, err := run("apply_patch", patch("*** Update File: e.txt\n@@\n-e\n+E\n*** Update File: a.txt\n@@\n-ONE\n+1")); err != nil {
		t.Errorf("a file the model added or already changed is refused: %v", err)
	}
	// The rule off (the setting), the same edit of an unread file passes.
	ws2 := newDisk(t, map[string]string{"a.txt": "one\n"})
	tl := toolNamed(t, ws2, Options{EditTool: "apply_patch"}, "apply_patch")
	if _, err := call(t, tl, patch("*** Update File: a.txt\n@@\n-one\n+ONE")); err != nil {
		t.Errorf("read-before-edit off: %v", err)
	}
}

// The tool carries the patch language as a grammar (for the Responses
// API's custom tool format), and says the all-or-nothing rule.
func TestApplyPatchSpec(t *testing.T) {
	ws := newDisk(t, nil)
	spec := toolNamed(t, ws, Options{EditTool: "apply_patch"}, "apply_patch").Spec()
	if !spec.Freeform || !strings.Contains(spec.Grammar, `"*** Begin Patch"`) || !strings.Contains(spec.Grammar, `"*** End of File"`) {
		t.Errorf("spec %+v", spec)
	}
	wantContains(t, "description", spec.Description, "All or nothing", "no file is changed", "A hunk of only + lines goes at the end")
}

// A patch inside a shell heredoc, as models sometimes send it to the
// tool: the wrapper goes whatever its word, when its quotes match.
func TestApplyPatchHeredocs(t *testing.T) {
	body := "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+two\n*** End Patch"
	for wrapped, ok := range map[string]bool{
		"apply_patch <<'EOF'\n" + body + "\nEOF\n":     true,
		"apply_patch <<'PATCH'\n" + body + "\nPATCH\n": true,
		"<<\"EOF\"\n" + body + "\nEOF":                 true,
		"<<'EOF\"\n" + body + "\nEOF":                  false,
		"cat <<EOF\n" + body + "\nEOF":                 false,
	} {
		ws := newDisk(t, map[string]string{"a.txt": "one\n"})
		_, err := call(t, toolNamed(t, ws, Options{EditTool: "apply_patch"}, "apply_patch"), map[string]string{"input": wrapped})
		if got, _ := readDisk(t, ws, "a.txt"); (err == nil) != ok || ok && got != "two\n" {
			t.Errorf("%q: error %v, a.txt %q", wrapped, err, got)
		}
	}
}

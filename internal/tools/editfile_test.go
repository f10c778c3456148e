package tools

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/agent"
)

func TestEditFile(t *testing.T) {
	const goSrc = "package a\n\nfunc A() int {\n\treturn 1\n}\n\nfunc B() int {\n\treturn 1\n}\n"
	tests := []struct {
		name  string
		files map[string]string
		args  map[string]any
		out   string            // substring of the output
		err   []string          // substrings of the error
		after map[string]string // whole-file contents afterwards
	}{
		{
			name:  "unique",
			files: map[string]string{"a.go": goSrc},
			args:  map[string]any{"path": "a.go", "old_string": "func A() int {\n\treturn 1", "new_string": "func A() int {\n\t// two\n\treturn 2"},
			out:   "edited a.go: 1 replacement, lines 3–5",
			after: map[string]string{"a.go": strings.Replace(goSrc, "func A() int {\n\treturn 1", "func A() int {\n\t// two\n\treturn 2", 1)},
		},
		{
			name:  "one line",
			files: map[string]string{"a.go": goSrc},
			args:  map[string]any{"path": "a.go", "old_string": "func B", "new_string": "func C"},
			out:   "edited a.go: 1 replacement, line 7",
		},
		{
			name:  "ambiguous",
			files: map[string]string{"a.go": goSrc},
			args:  map[string]any{"path": "a.go", "old_string": "\treturn 1\n", "new_string": "\treturn 2\n"},
			err:   []string{"old_string occurs 2 times in a.go (at lines 4, 8)", "replace_all"},
			after: map[string]string{"a.go": goSrc},
		},
		{
			name:  "replace all",
			files: map[string]string{"a.go": goSrc},
			args:  map[string]any{"path": "a.go", "old_string": "return 1", "new_string": "return 2", "replace_all": true},
			out:   "edited a.go: 2 replacements, at lines 4, 8",
			after: map[string]string{"a.go": strings.ReplaceAll(goSrc, "return 1", "return 2")},
		},
		{
			name:  "replace all with multi-line growth reports new-text lines",
			files: map[string]string{"x.txt": "a\nb\na\nb\n"},
			args:  map[string]any{"path": "x.txt", "old_string": "a\n", "new_string": "a1\na2\n", "replace_all": true},
			out:   "at lines 1, 4",
			after: map[string]string{"x.txt": "a1\na2\nb\na1\na2\nb\n"},
		},
		{
			name:  "missing shows nearest line with context",
			files: map[string]string{"a.go": goSrc},
			args:  map[string]any{"path": "a.go", "old_string": "func Bee() int {\n\treturn 3\n}", "new_string": "x"},
			err:   []string{"old_string not found in a.go", "most like its first line is 7", "2\t\n", "7\tfunc B() int {", "9\t}", "copy old_string exactly"},
			after: map[string]string{"a.go": goSrc},
		},
		{
			name:  "indentation drift in a unique match is repaired",
			files: map[string]string{"a.go": goSrc},
			args:  map[string]any{"path": "a.go", "old_string": "func B() int {\n    return 1\n}", "new_string": "func B() int {\n    return 2\n}"},
			out:   "edited a.go: 1 replacement, lines 7–9 (repaired: old_string matched lines that differ only in whitespace; they were replaced)",
			after: map[string]string{"a.go": strings.Replace(goSrc, "B() int {\n\treturn 1", "B() int {\n\treturn 2", 1)},
		},
		{
			name:  "whitespace drift with two matches is not repaired",
			files: map[string]string{"a.go": goSrc},
			args:  map[string]any{"path": "a.go", "old_string": "  return 1\n}", "new_string": "x"},
			err:   []string{"old_string not found in a.go"},
			after: map[string]string{"a.go": goSrc},
		},
		{
			name:  "pasted line numbers are stripped",
			files: map[string]string{"a.go": goSrc},
			args:  map[string]any{"path": "a.go", "old_string": "7\tfunc B() int {\n8\t\treturn 1\n", "new_string": "7\tfunc B() int {\n8\t\treturn 3\n"},
			out:   "(repaired: removed the read_file line-number prefix pasted into old_string and new_string)",
			after: map[string]string{"a.go": strings.Replace(goSrc, "B() int {\n\treturn 1", "B() int {\n\treturn 3", 1)},
		},
		{
			name:  "syntax error reported",
			files: map[string]string{"a.go": goSrc},
			args:  map[string]any{"path": "a.go", "old_string": "func B() int {", "new_string": "func B() int {{"},
			out:   "syntax errors in a.go after this edit (fix them):\na.go:",
		},
		{
			name:  "several edits in one call",
			files: map[string]string{"a.go": goSrc},
			args: map[string]any{"path": "a.go", "edits": []any{
				map[string]any{"old_string": "func A", "new_string": "func AA"},
				map[string]any{"old_string": "func AA() int {\n\treturn 1", "new_string": "func AA() int {\n\treturn 5"},
			}},
			out:   "1. edited a.go: 1 replacement, line 3\n2. edited a.go: 1 replacement, lines 3–4",
			after: map[string]string{"a.go": strings.Replace(goSrc, "func A() int {\n\treturn 1", "func AA() int {\n\treturn 5", 1)},
		},
		{
			name:  "several edits, one failing, change nothing",
			files: map[string]string{"a.go": goSrc},
			args: map[string]any{"path": "a.go", "edits": []any{
				map[string]any{"old_string": "func A", "new_string": "func AA"},
				map[string]any{"old_string": "nowhere", "new_string": "x"},
			}},
			err:   []string{"edit 2 of 2 failed, so none was applied"},
			after: map[string]string{"a.go": goSrc},
		},
		{
			name:  "crlf file keeps crlf",
			files: map[string]string{"w.txt": "one\r\ntwo\r\nthree\r\n"},
			args:  map[string]any{"path": "w.txt", "old_string": "two\nthree", "new_string": "2\n2.5\nthree"},
			out:   "lines 2–4",
			after: map[string]string{"w.txt": "one\r\n2\r\n2.5\r\nthree\r\n"},
		},
		{
			name:  "mixed endings are not normalised",
			files: map[string]string{"m.txt": "one\r\ntwo\nthree\n"},
			args:  map[string]any{"path": "m.txt", "old_string": "two", "new_string": "2"},
			after: map[string]string{"m.txt": "one\r\n2\nthree\n"},
		},
		{
			name:  "delete text",
			files: map[string]string{"a.go": goSrc},
			args:  map[string]any{"path": "a.go", "old_string": "\nfunc B() int {\n\treturn 1\n}\n", "new_string": ""},
			after: map[string]string{"a.go": "package a\n\nfunc A() int {\n\treturn 1\n}\n"},
		},
		{
			name:  "same strings",
			files: map[string]string{"a.go": goSrc},
			args:  map[string]any{"path": "a.go", "old_string": "func", "new_string": "func"},
			err:   []string{"the same"},
		},
		{
			name:  "empty old_string",
			files: map[string]string{"a.go": goSrc},
			args:  map[string]any{"path": "a.go", "old_string": "", "new_string": "x"},
			err:   []string{"use write_file"},
		},
		{
			name: "missing file suggests write_file",
			args: map[string]any{"path": "new.go", "old_string": "a", "new_string": "b"},
			err:  []string{"file new.go does not exist; use write_file"},
		},
		{
			name:  "binary refused",
			files: map[string]string{"b.bin": "a\x00b"},
			args:  map[string]any{"path": "b.bin", "old_string": "a", "new_string": "c"},
			err:   []string{"binary"},
			after: map[string]string{"b.bin": "a\x00b"},
		},
		{
			name:  "too big refused, saying why",
			files: map[string]string{"big.txt": "needle\n" + strings.Repeat("x", maxEditSize)},
			args:  map[string]any{"path": "big.txt", "old_string": "needle", "new_string": "pin"},
			err:   []string{"edit_file takes files up to 33554432 bytes (32 MiB), since each edit", "run_command"},
		},
		// A generated file of a few MB is edited (issue 13, item 8).
		{
			name:  "a 3 MB file",
			files: map[string]string{"gen.txt": strings.Repeat("line of generated text\n", 3<<20/23) + "needle\n"},
			args:  map[string]any{"path": "gen.txt", "old_string": "needle", "new_string": "pin"},
			after: map[string]string{"gen.txt": strings.Repeat("line of generated text\n", 3<<20/23) + "pin\n"},
		},
		{
			name:  "git internals are read-only",
			files: map[string]string{".git/config": "[core]\n"},
			args:  map[string]any{"path": ".git/config", "old_string": "core", "new_string": "x"},
			err:   []string{".git, which is read-only"},
			after: map[string]string{".git/config": "[core]\n"},
		},
		{
			name:  "secret refused",
			files: map[string]string{"conf/.env": "K=1\n"},
			args:  map[string]any{"path": "conf/.env", "old_string": "1", "new_string": "2"},
			err:   []string{"secret"},
		},
		{
			name: "outside refused",
			args: map[string]any{"path": "../a.go", "old_string": "1", "new_string": "2"},
			err:  []string{"outside the workspace"},
		},
		{
			name: "missing argument",
			args: map[string]any{"path": "a.go", "old_string": "1"},
			err:  []string{`missing required field "new_string"`, `"replace_all":{"type":"boolean"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newDisk(t, tt.files)
			res, err := call(t, toolNamed(t, ws, Options{}, "edit_file"), tt.args)
			if len(tt.err) > 0 {
				if err == nil {
					t.Fatalf("no error; output %q", res.Output)
				}
				wantContains(t, "error", err.Error(), tt.err...)
				if res.Changed != nil {
					t.Errorf("Changed = %v on error", res.Changed)
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				wantContains(t, "output", res.Output, tt.out)
				if !slices.Equal(res.Changed, []string{tt.args["path"].(string)}) {
					t.Errorf("Changed = %v", res.Changed)
				}
			}
			for rel, want := range tt.after {
				if got, _ := readDisk(t, ws, rel); got != want {
					t.Errorf("%s = %q, want %q", rel, got, want)
				}
			}
		})
	}
}

// TestEditFileRunsOnCurrentText: the user types into the buffer while the
// edit is in flight; the edit must apply to the new text and keep the typing.
func TestEditFileRunsOnCurrentText(t *testing.T) {
	disk := newDisk(t, map[string]string{"a.go": "stale disk text\n"})
	ws := &bufferWS{
		DiskWorkspace: disk,
		bufs:          map[string]string{"a.go": "x := 1\n"},
		typeOnce:      func(s string) string { return "// typed by the user\n" + s },
	}
	res, err := call(t, toolNamed(t, ws, Options{}, "edit_file"), map[string]any{"path": "a.go", "old_string": "x := 1", "new_string": "x := 2"})
	if err != nil {
		t.Fatal(err)
	}
	if got := ws.bufs["a.go"]; got != "// typed by the user\nx := 2\n" {
		t.Fatalf("buffer = %q", got)
	}
	if ws.calls != 2 {
		t.Errorf("transform ran %d times, want 2", ws.calls)
	}
	wantContains(t, "output", res.Output, "line 2")
	if got, _ := readDisk(t, ws, "a.go"); got != "stale disk text\n" {
		t.Errorf("disk changed to %q; edits of open files go to the buffer", got)
	}
}

func TestWriteFile(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string
		path    string
		content string
		out     string
		err     string
		want    string // file content afterwards, if no error
		changed bool
	}{
		{name: "new file in new directories", path: "x/y/z.go", content: "package z\n", out: "created x/y/z.go (1 line, 10 bytes)", want: "package z\n", changed: true},
		{name: "replace", files: map[string]string{"a.txt": "old\n"}, path: "a.txt", content: "new\nlines\n", out: "wrote a.txt (2 lines", want: "new\nlines\n", changed: true},
		{name: "unchanged", files: map[string]string{"a.txt": "same\n"}, path: "a.txt", content: "same\n", out: "nothing changed", want: "same\n"},
		{name: "crlf kept", files: map[string]string{"w.txt": "a\r\nb\r\n"}, path: "w.txt", content: "c\nd\n", want: "c\r\nd\r\n", changed: true},
		{name: "empty content", files: map[string]string{"a.txt": "x"}, path: "a.txt", content: "", want: "", changed: true},
		{name: "git refused", path: ".git/hooks/pre-commit", content: "rm -rf /", err: "read-only"},
		{name: "git via nested repo refused", path: "vendor/lib/.git/config", content: "x", err: "read-only"},
		{name: "secret refused", path: "deploy/id_rsa", content: "x", err: "secret"},
		{name: "binary not replaced", files: map[string]string{"img.png": "\x89PNG\x00"}, path: "img.png", content: "x", err: "binary"},
		{name: "directory", files: map[string]string{"d/f": ""}, path: "d", content: "x", err: "d is a directory"},
		{name: "root", path: ".", content: "x", err: "workspace root"},
		{name: "outside", path: "/tmp/evil", content: "x", err: "outside the workspace"},
		{name: "too large", path: "big", content: strings.Repeat("x", maxWriteSize+1), err: "write_file takes at most"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newDisk(t, tt.files)
			res, err := call(t, toolNamed(t, ws, Options{}, "write_file"), map[string]any{"path": tt.path, "content": tt.content})
			if tt.err != "" {
				if err == nil {
					t.Fatalf("no error; output %q", res.Output)
				}
				wantContains(t, "error", err.Error(), tt.err)
				if res.Changed != nil {
					t.Errorf("Changed = %v on error", res.Changed)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			wantContains(t, "output", res.Output, tt.out)
			if got, _ := readDisk(t, ws, tt.path); got != tt.want {
				t.Errorf("file = %q, want %q", got, tt.want)
			}
			if (res.Changed != nil) != tt.changed {
				t.Errorf("Changed = %v, want changed=%v", res.Changed, tt.changed)
			}
		})
	}
}

func TestWriteFileKeepsModeAndLeavesNoTemp(t *testing.T) {
	ws := newDisk(t, map[string]string{"run.sh": "#!/bin/sh\n"})
	p := filepath.Join(ws.Root(), "run.sh")
	if err := os.Chmod(p, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := call(t, toolNamed(t, ws, Options{}, "write_file"), map[string]any{"path": "run.sh", "content": "#!/bin/sh\necho hi\n"}); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o755 {
		t.Errorf("mode = %v, want 0755", fi.Mode().Perm())
	}
	if _, err := call(t, toolNamed(t, ws, Options{}, "write_file"), map[string]any{"path": "n/new.txt", "content": "x"}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(ws.Root(), "n/new.txt")); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("new file: %v, %v; want mode 0644", fi, err)
	}
	entries, _ := os.ReadDir(ws.Root())
	for _, e := range entries {
		if strings.Contains(e.Name(), "agentls") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

// TestWriteThroughSymlinkInside: a link inside the workspace to a file
// inside it is written at its target and stays a link.
func TestWriteThroughSymlinkInside(t *testing.T) {
	ws := newDisk(t, map[string]string{"real/a.txt": "a\n"})
	link := filepath.Join(ws.Root(), "alias.txt")
	if err := os.Symlink("real/a.txt", link); err != nil {
		t.Fatal(err)
	}
	res, err := call(t, toolNamed(t, ws, Options{}, "edit_file"), map[string]any{"path": "alias.txt", "old_string": "a", "new_string": "b"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Changed, []string{"real/a.txt"}) {
		t.Errorf("Changed = %v, want the real path", res.Changed)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("alias.txt is no longer a symlink")
	}
	if got, _ := readDisk(t, ws, "real/a.txt"); got != "b\n" {
		t.Errorf("target = %q", got)
	}
}

func TestWriteSymlinkEscapeRefused(t *testing.T) {
	outside := t.TempDir()
	ws := newDisk(t, nil)
	if err := os.Symlink(outside, filepath.Join(ws.Root(), "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "new.txt"), filepath.Join(ws.Root(), "dangling")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"out/x.txt", "dangling"} {
		_, err := call(t, toolNamed(t, ws, Options{}, "write_file"), map[string]any{"path": p, "content": "pwned"})
		if err == nil || !strings.Contains(err.Error(), "outside the workspace") {
			t.Errorf("%s: err = %v", p, err)
		}
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("something was written outside: %v", entries)
	}
}

// With read-before-edit (the default of agent.readBeforeEdit), edit_file
// of a file not read in this task is refused with a message to read it
// first and changes nothing; after read_file (or a write of the file) the
// edit goes through. A file changed since it was read is not refused here.
func TestEditFileReadBeforeEdit(t *testing.T) {
	ws := newDisk(t, map[string]string{"a.txt": "alpha\n"})
	ts := Default(ws, Options{EditTool: "edit_file", ReadBeforeEdit: true})
	byName := map[string]agent.Tool{}
	for _, tl := range ts {
		byName[tl.Spec().Name] = tl
	}
	edit := map[string]string{"path": "a.txt", "old_string": "alpha", "new_string": "beta"}
	_, err := call(t, byName["edit_file"], edit)
	if err == nil || !strings.Contains(err.Error(), "a.txt has not been read in this task: read it with read_file first") {
		t.Fatalf("error %v, want a refusal", err)
	}
	if got, _ := readDisk(t, ws, "a.txt"); got != "alpha\n" {
		t.Fatalf("a.txt = %q after a refused edit", got)
	}
	if _, err := call(t, byName["read_file"], map[string]string{"path": "a.txt"}); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, ws.Root(), map[string]string{"a.txt": "alpha\nmore\n"}) // changed since read
	if _, err := call(t, byName["edit_file"], edit); err != nil {
		t.Fatalf("after read_file: %v", err)
	}
	if _, err := call(t, byName["write_file"], map[string]string{"path": "n.txt", "content": "x\n"}); err != nil {
		t.Fatal(err)
	}
	if _, err := call(t, byName["edit_file"], map[string]string{"path": "n.txt", "old_string": "x", "new_string": "y"}); err != nil {
		t.Errorf("a file the model wrote: %v", err)
	}
	if !strings.Contains(byName["edit_file"].Spec().Description, "Edit only files you have read in this task") {
		t.Error("the description does not say the rule")
	}
}

// replanning is a workspace whose Edit plans twice, as the write path does
// when a creation the editor reported late is read back (an empty buffer,
// then the text), and keeps the first plan's result.
type replanning struct{ *DiskWorkspace }

func (w replanning) Edit(ctx context.Context, rel string, transform func([]byte, bool) ([]byte, error)) error {
	first, err := transform(nil, false)
	if err != nil {
		return err
	}
	if _, err := transform([]byte{}, true); err != nil {
		return err
	}
	return w.DiskWorkspace.Edit(ctx, rel, func([]byte, bool) ([]byte, error) { return first, nil })
}

// write_file says "created" for a file that did not exist when the call
// began, however often the write path planned it again on later texts.
// Before, the last plan (on the editor's empty buffer) made it "wrote",
// and a model scripted on "created" wrote again until stopped as stuck
// (a clean-clone CI run of the VS Code suite).
func TestWriteFileCreatedSurvivesAReplan(t *testing.T) {
	ws := replanning{newDisk(t, nil)}
	res, err := call(t, toolNamed(t, ws, Options{}, "write_file"), map[string]any{"path": "data.txt", "content": "status: done\n"})
	if err != nil || !strings.HasPrefix(res.Output, "created data.txt") {
		t.Fatalf("output %q, err %v", res.Output, err)
	}
}

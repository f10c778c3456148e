package tools

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/testkit/need"
)

// searchTree is a small repository with nested .gitignore files, a negation,
// an info/exclude rule, a binary, a secret, and a symlink leaving the root.
func searchTree(t *testing.T) *DiskWorkspace {
	t.Helper()
	ws := newDisk(t, map[string]string{
		".gitignore":          "*.log\n!keep.log\n/build/\nnode_modules/\n# comment\n\n",
		".git/info/exclude":   "local-notes.md\n",
		".git/config":         "needle in git\n",
		"main.go":             "package main\n\nfunc main() { needle() }\n",
		"util.go":             "package main\n\nfunc needle() {}\n",
		"keep.log":            "needle kept by negation\n",
		"debug.log":           "needle ignored\n",
		"local-notes.md":      "needle excluded by info/exclude\n",
		"build/out.txt":       "needle in build\n",
		"node_modules/m/i.js": "needle in node_modules\n",
		"pkg/.gitignore":      "*.gen.go\n!keep.gen.go\ntmp/\n",
		"pkg/a.go":            "package pkg // needle\n",
		"pkg/a.gen.go":        "package pkg // needle generated\n",
		"pkg/keep.gen.go":     "package pkg // needle kept\n",
		"pkg/tmp/x.go":        "needle tmp\n",
		"pkg/sub/b.go":        "package sub // needle\n",
		"pkg/sub/c.gen.go":    "needle nested ignore reaches down\n",
		"other/a.gen.go":      "needle: pkg's rule does not apply here\n",
		"other/build/out.txt": "needle: /build is anchored to the root\n",
		"img.png":             "\x89PNG\x00needle",
		"latin1.txt":          "caf\xe9 needle\n",
		".env":                "needle=secret\n",
		"config/server.pem":   "needle key\n",
		"win.txt":             "first\r\nneedle crlf\r\n",
		"docs/readme.md":      "Needle with a capital\n",
		"docs/long.txt":       strings.Repeat("é", 400) + " needle\n",
		"many/m.txt":          strings.Repeat("needle\n", 250),
	})
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("needle outside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(ws.Root(), "outlink")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(ws.Root(), "outfile.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("win.txt", filepath.Join(ws.Root(), "winlink.txt")); err != nil {
		t.Fatal(err)
	}
	return ws
}

func TestListFiles(t *testing.T) {
	ws := searchTree(t)
	lf := toolNamed(t, ws, Options{}, "list_files")
	all := []string{
		".gitignore", "config/server.pem", "docs/long.txt", "docs/readme.md", "img.png", "keep.log", "latin1.txt", "main.go",
		"many/m.txt", "other/a.gen.go", "other/build/out.txt", "pkg/.gitignore", "pkg/a.go", "pkg/keep.gen.go",
		"pkg/sub/b.go", "util.go", "win.txt", "winlink.txt",
	}
	// config/server.pem is secret and must not be there; build the expectation without it.
	var want []string
	for _, f := range all {
		if f != "config/server.pem" {
			want = append(want, f)
		}
	}
	tests := []struct {
		args string
		want string
	}{
		{`{}`, strings.Join(want, "\n") + "\n"},
		{`{"path":"pkg"}`, "pkg/.gitignore\npkg/a.go\npkg/keep.gen.go\npkg/sub/b.go\n"},
		{`{"pattern":"*.go"}`, "main.go\nother/a.gen.go\npkg/a.go\npkg/keep.gen.go\npkg/sub/b.go\nutil.go\n"},
		{`{"pattern":"pkg/**/*.go"}`, "pkg/a.go\npkg/keep.gen.go\npkg/sub/b.go\n"},
		{`{"path":"pkg","pattern":"sub/*.go"}`, "pkg/sub/b.go\n"},
		{`{"pattern":"*.{md,log}"}`, "docs/readme.md\nkeep.log\n"},
		{`{"path":"main.go"}`, "main.go\n"},
		{`{"pattern":"*.rs"}`, "(no files match \"*.rs\")\n"},
		{`{"path":"node_modules"}`, "(node_modules is git-ignored; listed because it was asked for by path)\nnode_modules/m/i.js\n"},
		{`{"path":"pkg/tmp"}`, "(pkg/tmp is git-ignored; listed because it was asked for by path)\npkg/tmp/x.go\n"},
	}
	for _, tt := range tests {
		res, err := call(t, lf, tt.args)
		if err != nil {
			t.Errorf("%s: %v", tt.args, err)
			continue
		}
		if res.Output != tt.want {
			t.Errorf("%s:\ngot:\n%s\nwant:\n%s", tt.args, res.Output, tt.want)
		}
	}
	for args, wantErr := range map[string]string{
		`{"path":"../"}`:        "outside the workspace",
		`{"path":"outlink"}`:    "outside the workspace",
		`{"path":"missing"}`:    "missing does not exist",
		`{"pattern":"[a-"}`:     "bad glob",
		`{"path":".env"}`:       "secret",
		`{"path":1}`:            `"path" must be a string`,
		`{"path":"a","x":true}`: "unknown field",
	} {
		if _, err := call(t, lf, args); err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("%s: err = %v, want %q", args, err, wantErr)
		}
	}
}

func TestListFilesCap(t *testing.T) {
	files := map[string]string{}
	for i := range 30 {
		files[fmt.Sprintf("d/f%02d.txt", i)] = ""
	}
	ws := newDisk(t, files)
	res, err := call(t, toolNamed(t, ws, Options{MaxListFiles: 10}, "list_files"), `{}`)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(res.Output), "\n")
	if len(lines) != 11 || lines[0] != "d/f00.txt" || lines[9] != "d/f09.txt" {
		t.Fatalf("output:\n%s", res.Output)
	}
	wantContains(t, "note", lines[10], "10 of 30 files shown, 20 cut")
}

func TestGrep(t *testing.T) {
	ws := searchTree(t)
	gr := toolNamed(t, ws, Options{MaxGrepMatches: 1000}, "grep")
	tests := []struct {
		args    string
		want    string // exact output, if set
		has     []string
		hasNot  []string
		wantErr string
	}{
		{
			args: `{"pattern":"needle","glob":"*.go"}`,
			want: "main.go:3: func main() { needle() }\nother/a.gen.go:1: needle: pkg's rule does not apply here\npkg/a.go:1: package pkg // needle\npkg/keep.gen.go:1: package pkg // needle kept\npkg/sub/b.go:1: package sub // needle\nutil.go:3: func needle() {}\n",
		},
		{
			args:   `{"pattern":"needle"}`,
			has:    []string{"keep.log:1: needle kept by negation", "win.txt:2: needle crlf\n", "other/build/out.txt:1:", "docs/long.txt:1: " + strings.Repeat("é", 300) + "…\n", "many/m.txt:250: needle\n"},
			hasNot: []string{"debug.log", "local-notes", "build/out.txt:1: needle in build", "node_modules", "a.gen.go:1: package", "tmp", "c.gen.go", "img.png", "latin1", ".env", "server.pem", ".git/", "outside", "\r", "winlink", "cut;"},
		},
		{args: `{"pattern":"(?i)^needle with","path":"docs"}`, want: "docs/readme.md:1: Needle with a capital\n"},
		{args: `{"pattern":"needle\\(\\)","path":"main.go"}`, want: "main.go:3: func main() { needle() }\n"},
		{args: `{"pattern":"^package \\w+ //","glob":"pkg/**/*.go"}`, has: []string{"pkg/a.go:1:", "pkg/sub/b.go:1:"}},
		{args: `{"pattern":"needle$","path":"many"}`, has: []string{"many/m.txt:1: needle\n", "many/m.txt:250: needle\n"}, hasNot: []string{"many/m.txt:251:", "cut"}},
		{args: `{"pattern":"needle","path":"node_modules"}`, has: []string{"(node_modules is git-ignored; searched", "node_modules/m/i.js:1: needle in node_modules"}},
		{args: `{"pattern":"needle","path":"debug.log"}`, want: "debug.log:1: needle ignored\n"},
		{args: `{"pattern":"needle","path":"img.png"}`, want: "(img.png is a binary file; not searched)\n(no matches)\n"},
		{args: `{"pattern":"nothing-like-this"}`, want: "(no matches)\n"},
		{args: `{"pattern":"func(","path":"."}`, wantErr: "invalid regular expression"},
		{args: `{"pattern":"x","path":"outlink"}`, wantErr: "outside the workspace"},
		{args: `{"pattern":"x","path":"outfile.txt"}`, wantErr: "outside the workspace"},
		{args: `{"pattern":"x","path":".env"}`, wantErr: "secret"},
		{args: `{"path":"."}`, wantErr: `missing required field "pattern"`},
	}
	for _, tt := range tests {
		res, err := call(t, gr, tt.args)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: err = %v, want %q", tt.args, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.args, err)
			continue
		}
		if tt.want != "" && res.Output != tt.want {
			t.Errorf("%s:\ngot:\n%s\nwant:\n%s", tt.args, res.Output, tt.want)
		}
		wantContains(t, tt.args, res.Output, tt.has...)
		for _, h := range tt.hasNot {
			if strings.Contains(res.Output, h) {
				t.Errorf("%s: output contains %q:\n%s", tt.args, h, res.Output)
			}
		}
	}
}

// TestGrepSeesBuffers: open files are searched in their buffer text, and an
// unsaved new buffer is found by grep and list_files.
func TestGrepSeesBuffers(t *testing.T) {
	disk := newDisk(t, map[string]string{"a.go": "old text\n", "b.go": "needle on disk\n"})
	// A directory of the workspace that is a symlink to one outside it: a
	// buffer the editor has there is outside the workspace, as read_file
	// says of the same path.
	if err := os.Symlink(t.TempDir(), filepath.Join(disk.Root(), "elsewhere")); err != nil {
		t.Fatal(err)
	}
	ws := &bufferWS{DiskWorkspace: disk, bufs: map[string]string{
		"a.go":            "first\nneedle typed but not saved\n",
		"new/n.go":        "needle in a new buffer\n",
		"../x.go":         "needle outside, must be ignored\n",
		"other/.env":      "needle secret buffer\n",
		"elsewhere/s.txt": "needle behind a symlinked directory\n",
	}}
	res, err := call(t, toolNamed(t, ws, Options{}, "grep"), `{"pattern":"needle"}`)
	if err != nil {
		t.Fatal(err)
	}
	want := "a.go:2: needle typed but not saved\nb.go:1: needle on disk\nnew/n.go:1: needle in a new buffer\n"
	if res.Output != want {
		t.Errorf("grep:\n%s\nwant:\n%s", res.Output, want)
	}
	res, err = call(t, toolNamed(t, ws, Options{}, "list_files"), `{}`)
	if err != nil {
		t.Fatal(err)
	}
	if want := "a.go\nb.go\nnew/n.go\n"; res.Output != want {
		t.Errorf("list_files:\n%s\nwant:\n%s", res.Output, want)
	}
}

func TestGlob(t *testing.T) {
	tests := []struct {
		glob, path string
		want       bool
	}{
		{"*.go", "a/b/c.go", true},
		{"*.go", "c.go.txt", false},
		{"**/*.go", "c.go", true},
		{"**/*.go", "a/b/c.go", true},
		{"src/**/*.ts", "src/x.ts", true},
		{"src/**/*.ts", "src/a/b/x.ts", true},
		{"src/**/*.ts", "lib/src/x.ts", false},
		{"src/*.ts", "src/a/x.ts", false},
		{"*.{ts,tsx}", "a/x.tsx", true},
		{"*.{ts,tsx}", "a/x.js", false},
		{"a/**", "a/b/c", true},
		{"./a/*.go", "a/x.go", true},
	}
	for _, tt := range tests {
		g, err := compileGlob(tt.glob)
		if err != nil {
			t.Fatal(err)
		}
		if got := g.match(tt.path); got != tt.want {
			t.Errorf("glob %q on %q = %v, want %v", tt.glob, tt.path, got, tt.want)
		}
	}
}

func TestGrepCap(t *testing.T) {
	files := map[string]string{}
	for i := range 40 {
		files[fmt.Sprintf("d%02d/f.txt", i)] = strings.Repeat("hit\n", 10)
	}
	ws := newDisk(t, files)
	res, err := call(t, toolNamed(t, ws, Options{MaxGrepMatches: 25}, "grep"), `{"pattern":"hit"}`)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(res.Output), "\n")
	want := []string{"d00/f.txt:1: hit", "d02/f.txt:5: hit"}
	if len(lines) != 26 || lines[0] != want[0] || lines[24] != want[1] {
		t.Fatalf("output:\n%s", res.Output)
	}
	wantContains(t, "note", lines[25], "25 of 400 matching lines shown, 375 cut")
}

// TestIgnoreMatchesGit compares list_files with git's own view of the same
// tree: `git ls-files --others --exclude-standard` lists exactly the files
// that are neither tracked nor ignored.
func TestIgnoreMatchesGit(t *testing.T) {
	gitBin, err := exec.LookPath("git")
	if err != nil {
		need.Missing(t, "git not installed")
	}
	files := map[string]string{
		".gitignore":     "*.log\n!keep.log\n!logs\n/build\nout/\ndocs/*.tmp\n**/cache\na/**/z.txt\n\\#hash\nfoo[0-9].c\ntrail\\ \n*.o\n!/special.o\nnested/deep/\ntemp?\n",
		"sub/.gitignore": "*.gen\n!important.gen\n/local\nsub-only/\n",
		"x.log":          "", "keep.log": "", "sub/keep.log": "", "logs/x.log": "", "logs/y.txt": "", "build/a": "", "sub/build/a": "",
		"out/x": "", "sub/out/x": "", "docs/a.tmp": "", "docs/deep/a.tmp": "", "cache/x": "", "deep/er/cache/x": "",
		"a/z.txt": "", "a/b/c/z.txt": "", "#hash": "", "foo1.c": "", "fooa.c": "", "trail ": "", "x.o": "", "special.o": "",
		"sub/special.o": "", "nested/deep/f": "", "deep/nested/deep/f": "", "temp1": "", "temp12": "", "sub/a.gen": "",
		"sub/important.gen": "", "sub/local/x": "", "local/x": "", "sub/sub-only/x": "", "x.gen": "", "sub/x/a.gen": "",
		"sub/x/local/y": "", "excluded.md": "", "kept.md": "",
	}
	ws := newDisk(t, files)
	run := func(args ...string) string {
		cmd := exec.Command(gitBin, args...)
		cmd.Dir = ws.Root()
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	run("init", "-q")
	writeFiles(t, ws.Root(), map[string]string{".git/info/exclude": "excluded.md\n"})
	want := strings.Split(strings.TrimSpace(run("-c", "core.quotePath=false", "ls-files", "--others", "--exclude-standard")), "\n")
	slices.Sort(want)
	res, err := call(t, toolNamed(t, ws, Options{}, "list_files"), `{}`)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSpace(res.Output), "\n")
	if !slices.Equal(got, want) {
		t.Errorf("list_files and git disagree\nlist_files: %q\ngit:        %q", got, want)
	}
}

// A panic while visiting a file ends the walk with an error: it neither
// takes the process down nor leaves the other workers waiting.
func TestWalkPanicIsAnError(t *testing.T) {
	ws := searchTree(t)
	for _, batch := range []bool{false, true} {
		w := &walker{root: ws.Root(), policy: Policy{Root: ws.Root()}, batch: batch, visit: func(_ any, e walkEntry) {
			if e.rel == "pkg/a.go" {
				panic("boom")
			}
		}}
		_, err := w.walk(t.Context(), ".")
		if err == nil || !strings.Contains(err.Error(), "boom") {
			t.Errorf("batch=%v: err = %v, want the panic as an error", batch, err)
		}
	}
}

func TestGrepModes(t *testing.T) {
	ws := newDisk(t, map[string]string{
		"a.go": "package a\n// one\nfunc Needle() {}\n// two\n// three\n// four\nvar needle = 1\n// five\n",
		"b.go": "package b\nvar NEEDLE = 2\n",
		"c.go": "package c\n",
	})
	g := toolNamed(t, ws, Options{}, "grep")
	run := func(args string) string {
		t.Helper()
		res, err := g.Run(t.Context(), []byte(args))
		if err != nil {
			t.Fatalf("grep %s: %v", args, err)
		}
		return res.Output
	}
	if got := run(`{"pattern":"needle"}`); got != "a.go:7: var needle = 1\n" {
		t.Errorf("case-sensitive: %q", got)
	}
	if got := run(`{"pattern":"needle","ignore_case":true,"output":"files"}`); got != "a.go\nb.go\n" {
		t.Errorf("files: %q", got)
	}
	if got := run(`{"pattern":"needle","ignore_case":true,"output":"count"}`); got != "a.go:2\nb.go:1\n" {
		t.Errorf("count: %q", got)
	}
	want := "a.go-2- // one\na.go:3: func Needle() {}\na.go-4- // two\n--\na.go-6- // four\na.go:7: var needle = 1\na.go-8- // five\n"
	if got := run(`{"pattern":"needle","ignore_case":true,"context":1,"path":"a.go"}`); got != want {
		t.Errorf("context:\n%s\nwant\n%s", got, want)
	}
	if _, err := g.Run(t.Context(), []byte(`{"pattern":"x","output":"paths"}`)); err == nil {
		t.Error("a bad output mode was accepted")
	}
}

func TestListFilesDepth(t *testing.T) {
	ws := newDisk(t, map[string]string{"a.txt": "", "d/b.txt": "", "d/e/c.txt": "", "d/e/f/g.txt": "", "x/y.txt": ""})
	l := toolNamed(t, ws, Options{}, "list_files")
	for args, want := range map[string]string{
		`{"depth":1}`:            "a.txt\nd/ (3 files)\nx/ (1 file)\n",
		`{"depth":2}`:            "a.txt\nd/b.txt\nd/e/ (2 files)\nx/y.txt\n",
		`{"path":"d","depth":1}`: "d/b.txt\nd/e/ (2 files)\n",
		`{"path":"d","depth":5}`: "d/b.txt\nd/e/c.txt\nd/e/f/g.txt\n",
	} {
		res, err := l.Run(t.Context(), []byte(args))
		if err != nil {
			t.Fatal(err)
		}
		if res.Output != want {
			t.Errorf("list_files %s:\n%s\nwant\n%s", args, res.Output, want)
		}
	}
}

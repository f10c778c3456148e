package verify

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
)

// scopeModule writes a module example.com/m:
//
//	a            (leaf)
//	b  → a
//	c  → b       (so c reaches a through b)
//	d            (imports nothing of the module)
//	e            test files only; its external test imports a
//	w            only a file for windows: no package here
//	. (root)     imports d
//	nested/      a module of its own: never in "./..."
//	a/testdata/  data a's tests read
func scopeModule(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"go.mod":               "module example.com/m\n\ngo 1.22\n",
		"a/a.go":               "package a\n\nfunc A() int { return 1 }\n",
		"a/a_test.go":          "package a\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) {}\n",
		"a/testdata/golden":    "1\n",
		"b/b.go":               "package b\n\nimport \"example.com/m/a\"\n\nfunc B() int { return a.A() + 1 }\n",
		"c/c.go":               "package c\n\nimport \"example.com/m/b\"\n\nfunc C() int { return b.B() + 1 }\n",
		"d/d.go":               "package d\n\nfunc D() int { return 4 }\n",
		"e/e_test.go":          "package e_test\n\nimport (\n\t\"testing\"\n\n\t\"example.com/m/a\"\n)\n\nfunc TestE(t *testing.T) { _ = a.A() }\n",
		"w/w_windows.go":       "package w\n",
		"main.go":              "package main\n\nimport \"example.com/m/d\"\n\nfunc main() { _ = d.D() }\n",
		"nested/go.mod":        "module example.com/nested\n",
		"nested/n.go":          "package n\n\nimport \"example.com/m/a\"\n\nvar _ = a.A\n",
		"docs/notes.txt":       "not Go\n",
		".hidden/h.go":         "package h\n\nimport \"example.com/m/a\"\n\nvar _ = a.A\n",
		"_tools/t.go":          "package t\n\nimport \"example.com/m/a\"\n\nvar _ = a.A\n",
		"a/testdata/src/x.go":  "package x\n",
		"c/internal/ci/ci.go":  "package ci\n",
		"c/internal/ci/use.go": "package ci\n\nimport \"example.com/m/c\"\n\nvar _ = c.C\n",
	}
	for name, text := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestGoScope(t *testing.T) {
	root := scopeModule(t)
	for _, tc := range []struct {
		name      string
		changed   []string
		overlay   map[string][]byte
		build     []string
		test      []string
		wholeWant bool
	}{
		{name: "leaf reaches its importers, through others and through tests",
			changed: []string{"a/a.go"},
			build:   []string{"./a", "./b", "./c", "./c/internal/ci"},
			test:    []string{"./a", "./b", "./c", "./c/internal/ci", "./e"}},
		{name: "a package nobody imports is alone",
			changed: []string{"c/internal/ci/use.go"},
			build:   []string{"./c/internal/ci"}, test: []string{"./c/internal/ci"}},
		{name: "the root package",
			changed: []string{"d/d.go"},
			build:   []string{".", "./d"}, test: []string{".", "./d"}},
		{name: "a testdata file counts for the package around it",
			changed: []string{"a/testdata/golden"},
			build:   []string{"./a", "./b", "./c", "./c/internal/ci"},
			test:    []string{"./a", "./b", "./c", "./c/internal/ci", "./e"}},
		{name: "a Go file under testdata is data of the package around it",
			changed: []string{"a/testdata/src/x.go"},
			build:   []string{"./a", "./b", "./c", "./c/internal/ci"},
			test:    []string{"./a", "./b", "./c", "./c/internal/ci", "./e"}},
		{name: "test files only: vetted and tested, not built",
			changed: []string{"e/e_test.go"},
			build:   nil, test: []string{"./e"}},
		{name: "a file of no package counts for the package above it",
			changed: []string{"docs/notes.txt"}, build: []string{"."}, test: []string{"."}},
		{name: "nested module and ignored dirs are data of the package above them",
			changed: []string{"nested/n.go", ".hidden/h.go", "_tools/t.go"}, build: []string{"."}, test: []string{"."}},
		{name: "a package only in the editor's buffers",
			changed: []string{"f/f.go"},
			overlay: map[string][]byte{"f/f.go": []byte("package f\n")},
			build:   []string{"./f"}, test: []string{"./f"}},
		{name: "a buffer that adds an importer of a",
			changed: []string{"d/d.go"},
			overlay: map[string][]byte{"d/d.go": []byte("package d\n\nimport \"example.com/m/a\"\n\nfunc D() int { return a.A() }\n")},
			build:   []string{".", "./d"}, test: []string{".", "./d"}},
		{name: "go.mod reaches everything", changed: []string{"go.mod"}, wholeWant: true},
		{name: "go.sum reaches everything", changed: []string{"go.sum"}, wholeWant: true},
		{name: "vendor reaches everything", changed: []string{"vendor/modules.txt"}, wholeWant: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, te, whole := GoScope(root, tc.changed, tc.overlay)
			if whole != tc.wholeWant {
				t.Fatalf("whole = %v, want %v (build %v, test %v)", whole, tc.wholeWant, b, te)
			}
			if !reflect.DeepEqual(b, tc.build) || !reflect.DeepEqual(te, tc.test) {
				t.Errorf("build %q test %q\nwant  %q test %q", b, te, tc.build, tc.test)
			}
		})
	}
}

// A change that reaches every package is checked whole.
func TestGoScopeEverything(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/x\n"), 0o644)
	os.MkdirAll(filepath.Join(root, "p"), 0o755)
	os.WriteFile(filepath.Join(root, "p", "p.go"), []byte("package p\n"), 0o644)
	os.WriteFile(filepath.Join(root, "x.go"), []byte("package x\n\nimport _ \"example.com/x/p\"\n"), 0o644)
	if _, _, whole := GoScope(root, []string{"p/p.go"}, nil); !whole {
		t.Error("every package reached, but not checked whole")
	}
	if _, _, whole := GoScope(t.TempDir(), []string{"p/p.go"}, nil); !whole {
		t.Error("no go.mod, but not checked whole")
	}
}

// A package the change removed reaches its importers (and, as files of no
// package now, the package above them).
func TestGoScopeRemovedPackage(t *testing.T) {
	root := scopeModule(t)
	if err := os.RemoveAll(filepath.Join(root, "a")); err != nil {
		t.Fatal(err)
	}
	b, te, whole := GoScope(root, []string{"a/a.go", "a/a_test.go"}, nil)
	if whole || !reflect.DeepEqual(b, []string{".", "./b", "./c", "./c/internal/ci"}) ||
		!reflect.DeepEqual(te, []string{".", "./b", "./c", "./c/internal/ci", "./e"}) {
		t.Errorf("build %q test %q whole %v", b, te, whole)
	}
}

// A FIFO where a Go file should be does not hang the analysis.
func TestGoScopeFIFO(t *testing.T) {
	root := scopeModule(t)
	if err := syscall.Mkfifo(filepath.Join(root, "d", "fifo.go"), 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	b, _, whole := GoScope(root, []string{"d/d.go"}, nil)
	if whole || !reflect.DeepEqual(b, []string{".", "./d"}) {
		t.Errorf("build %q whole %v", b, whole)
	}
}

// The scoped checks find every failure the full run finds that the change
// caused: for each package of the module, a change that breaks it makes
// the scoped `go vet` and `go test` fail exactly where `./...` does.
func TestGoScopeMissesNoFailure(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	root := scopeModule(t)
	// c's test pins the value a's change breaks, two imports away.
	os.WriteFile(filepath.Join(root, "c", "c_test.go"), []byte("package c\n\nimport \"testing\"\n\nfunc TestC(t *testing.T) {\n\tif C() != 3 {\n\t\tt.Fatal(\"C() =\", C())\n\t}\n}\n"), 0o644)
	run := func(args ...string) (string, bool) {
		cmd := exec.Command("go", args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "GOTOOLCHAIN=local")
		out, err := cmd.CombinedOutput()
		return string(out), err == nil
	}
	if out, ok := run("test", "./..."); !ok {
		t.Fatalf("the module's tests fail before the change:\n%s", out)
	}
	os.WriteFile(filepath.Join(root, "a", "a.go"), []byte("package a\n\nfunc A() int { return 2 }\n"), 0o644)
	fullOut, fullOK := run("test", "./...")
	if fullOK {
		t.Fatal("the full run finds no failure: the test proves nothing")
	}
	_, pkgs, whole := GoScope(root, []string{"a/a.go"}, nil)
	if whole {
		t.Fatal("checked whole")
	}
	scopedOut, scopedOK := run(append([]string{"test"}, pkgs...)...)
	if scopedOK {
		t.Fatalf("the scoped run (%v) passed; the full run failed:\n%s", pkgs, fullOut)
	}
	for _, line := range strings.Split(fullOut, "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "FAIL" && !strings.Contains(scopedOut, "FAIL\t"+f[1]+"\t") {
			t.Errorf("full run: %q; the scoped run did not report it:\n%s", line, scopedOut)
		}
	}
}

func TestScopeGoChecks(t *testing.T) {
	root := scopeModule(t)
	detected := []string{"go build ./...", "go vet ./...", "go test ./...", "npm test"}
	got := ScopeGoChecks(root, detected, []string{"c/c.go"}, nil)
	want := []string{"go build ./c ./c/internal/ci", "go vet ./c ./c/internal/ci", "go test ./c ./c/internal/ci", "npm test"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if got := ScopeGoChecks(root, detected, []string{"e/e_test.go"}, nil); !reflect.DeepEqual(got, []string{"go vet ./e", "go test ./e", "npm test"}) {
		t.Errorf("test-only package: %q", got)
	}
	if got := ScopeGoChecks(root, detected, []string{"go.mod"}, nil); !reflect.DeepEqual(got, detected) {
		t.Errorf("go.mod: %q", got)
	}
	custom := []string{"go test -race ./...", "make check"}
	if got := ScopeGoChecks(root, custom, []string{"c/c.go"}, nil); !reflect.DeepEqual(got, custom) {
		t.Errorf("commands not detected were changed: %q", got)
	}
}

// A directory the model names is one argument of the check, never shell.
func TestScopeGoChecksQuotesDirectories(t *testing.T) {
	root := scopeModule(t)
	evil := "x;touch pwned;'y"
	rel := evil + "/x.go"
	overlay := map[string][]byte{rel: []byte("package x\n")}
	got := ScopeGoChecks(root, []string{"go test ./..."}, []string{rel}, overlay)
	if len(got) != 1 {
		t.Fatalf("got %q", got)
	}
	out, err := exec.Command("sh", "-c", "for a in "+strings.TrimPrefix(got[0], "go test ")+`; do printf '%s\n' "$a"; done`).Output()
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != "./"+evil+"\n" {
		t.Errorf("the shell saw %q", out)
	}
}

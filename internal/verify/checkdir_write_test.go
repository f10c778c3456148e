package verify

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/proc"
	"github.com/agentls/agentls/internal/testkit/need"
)

// A check that rewrites a file the buffers did not change (gofmt -w,
// prettier --write, a test writing its fixture) writes the overlay's
// file, never the user's. (The hard-linked overlay wrote through.)
func TestCheckDirCheckWritingUnchangedFileLeavesWorkspace(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "a.py", "a = 1\n")
	writeFile(t, root, "pkg/b.py", "b = 1\n")
	writeFile(t, root, "package.json", "{}\n")

	o, err := NewCheckDir(root, map[string][]byte{"a.py": []byte("a = 2\n")})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	for _, rel := range []string{"pkg/b.py", "package.json"} {
		if err := os.WriteFile(filepath.Join(o.Dir(), rel), []byte("rewritten\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	assertFile(t, root, "pkg/b.py", "b = 1\n")
	assertFile(t, root, "package.json", "{}\n")

	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			rs, err := Run(context.Background(), RunOptions{Root: root, Sandbox: m.sb,
				Commands: []string{"echo formatted > pkg/b.py && echo more >> a.py && echo new > c.py && cat a.py pkg/b.py"},
				Unsaved:  map[string][]byte{"a.py": []byte("a = 2\n")}})
			if err != nil {
				t.Fatal(err)
			}
			if len(rs) != 1 || !rs[0].Passed || rs[0].Output != "a = 2\nmore\nformatted\n" {
				t.Fatalf("the check did not run as written: %+v", rs)
			}
			assertFile(t, root, "pkg/b.py", "b = 1\n")
			assertFile(t, root, "a.py", "a = 1\n")
			if _, err := os.Stat(filepath.Join(root, "c.py")); !os.IsNotExist(err) {
				t.Errorf("a file the check created reached the workspace: %v", err)
			}
		})
	}
}

// Where the sandbox is available, every check (go commands too) runs in
// the view mounted on the workspace's own path: no copy, no go -overlay,
// no network; even with no buffers its writes are discarded.
func TestRunChecksSeeTheViewAtTheRealPath(t *testing.T) {
	if ok, why := proc.Available(); !ok {
		need.Missing(t, "sandbox unavailable here: %s", why)
	}
	root := t.TempDir()
	writeFile(t, root, "go.mod", "module example.com/v\n\ngo 1.22\n")
	writeFile(t, root, "v.go", "package v\n")
	check := `test "$(pwd)" = "` + root + `" && grep " ` + root + ` " /proc/self/mountinfo | grep -q " - overlay " && ! echo "$GOFLAGS" | grep -q overlay && go list -f '{{.Name}}' . && echo out > written`
	for _, overlay := range []map[string][]byte{nil, {"v.go": []byte("package viewed\n")}} {
		rs, err := Run(context.Background(), RunOptions{Root: root, Commands: []string{check}, Unsaved: overlay, Env: []string{"GOTOOLCHAIN=local", "GOFLAGS=-mod=mod"}})
		if err != nil {
			t.Fatal(err)
		}
		want := "v\n"
		if overlay != nil {
			want = "viewed\n"
		}
		if len(rs) != 1 || !rs[0].Passed || rs[0].Output != want {
			t.Fatalf("overlay %v: %+v", overlay != nil, rs)
		}
		if _, err := os.Stat(filepath.Join(root, "written")); err == nil {
			t.Fatal("the check's write reached the workspace")
		}
	}
}

func assertFile(t *testing.T, root, rel, want string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil || string(b) != want {
		t.Errorf("workspace %s = %q (%v), want %q", rel, b, err, want)
	}
}

// A buffer under a symlinked directory cannot be shown in the view, so
// the checks fall back to go's -overlay in place; they must stay in the
// sandbox there, or workspace content would turn it off.
func TestRunWithoutTheViewStaysSandboxed(t *testing.T) {
	if ok, why := proc.Available(); !ok {
		need.Missing(t, "sandbox unavailable here: %s", why)
	}
	root := t.TempDir()
	writeFile(t, root, "go.mod", "module example.com/v\n\ngo 1.22\n")
	writeFile(t, root, "real/a.go", "package real\n")
	if err := os.Symlink("real", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	out, err := os.MkdirTemp("/var/tmp", "verify-outside-")
	if err != nil || strings.HasPrefix(out, os.TempDir()) {
		t.Skipf("no directory outside the temp dir: %v", err)
	}
	defer os.RemoveAll(out)
	pwned := filepath.Join(out, "pwned")
	opts := RunOptions{Root: root, Commands: []string{"go list -f '{{.Name}}' ./link && echo pwned > " + pwned},
		Env: []string{"GOTOOLCHAIN=local", "GOFLAGS=-mod=mod"}, Unsaved: map[string][]byte{"link/a.go": []byte("package viewed\n")}}
	for _, m := range []proc.Sandbox{{Mode: proc.ModeOff}, {}} {
		opts.Sandbox = m
		rs, err := Run(context.Background(), opts)
		if err != nil || len(rs) != 1 || !strings.HasPrefix(rs[0].Output, "viewed\n") {
			t.Fatalf("mode %q: the check did not see the buffer: %+v %v", m.Mode, rs, err)
		}
		_, statErr := os.Stat(pwned)
		if wrote := statErr == nil; wrote != (m.Mode == proc.ModeOff) {
			t.Errorf("mode %q: wrote outside the workspace: %v, passed: %v\n%s", m.Mode, wrote, rs[0].Passed, rs[0].Output)
		}
		os.Remove(pwned)
	}
}

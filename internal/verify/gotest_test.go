package verify

import (
	"os"
	"path/filepath"
	"testing"
)

func TestParseGoTest(t *testing.T) {
	runFixtureCases(t, []fixtureCase{
		{
			fixture: "go_test.txt",
			wants: []want{
				// A test file that does not compile.
				{path: "broken/broken_test.go", line: 6, col: 17, sev: Error, msg: "cannot use F() (value of type int) as string value in variable declaration", source: "go test"},
				// A panic lands on the first frame in the workspace, below
				// the testing and runtime frames.
				{path: "boom/boom.go", line: 5, sev: Error, msg: "panic: assignment to entry in nil map", source: "go test"},
				// Log lines name only the file; the package line after them
				// says which directory.
				{path: "calc/calc_test.go", line: 7, sev: Error, msg: "Add(2, 3) = -1, want 5", source: "go test"},
				{path: "calc/calc_test.go", line: 19, sev: Error, msg: "Add(1, 2) = -1\nwant 3\nsecond line of detail", source: "go test"},
			},
			unlocated: []string{"FAIL\texample.com/captest/broken [build failed]"},
		},
		{
			// With -v the passing TestLog's line is printed too and must
			// not become a diagnostic.
			fixture: "go_test_v.txt",
			wants: []want{
				{path: "calc/calc_test.go", line: 7, sev: Error, msg: "Add(2, 3) = -1, want 5", source: "go test"},
				{path: "calc/calc_test.go", line: 19, sev: Error, msg: "Add(1, 2) = -1\nwant 3\nsecond line of detail", source: "go test"},
			},
		},
		{
			// A timeout's dump has every goroutine; the first frame in the
			// workspace is the sleeping test's, below the testing
			// package's (and _testmain.go, which is relative and generated).
			fixture: "go_test_timeout.txt",
			wants: []want{
				{path: "slow/slow.go", line: 7, sev: Error, msg: "panic: test timed out after 1s\nrunning tests:\nTestWait (1s)", source: "go test"},
			},
		},
	})
}

// Without a go.mod that maps the package, a log line's file is found by its
// name when only one file has it.
func TestParseGoTestFindsFileByName(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "deep", "pkg"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "deep", "pkg", "thing_test.go"), []byte("package pkg\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := "--- FAIL: TestThing (0.00s)\n    thing_test.go:12: boom\nFAIL\nFAIL\tother.org/x/deep/pkg\t0.001s\nFAIL\n"
	diags, unloc := Parse(out, root)
	if len(diags) != 1 || diags[0].Path != filepath.Join(root, "deep", "pkg", "thing_test.go") || diags[0].Line != 12 || diags[0].Message != "boom" {
		t.Fatalf("got %v", diags)
	}
	if len(unloc) != 0 {
		t.Errorf("unlocated %q", unloc)
	}
}

// A panic with no frame in the workspace keeps its message as unlocated.
func TestParseGoPanicOutsideWorkspace(t *testing.T) {
	out := "panic: runtime error: index out of range [3] with length 0\n\ngoroutine 1 [running]:\nmain.main()\n\t/elsewhere/main.go:5 +0x1d\nexit status 2\n"
	diags, unloc := Parse(out, t.TempDir())
	if len(diags) != 0 {
		t.Fatalf("diagnostics %v", diags)
	}
	if len(unloc) != 1 || unloc[0] != "panic: runtime error: index out of range [3] with length 0" {
		t.Fatalf("unlocated %q", unloc)
	}
}

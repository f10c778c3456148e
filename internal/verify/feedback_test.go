package verify

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestFeedback(t *testing.T) {
	f := loadFixture(t, "go_test.txt")
	diags, unloc := parseOutput(f.output, f.root, f.root, f.cmd)
	results := []Result{
		{Command: "go build ./...", Passed: true, Root: f.root},
		{Command: "go vet ./...", Passed: true, Root: f.root},
		{Command: "go test ./...", ExitCode: 1, Output: f.output, Diagnostics: diags, Unlocated: unloc, Root: f.root},
	}
	got := Feedback(results, 0)
	want := "Passed: `go build ./...`, `go vet ./...`.\n" +
		"`go test ./...` failed (exit 1).\n" +
		"broken/broken_test.go:6:17: cannot use F() (value of type int) as string value in variable declaration\n" +
		"boom/boom.go:5: panic: assignment to entry in nil map\n" +
		"calc/calc_test.go:7: Add(2, 3) = -1, want 5\n" +
		"calc/calc_test.go:19: Add(1, 2) = -1\n    want 3\n    second line of detail\n" +
		"Output (end):\n"
	if !strings.HasPrefix(got, want) {
		t.Fatalf("feedback starts\n%s\nwant\n%s", got, want)
	}
	// The whole output fits in 8 KB, so all of it follows.
	if !strings.HasSuffix(got, strings.TrimRight(f.output, "\n")+"\n") {
		t.Fatalf("feedback does not end with the output:\n%s", got)
	}
	if strings.Contains(got, f.root+"/") && !strings.Contains(f.output, f.root) {
		t.Fatalf("absolute paths in feedback")
	}
}

func TestFeedbackAllPassed(t *testing.T) {
	if got := Feedback([]Result{{Command: "make check", Passed: true}}, 0); got != "" {
		t.Fatalf("got %q", got)
	}
	if got := Feedback(nil, 0); got != "" {
		t.Fatalf("got %q", got)
	}
}

func TestFeedbackCaps(t *testing.T) {
	root := "/w"
	var diags []Diagnostic
	for i := 1; i <= 500; i++ {
		diags = append(diags, Diagnostic{Path: "/w/pkg/big.go", Line: i, Col: 2, Severity: Error, Message: "undefined: something rather long to fill the budget quickly"})
	}
	diags = append([]Diagnostic{{Path: "/w/a.go", Line: 1, Severity: Warning, Message: "unused", Code: "U1000"}}, diags...)
	// Two-byte characters put every cap inside one sooner or later.
	output := strings.Repeat("noise líne\n", 5000) + "FAIL the last line\n"
	r := Result{Command: "go vet ./...", ExitCode: 1, Output: output, Diagnostics: diags, Root: root}
	for _, max := range []int{1000, 4000, 8192} {
		got := Feedback([]Result{r}, max)
		if len(got) > max {
			t.Errorf("max %d: %d bytes", max, len(got))
		}
		if !utf8.ValidString(got) {
			t.Errorf("max %d: a character was cut", max)
		}
		lines := strings.Split(got, "\n")
		// Errors come before the warning, which was first in the output.
		if lines[1] != "pkg/big.go:1:2: undefined: something rather long to fill the budget quickly" {
			t.Errorf("max %d: first finding %q", max, lines[1])
		}
		if !strings.Contains(got, "more findings") {
			t.Errorf("max %d: no note of the findings left out", max)
		}
		if !strings.HasSuffix(got, "FAIL the last line\n") {
			t.Errorf("max %d: the tail of the output is missing:\n%s", max, got[len(got)-100:])
		}
	}
}

func TestFeedbackTimeout(t *testing.T) {
	r := Result{Command: "go test ./...", ExitCode: -1, TimedOut: true, Duration: 600 * time.Second, Output: "=== RUN TestSlow\n"}
	got := Feedback([]Result{r}, 0)
	if !strings.HasPrefix(got, "`go test ./...` timed out after 10m0s and was killed.\n") || !strings.Contains(got, "=== RUN TestSlow") {
		t.Fatalf("got %q", got)
	}
}

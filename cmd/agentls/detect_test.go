package main

import (
	"strings"
	"testing"
)

// A workspace that is only a fresh "go mod init" has nothing for go vet
// and go test to check (issue 13, item 4): a task that writes no Go file
// ends done, not "checks failing"; one that adds Go code gets the Go
// checks, detected again with its files.
func TestNothingToCheckInAFreshModule(t *testing.T) {
	gomod := map[string]string{"go.mod": "module example.com/fresh\n\ngo 1.22\n"}
	t.Run("no Go files", func(t *testing.T) {
		e := newEnv(t, gomod)
		srv := fakeModel(t, `{"turns": [
			{"toolCalls": [{"id": "w", "name": "write_file", "arguments": "{\"path\":\"notes.txt\",\"content\":\"hi\\n\"}"}]},
			{"text": "Wrote notes."}]}`)
		r := e.run("run", "--base-url", srv.URL(), "write notes")
		if r.code != 0 || !strings.Contains(r.stderr, "nothing to check") || !strings.Contains(r.stderr, "── ok · 1 file changed") || srv.Pending() != 0 {
			t.Fatalf("exit %d, pending %d:\n%s", r.code, srv.Pending(), r.stderr)
		}
	})
	t.Run("the task adds Go code", func(t *testing.T) {
		e := newEnv(t, gomod)
		srv := fakeModel(t, `{"turns": [
			{"toolCalls": [{"id": "w", "name": "write_file", "arguments": "{\"path\":\"main.go\",\"content\":\"package main\\n\\nfunc main() {}\\n\"}"}]},
			{"text": "Added main."}]}`)
		r := e.run("run", "--base-url", srv.URL(), "add main")
		if r.code != 0 || !strings.Contains(r.stderr, "✓ checks passed: 3 checks passed (go build ./...; go vet ./...; go test ./...)") {
			t.Fatalf("exit %d:\n%s", r.code, r.stderr)
		}
	})
}

//go:build linux

package main

import (
	"os"
	"path/filepath"
	"testing"
)

// agentls run --review writes an accepted file only beneath the
// workspace as it is when the answer comes: cfg/ swapped for a symlink
// to a directory outside (standing in for $HOME) after the task proposed
// cfg/app.conf is refused, and the file there is untouched. The old code
// wrote through the link.
func TestReviewAcceptDoesNotFollowASwappedDirectory(t *testing.T) {
	e := newEnv(t, nil)
	if err := os.MkdirAll(filepath.Join(e.ws, "cfg"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.ws, "cfg", "app.conf"), []byte("key = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := fakeModel(t, `{"turns": [
		{"toolCalls": [{"id": "er", "name": "read_file", "arguments": "{\"path\":\"cfg/app.conf\"}"}, {"id": "e", "name": "edit_file", "arguments": "{\"path\":\"cfg/app.conf\",\"old_string\":\"key = 1\",\"new_string\":\"key = 2\"}"}]},
		{"text": "Done."}
	]}`)
	term := onTerminal(t, e.command("run", "--review", "--no-verify", "--base-url", srv.URL(), "change the key"), false)
	term.waitFor("[1/1] apply cfg/app.conf", 1)

	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "app.conf"), []byte("key = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(e.ws, "cfg"), filepath.Join(e.ws, "cfg.moved")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(home, filepath.Join(e.ws, "cfg")); err != nil {
		t.Fatal(err)
	}
	term.answer("y")
	_ = term.cmd.Wait()
	if got, _ := os.ReadFile(filepath.Join(home, "app.conf")); string(got) != "key = 1\n" {
		t.Fatalf("the file outside the workspace was written: %q\n%s", got, term.String())
	}
	term.waitFor("wrote 0 of 1 changed files", 1)
}

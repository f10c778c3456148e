//go:build linux

package main

import (
	"os"
	"strings"
	"testing"
)

func TestReviewOnATerminal(t *testing.T) {
	e := newEnv(t, nil)
	srv := fakeModel(t, `{"turns": [
		{"toolCalls": [{"id": "er", "name": "read_file", "arguments": "{\"path\":\"hello.txt\"}"}, {"id": "e", "name": "edit_file", "arguments": "{\"path\":\"hello.txt\",\"old_string\":\"hello\",\"new_string\":\"goodbye\"}"}]},
		{"toolCalls": [{"id": "w", "name": "write_file", "arguments": "{\"path\":\"new.txt\",\"content\":\"new\\n\"}"}]},
		{"text": "Done."}
	]}`)
	term := onTerminal(t, e.command("run", "--review", "--base-url", srv.URL(), "edit and create"), false)
	waitFor := term.waitFor
	waitFor("[1/2] apply hello.txt (+1 -1)? [y]es [n]o [d]iff [a]ll [q]uit: ", 1)
	if _, err := os.ReadFile(e.ws + "/new.txt"); err == nil {
		t.Fatal("new.txt was written before the review")
	}
	term.answer("d")
	waitFor("+goodbye world", 1)
	waitFor("apply hello.txt", 2)
	term.answer("y")
	waitFor("[2/2] apply new.txt (+1 -0)?", 1)
	term.answer("n")
	if err := term.cmd.Wait(); err != nil {
		t.Fatalf("%v\n%s", err, term.String())
	}
	files := snapshot(t, e.ws)
	if files["hello.txt"] != helloAfter {
		t.Errorf("hello.txt = %q", files["hello.txt"])
	}
	if _, ok := files["new.txt"]; ok {
		t.Error("new.txt was written although refused")
	}
	waitFor("wrote 1 of 2 changed files", 1)
	r := e.run("sessions", "--json")
	id := strings.Split(strings.Split(r.stdout, `"id": "`)[1], `"`)[0]
	r = e.run("sessions", "show", id)
	if !strings.Contains(r.stdout, "changed hello.txt") || strings.Contains(r.stdout, "new.txt") {
		t.Errorf("the session should hold the written change only:\n%s", r.stdout)
	}
}

// On a terminal, a command the policy does not allow is asked about;
// "always" covers the same command again; without a terminal it is refused.
func TestRunCommandAsksOnATerminal(t *testing.T) {
	e := newEnv(t, alwaysAsk)
	script := `{"turns": [
		{"toolCalls": [{"id": "a", "name": "run_command", "arguments": "{\"command\":\"echo asked > ran.txt\"}"}]},
		{"toolCalls": [{"id": "b", "name": "run_command", "arguments": "{\"command\":\"echo asked > ran.txt\"}"}]},
		{"text": "Done."}
	]}`
	srv := fakeModel(t, script)
	term := onTerminal(t, e.command("run", "--no-verify", "--base-url", srv.URL(), "run it"), false)
	term.waitFor("Run it? [y]es once, [a]lways this command, [n]o: ", 1)
	term.answer("a")
	if err := term.cmd.Wait(); err != nil {
		t.Fatalf("%v\n%s", err, term.String())
	}
	asked := strings.Count(term.String(), "Run it?")
	if asked != 1 {
		t.Errorf("asked %d times, want once (always)", asked)
	}
	if files := snapshot(t, e.ws); files["ran.txt"] != "asked\n" {
		t.Errorf("ran.txt = %q", files["ran.txt"])
	}

	// No terminal: the policy alone, and its refusal says how to allow;
	// the run cannot end "ok" with a command nobody could approve.
	e2 := newEnv(t, alwaysAsk)
	srv2 := fakeModel(t, `{"turns": [
		{"toolCalls": [{"id": "a", "name": "run_command", "arguments": "{\"command\":\"touch x\"}"}]},
		{"expect": {"lastToolContains": "tools.allow"}, "text": "Denied."}]}`)
	if r := e2.run("run", "--no-verify", "--base-url", srv2.URL(), "run it"); r.code != 1 || !strings.Contains(r.stderr, "needed the user's approval") {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if _, ok := snapshot(t, e2.ws)["x"]; ok {
		t.Error("command ran without a terminal and outside the policy")
	}
}

// Issue 31: --review holds what a command writes and deletes with the
// edit tools' changes: nothing reaches the disk before the questions, and
// the answers write the change and make the deletion. On the old code the
// command's writes landed at once and the review asked nothing.
func TestReviewHoldsCommandWritesOnATerminal(t *testing.T) {
	e := newEnv(t, map[string]string{"gone.txt": "deleted by the command\n"})
	srv := fakeModel(t, `{"turns": [
		{"toolCalls": [{"id": "c", "name": "run_command", "arguments": "{\"command\":\"sed -i s/hello/goodbye/ hello.txt && rm gone.txt\"}"}]},
		{"text": "Done."}
	]}`)
	term := onTerminal(t, e.command("run", "--review", "--no-verify", "--base-url", srv.URL(), "rewrite"), false)
	term.waitFor("[1/2] apply hello.txt (+1 -1)? [y]es [n]o [d]iff [a]ll [q]uit: ", 1)
	files := snapshot(t, e.ws)
	if files["hello.txt"] == helloAfter || files["gone.txt"] != "deleted by the command\n" {
		t.Fatalf("the command's writes landed before the review: %q", files)
	}
	term.answer("y")
	term.waitFor("[2/2] apply gone.txt (+0 -1)?", 1)
	term.answer("y")
	if err := term.cmd.Wait(); err != nil {
		t.Fatalf("%v\n%s", err, term.String())
	}
	files = snapshot(t, e.ws)
	if files["hello.txt"] != helloAfter {
		t.Errorf("hello.txt = %q after accepting", files["hello.txt"])
	}
	if _, ok := files["gone.txt"]; ok {
		t.Error("gone.txt is still there after accepting its deletion")
	}
	term.waitFor("wrote 2 of 2 changed files", 1)
}

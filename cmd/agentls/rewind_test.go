package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const threeSteps = `{"turns":[
 {"text":"first: a","toolCalls":[{"id": "c1r", "name": "read_file", "arguments": "{\"path\":\"a.txt\"}"}, {"id":"c1","name":"edit_file","arguments":"{\"path\":\"a.txt\",\"old_string\":\"one\",\"new_string\":\"ONE\"}"}]},
 {"toolCalls":[{"id":"c2","name":"edit_file","arguments":"{\"path\":\"a.txt\",\"old_string\":\"three\",\"new_string\":\"THREE\"}"},{"id": "c2br", "name": "read_file", "arguments": "{\"path\":\"b.txt\"}"}, {"id":"c2b","name":"edit_file","arguments":"{\"path\":\"b.txt\",\"old_string\":\"bee\",\"new_string\":\"BEE\"}"}]},
 {"toolCalls":[{"id":"c3","name":"write_file","arguments":"{\"path\":\"c.txt\",\"content\":\"sea\\n\"}"}]},
 {"text":"done."}]}`

// agentls sessions rewind ID STEP, headless: the files go back on disk to
// step 1's text but for what changed on disk since (a line added is kept,
// a region both changed is left and reported), the file created later is
// deleted, sessions show lists the steps, and a follow-up run continues
// from step 1's conversation only.
func TestSessionsRewind(t *testing.T) {
	e := newEnv(t, map[string]string{"a.txt": "one\ntwo\nthree\n", "b.txt": "bee\n"})
	r := e.run("run", "--json", "--base-url", fakeModel(t, threeSteps).URL(), "three steps")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	id := jsonLines(t, r.stderr)[0]["session"].(string)
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(e.ws, name))
		if err != nil {
			return "(gone)"
		}
		return string(b)
	}
	if read("a.txt") != "ONE\ntwo\nTHREE\n" || read("c.txt") != "sea\n" {
		t.Fatalf("after the task: a=%q c=%q", read("a.txt"), read("c.txt"))
	}

	show := e.run("sessions", "show", id)
	for _, w := range []string{"steps (agentls sessions rewind " + id + " STEP):", "  1  t1 · first: a · a.txt", "  2  t1 · ", "a.txt, b.txt", "  3  t1 · ", "c.txt"} {
		if !strings.Contains(show.stdout, w) {
			t.Errorf("sessions show lacks %q:\n%s", w, show.stdout)
		}
	}

	showJSON := e.run("sessions", "show", "--json", id)
	var shown struct {
		Steps []struct {
			Step  int      `json:"step"`
			Files []string `json:"files"`
		} `json:"steps"`
		Rewound int `json:"rewound"`
	}
	if err := json.Unmarshal([]byte(showJSON.stdout), &shown); err != nil || len(shown.Steps) != 3 || shown.Rewound != -1 ||
		strings.Join(shown.Steps[1].Files, ",") != "a.txt,b.txt" {
		t.Errorf("sessions show --json: %v %+v", err, shown)
	}

	// Changes made after the task: a line added to a.txt, and b.txt's
	// changed line changed again.
	os.WriteFile(filepath.Join(e.ws, "a.txt"), []byte("ONE\ntwo\nTHREE\nmine\n"), 0o644)
	os.WriteFile(filepath.Join(e.ws, "b.txt"), []byte("BEE!\n"), 0o644)

	if r := e.run("sessions", "rewind", id, "9"); r.code != 2 || !strings.Contains(r.stderr, "no step 9") {
		t.Errorf("rewind to a step that is not: exit %d %s", r.code, r.stderr)
	}
	rw := e.run("sessions", "rewind", "--json", id, "1")
	if rw.code != 0 {
		t.Fatalf("rewind: exit %d\n%s%s", rw.code, rw.stdout, rw.stderr)
	}
	var res struct {
		Files     []string `json:"files"`
		Conflicts []struct {
			Path string `json:"path"`
		} `json:"conflicts"`
	}
	if err := json.Unmarshal([]byte(rw.stdout), &res); err != nil {
		t.Fatalf("%v: %s", err, rw.stdout)
	}
	if got := read("a.txt"); got != "ONE\ntwo\nthree\nmine\n" {
		t.Errorf("a.txt = %q, want step 1's text with the line added since", got)
	}
	if got := read("b.txt"); got != "BEE!\n" {
		t.Errorf("b.txt = %q: the region changed since must stay", got)
	}
	if got := read("c.txt"); got != "(gone)" {
		t.Errorf("c.txt = %q, want it deleted (created at step 3)", got)
	}
	if strings.Join(res.Files, ",") != "a.txt,c.txt" || len(res.Conflicts) != 1 || res.Conflicts[0].Path != "b.txt" {
		t.Errorf("rewind said %s", rw.stdout)
	}
	if show := e.run("sessions", "show", id); !strings.Contains(show.stdout, "← rewound here") {
		t.Errorf("show does not mark the rewind:\n%s", show.stdout)
	}

	srv := fakeModel(t, `{"turns":[{"text":"ok"}]}`)
	if r := e.run("run", "--session", id, "--base-url", srv.URL(), "go on"); r.code != 0 {
		t.Fatalf("follow-up: exit %d\n%s", r.code, r.stderr)
	}
	var got []string
	for _, m := range srv.Requests()[0].Body.Messages[1:] {
		s := m.Role + ":" + m.Content
		for _, c := range m.ToolCalls {
			s += " call " + c.ID
		}
		got = append(got, s)
	}
	// Step 1 reads a.txt, then edits it (read before edit).
	if len(got) != 5 || got[0] != "user:three steps" || got[1] != "assistant:first: a call c1r call c1" || !strings.HasPrefix(got[2], "tool:") || !strings.HasPrefix(got[3], "tool:") || got[4] != "user:go on" {
		t.Errorf("the follow-up sent %q, want the conversation up to step 1 and its prompt", got)
	}
}

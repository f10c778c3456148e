package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/proc"
	"github.com/agentls/agentls/internal/testkit/fakellm"
)

// noteRenderer keeps what the run shows.
type noteRenderer struct{ events, notes, warnings []string }

func (r *noteRenderer) start(startInfo)      {}
func (r *noteRenderer) event(ev agent.Event) { r.events = append(r.events, ev.Kind) }
func (r *noteRenderer) note(msg string)      { r.notes = append(r.notes, msg) }
func (r *noteRenderer) warn(msg string)      { r.warnings = append(r.warnings, msg) }
func (r *noteRenderer) close()               {}

// A review's end: what the user accepted is written, the checks run again
// on it when it is only part of what was checked, and the result says
// what landed.
func TestLandUnderReview(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name, answers string
		written       []string
		verified      bool
		reason        string
		checked       bool
	}{
		{"part accepted and passing", "y\nn\n", []string{"a.txt"}, true, "done", true},
		{"part accepted and failing", "n\ny\n", []string{"b.txt"}, false, "verifyFailed", true},
		{"all accepted: the proposal's checks stand", "a\n", []string{"a.txt", "b.txt"}, true, "done", false},
		{"nothing accepted: nothing verified", "q\n", nil, false, "done", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			w, root := newWS(t, true, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
			for _, rel := range []string{"a.txt", "b.txt"} { // in this order: the questions' order
				if err := w.Edit(ctx, rel, set(strings.ToUpper(rel[:1])+"\n")); err != nil {
					t.Fatal(err)
				}
			}
			cfg := config.Defaults()
			cfg.Sandbox.Mode = proc.ModeOff
			cfg.Verify.Commands = []string{"grep -q A a.txt"} // passes when a.txt was written
			r := &cliRun{o: runOptions{}, stdin: strings.NewReader(c.answers), stderr: &strings.Builder{}}
			ren := &noteRenderer{}
			res := agent.Result{Status: agent.StatusOK, Reason: "verifyFailed", Verified: false, FilesChanged: []string{"a.txt", "b.txt"}}
			if c.name == "all accepted: the proposal's checks stand" {
				res.Reason, res.Verified = "done", true
			}
			written := r.land(ctx, cfg, root, w, true, nil, ren, &res, nil)
			if !slices.Equal(written, c.written) || !slices.Equal(res.FilesChanged, c.written) {
				t.Errorf("written %q, files changed %q; want %q", written, res.FilesChanged, c.written)
			}
			if res.Verified != c.verified || res.Reason != c.reason {
				t.Errorf("verified %v, reason %q; want %v, %q", res.Verified, res.Reason, c.verified, c.reason)
			}
			if checked := slices.Contains(ren.events, agent.KindVerify); checked != c.checked {
				t.Errorf("checks run again: %v, want %v (notes %q)", checked, c.checked, ren.notes)
			}
			for _, rel := range []string{"a.txt", "b.txt"} {
				want := strings.ToLower(rel[:1]) + "\n"
				if slices.Contains(c.written, rel) {
					want = strings.ToUpper(rel[:1]) + "\n"
				}
				if got, _ := readDisk(t, root, rel); got != want {
					t.Errorf("%s = %q, want %q", rel, got, want)
				}
			}
		})
	}
}

// A review cancelled while it asks writes nothing and ends the run
// cancelled, keeping its usage.
func TestLandCancelledDuringReview(t *testing.T) {
	w, root := newWS(t, true, map[string]string{"a.txt": "a\n"})
	ctx, cancel := context.WithCancel(context.Background())
	if err := w.Edit(ctx, "a.txt", set("A\n")); err != nil {
		t.Fatal(err)
	}
	cancel()
	pr, _ := ioPipe(t)
	r := &cliRun{stdin: pr, stderr: &strings.Builder{}}
	res := agent.Result{Status: agent.StatusOK, Reason: "done", Steps: 3, Usage: agent.Usage{InputTokens: 10}}
	written := r.land(ctx, config.Defaults(), root, w, true, nil, &noteRenderer{}, &res, nil)
	if written != nil || !res.Cancelled || exitCode(res) != exitCancelled || res.Steps != 3 || res.Usage.InputTokens != 10 {
		t.Errorf("written %q, result %+v", written, res)
	}
	if got, _ := readDisk(t, root, "a.txt"); got != "a\n" {
		t.Errorf("a.txt = %q", got)
	}
}

// --json: every line on stderr is one JSON object, from start to end,
// with the session on each event.
func TestRunJSONLines(t *testing.T) {
	e := newRunEnv(t, map[string]string{"a.txt": "hello\n", "go.mod": "module x\n"})
	base, _ := e.model(fakellm.Turn{ToolCalls: readEdit("c1", "a.txt", "hello", "HELLO")}, fakellm.Turn{Text: "Shouted."})
	code, _, stderr := e.run(context.Background(), "--base-url", base, "--no-verify", "--json", "shout")
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var kinds []string
	session := ""
	for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
		var v struct{ Kind, Session string }
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("not a JSON line: %q", l)
		}
		if v.Kind == "start" {
			session = v.Session
		}
		if v.Kind == "toolCall" && v.Session != session {
			t.Errorf("an event without the session: %q", l)
		}
		kinds = append(kinds, v.Kind)
	}
	if len(kinds) < 3 || kinds[0] != "start" || !slices.Contains(kinds, "toolCall") || !slices.Contains(kinds, "end") || session == "" {
		t.Errorf("kinds %q", kinds)
	}
	if _, err := os.Stat(filepath.Join(e.root, "a.txt")); err != nil {
		t.Fatal(err)
	}
}

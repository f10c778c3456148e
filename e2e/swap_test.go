package e2e

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentls/agentls/internal/testkit/lspclient"
)

const confEdit = `{"turns":[
 {"toolCalls":[{"id":"c1r","name":"read_file","arguments":"{\"path\":\"cfg/app.conf\"}"},{"id":"c1","name":"edit_file","arguments":"{\"path\":\"cfg/app.conf\",\"old_string\":\"key = 1\",\"new_string\":\"key = 2\"}"}]},
 {"text":"changed."}]}`

// swapOut turns the workspace's cfg/ into a symlink to a directory
// outside it (standing in for $HOME) holding app.conf with the given
// text, as a Makefile the task ran could; it returns that directory.
func swapOut(t *testing.T, root, text string) string {
	t.Helper()
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "app.conf"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(root, "cfg"), filepath.Join(root, "cfg.moved")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(home, filepath.Join(root, "cfg")); err != nil {
		t.Fatal(err)
	}
	return home
}

// Review accept and undo resolve the path when the change goes out: a
// cfg/ directory swapped for a symlink out of the workspace after the
// task is refused, whether agentls writes the file itself (a client
// without applyEdit) or would send the editor an applyEdit for it. The
// old code wrote (or sent) the file outside.
func TestAcceptAndUndoDoNotFollowASwappedDirectory(t *testing.T) {
	noApply := lspclient.VSCodeCaps()
	noApply.ApplyEdit = false
	for _, c := range []struct {
		name string
		caps lspclient.Caps
		undo bool
	}{
		{"accept by applyEdit", lspclient.VSCodeCaps(), false},
		{"accept on disk", noApply, false},
		{"undo by applyEdit", lspclient.VSCodeCaps(), true},
		{"undo on disk", noApply, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			caps := c.caps
			s := start(t, setup{caps: &caps, script: confEdit, files: map[string]string{"cfg/app.conf": "key = 1\n"}})
			r := s.run(t, map[string]any{"task": "change the key", "review": !c.undo})
			if r.Status != "ok" {
				t.Fatalf("task: %+v", r)
			}
			// What the file outside holds is what the plan is made
			// against: the text before (accept) or after (undo) the task.
			before := "key = 1\n"
			if c.undo {
				before = "key = 2\n"
			}
			home := swapOut(t, s.Root, before)
			sent := len(s.Edits())
			if c.undo {
				var res struct {
					Applied bool   `json:"applied"`
					Reason  string `json:"reason"`
				}
				// Refused either way: an answer "not applied" (the check
				// before the plan) or an error (the disk write itself, which
				// resolves the path again beneath the root).
				err := s.Command(s.ctx, "agentls.undo", map[string]any{"taskId": r.TaskID}, &res)
				if err == nil && res.Applied {
					t.Errorf("undo through the swapped directory answered applied")
				}
				t.Logf("undo: %s %v", res.Reason, err)
			} else {
				err := s.Command(s.ctx, "agentls.accept", map[string]any{"taskId": r.TaskID}, nil)
				if err == nil {
					t.Errorf("accept through the swapped directory succeeded")
				}
				t.Logf("accept: %v", err)
			}
			if got, _ := os.ReadFile(filepath.Join(home, "app.conf")); string(got) != before {
				t.Errorf("the file outside the workspace was written: %q", got)
			}
			if n := len(s.Edits()); n != sent {
				t.Errorf("%d applyEdit sent for a path that leads outside the workspace", n-sent)
			}
		})
	}
}

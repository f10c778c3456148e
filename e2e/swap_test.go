package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/uri"

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

// Issue 31's race, bounded: one task's command tries 1,000 times to swap
// the directory d for a symlink out of the workspace and back, while
// another task writes every file in d through an editor that writes the
// path it is sent to disk (as an editor saving does). No write lands
// outside, and at least 99% of the edits land inside: refusing them all
// does not pass. On main the command swapped the real tree: edits went out
// through the symlink, and the swaps deleted edits (1 outside and 28 to
// 189 of 200 landed, in three runs). Now a command runs in a view of the
// workspace whose writes land in a private layer, carried in when it ends
// and never over a file changed meanwhile, so its swaps never reach the
// tree the editor writes. The view's overlay (userxattr) lets the command
// really swap: all 1,000 must happen.
func TestSwapRaceWritesNothingOutside(t *testing.T) {
	const files, swaps = 200, 1000
	outside := t.TempDir()
	init := map[string]string{}
	var calls [][2]any
	for i := range files {
		name := fmt.Sprintf("f%03d.txt", i)
		init["d/"+name] = "v0\n"
		if err := os.WriteFile(filepath.Join(outside, name), []byte("v0\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		calls = append(calls, [2]any{"write_file", map[string]any{"path": "d/" + name, "content": "v1\n"}})
	}
	// The command says it runs by a file outside the workspace, in a
	// directory declared writable for it (sandbox.writableRoots: its own
	// /tmp is private); the edits start then.
	markers := t.TempDir()
	marker := filepath.Join(markers, "started")
	loop := fmt.Sprintf(`touch %s; n=0; i=0; while [ $i -lt %d ]; do i=$((i+1)); mv d d.x 2>/dev/null && ln -s %s d && rm d && mv d.x d && n=$((n+1)); done; echo tries=$i swaps=$n`, marker, swaps, outside)
	s := start(t, setup{files: init, settings: map[string]any{"sandbox": map[string]any{"writableRoots": []string{markers}}}, script: scriptOf(
		turn{calls: [][2]any{{"run_command", map[string]any{"command": loop, "timeout_seconds": 600}}}},
		turn{calls: calls},
		turn{text: "Done."},
		turn{text: "Done."},
	)})
	// The editor writes each edited file to disk at the path it is sent,
	// following symlinks, as an editor that saves does.
	s.AfterApply = func(u, text string) string {
		_ = os.WriteFile(uri.URI(u).FsPath(), []byte(text), 0o644)
		return text
	}
	swapper, err := s.Run(s.ctx, map[string]any{"task": "swap"})
	if err != nil {
		t.Fatal(err)
	}
	if !s.WaitFor(30*time.Second, func() bool { _, err := os.Stat(marker); return err == nil }) {
		t.Fatal("the swapping command did not start")
	}
	writer, err := s.Run(s.ctx, map[string]any{"task": "write"})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := s.Wait(s.ctx, writer, 5*time.Minute); err != nil || r.Status != "ok" {
		t.Fatalf("the writing task: %+v, %v", r, err)
	}
	// The edits overlapped the swaps: the command was still running.
	if len(s.LLM.Requests()) >= 4 {
		t.Fatal("the swaps ended before the edits: the race was not run (make the loop longer)")
	}
	if r, err := s.Wait(s.ctx, swapper, 5*time.Minute); err != nil || r.Status != "ok" {
		t.Fatalf("the swapping task: %+v, %v", r, err)
	}
	var out string
	for _, req := range s.LLM.Requests() {
		for _, m := range req.Body.Messages {
			if m.Role == "tool" && strings.Contains(m.Content, "swaps=") {
				out = m.Content
			}
		}
	}
	if !strings.Contains(out, fmt.Sprintf("tries=%d ", swaps)) {
		t.Fatalf("the command did not try %d swaps: %.500q", swaps, out)
	}
	// The issue asks for at least 1,000 swaps, not tries: a view that
	// refused the rename would pass the rest of this test unraced.
	var done int
	if _, after, ok := strings.Cut(out, "swaps="); ok {
		fmt.Sscanf(after, "%d", &done)
	}
	if done < swaps {
		t.Fatalf("%d of %d swaps happened: the race was not run in full:\n%.500q", done, swaps, out)
	}
	wroteOutside, landed := 0, 0
	for i := range files {
		name := fmt.Sprintf("f%03d.txt", i)
		if b, _ := os.ReadFile(filepath.Join(outside, name)); string(b) != "v0\n" {
			wroteOutside++
		}
		if b, _ := os.ReadFile(filepath.Join(s.Root, "d", name)); string(b) == "v1\n" {
			landed++
		}
	}
	t.Logf("%d swaps tried during %d edits (%s): %d written outside, %d landed inside", swaps, files, strings.TrimSpace(strings.Split(out, "\n")[0]), wroteOutside, landed)
	if wroteOutside != 0 {
		t.Errorf("%d edits were written outside the workspace", wroteOutside)
	}
	if landed < files {
		for _, req := range s.LLM.Requests() {
			for _, m := range req.Body.Messages {
				if m.Role == "tool" && !strings.HasPrefix(m.Content, "wrote ") && !strings.Contains(m.Content, "tries=") {
					t.Logf("a tool result: %.300s", m.Content)
				}
			}
		}
		for i := range files {
			name := fmt.Sprintf("f%03d.txt", i)
			if b, err := os.ReadFile(filepath.Join(s.Root, "d", name)); string(b) != "v1\n" {
				t.Logf("d/%s: %q %v", name, b, err)
			}
		}
	}
	if landed*100 < files*99 {
		t.Errorf("only %d of %d edits landed inside; the command said %.300q", landed, files, out)
	}
}

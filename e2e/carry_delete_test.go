package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/testkit/lspclient"
)

// deleteScript is a task whose command deletes one file and renames
// another (rm, mv): both are carried out of the command's view into the
// tree as deletions (and, for mv, a new file).
const deleteScript = `{"turns":[
 {"toolCalls":[{"id":"call_rm","name":"run_command","arguments":"{\"command\":\"rm tool.sh && mv old.txt new.txt\"}"}]},
 {"text":"Done."}]}`

// toolBytes is a file whose exact bytes (no final newline, a NUL, bytes
// that are no UTF-8) and mode (0751) undo and rewind must put back.
var toolBytes = []byte("#!/bin/sh\necho \x00\xff\xfe odd\r\nlast")

// deletable adds the files deleteScript deletes and renames.
func deletable(t *testing.T, root string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(root, "tool.sh"), toolBytes, 0o751); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(root, "tool.sh"), 0o751); err != nil { // past the umask
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "old.txt"), []byte("renamed by the command\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// checkDeleted checks that the command's rm and mv reached the tree.
func checkDeleted(t *testing.T, root string) {
	t.Helper()
	if fileExists(filepath.Join(root, "tool.sh")) || fileExists(filepath.Join(root, "old.txt")) {
		t.Fatal("the command's rm and mv were not carried into the tree")
	}
	if b, err := os.ReadFile(filepath.Join(root, "new.txt")); err != nil || string(b) != "renamed by the command\n" {
		t.Fatalf("new.txt after mv: %q, %v", b, err)
	}
}

// checkRestored checks that tool.sh is back with its exact bytes and
// mode, and that old.txt is back under its old name (new.txt gone).
func checkRestored(t *testing.T, root, said string) {
	t.Helper()
	checkBack(t, root, said)
	if fileExists(filepath.Join(root, "new.txt")) {
		t.Errorf("new.txt, the rename's new name, is still there after undo (%s)", said)
	}
}

// checkBack checks that tool.sh is back with its exact bytes and mode,
// and old.txt under its old name.
func checkBack(t *testing.T, root, said string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "tool.sh"))
	if err != nil || !bytes.Equal(b, toolBytes) {
		t.Errorf("tool.sh after undo: %q, %v; want its bytes back (%s)", b, err, said)
	} else if fi, err := os.Stat(filepath.Join(root, "tool.sh")); err != nil || fi.Mode().Perm() != 0o751 {
		t.Errorf("tool.sh's mode after undo: %v, %v; want 0751", fi.Mode().Perm(), err)
	}
	if b, err := os.ReadFile(filepath.Join(root, "old.txt")); err != nil || string(b) != "renamed by the command\n" {
		t.Errorf("old.txt after undo: %q, %v; want it back under its old name (%s)", b, err, said)
	}
}

// agentlsIn runs the binary in root with env and returns its stdout,
// stderr and exit code.
func agentlsIn(t *testing.T, root string, env []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir, cmd.Env = root, env
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return stdout.String(), stderr.String(), 0
	case errors.As(err, &exit):
		return stdout.String(), stderr.String(), exit.ExitCode()
	}
	t.Fatalf("agentls %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	return "", "", -1
}

// sessionOf is the session a --json run names in its start line.
func sessionOf(t *testing.T, stream string) string {
	t.Helper()
	for _, line := range strings.Split(stream, "\n") {
		var v struct {
			Session string `json:"session"`
		}
		if json.Unmarshal([]byte(line), &v) == nil && v.Session != "" {
			return v.Session
		}
	}
	t.Fatalf("no session in the run's output:\n%s", stream)
	return ""
}

// Issue 31: a command's deletions are undoable. Headless, a task's
// `rm tool.sh && mv old.txt new.txt` is carried into the tree, and
// `agentls sessions rewind ID 0` puts tool.sh back with its exact bytes and
// mode and old.txt under its old name. On the old code the carry recorded
// no deletion: the rewind deleted new.txt and left tool.sh and old.txt
// gone.
func TestHeadlessRewindRestoresCommandDeletions(t *testing.T) {
	root := copyWorkspace(t, "hello")
	deletable(t, root)
	_, base := startModel(t, deleteScript)
	env := append(cleanEnv(), "AGENTLS_API_KEY=sk-test-secret-key-123", "AGENTLS_MODEL=test-model",
		"XDG_STATE_HOME="+filepath.Join(t.TempDir(), "state"))
	_, stream, code := agentlsIn(t, root, env, "run", "--base-url", base, "--no-verify", "--json", "clean up")
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stream)
	}
	checkDeleted(t, root)
	id := sessionOf(t, stream)
	out, errs, code := agentlsIn(t, root, env, "sessions", "rewind", id, "0")
	if code != 0 {
		t.Fatalf("rewind: exit %d\n%s%s", code, out, errs)
	}
	checkRestored(t, root, out)
}

// Issue 31 over ACP: /undo puts back what the task's command deleted (its
// bytes and mode) and renamed. On the old code /undo named only new.txt
// and tool.sh and old.txt stayed gone.
func TestACPUndoRestoresCommandDeletions(t *testing.T) {
	r := startACP(t, "hello", deleteScript, false, nil)
	deletable(t, r.root)
	id := r.newSession(t)
	r.prompt(t, id, "clean up")
	checkDeleted(t, r.root)
	n := len(r.client.snapshot())
	r.prompt(t, id, "/undo")
	said := agentText(r.client.snapshot()[n:])
	checkRestored(t, r.root, said)
}

// With the client's fs, the deleted files are made again on disk too (the
// client's fs_write_text_file could give neither the mode nor bytes that
// are not UTF-8); new.txt went to the client's buffer, which ACP cannot
// delete, so /undo names it.
func TestACPUndoRestoresCommandDeletionsWithClientFS(t *testing.T) {
	r := startACP(t, "hello", deleteScript, true, nil)
	deletable(t, r.root)
	id := r.newSession(t)
	r.prompt(t, id, "clean up")
	if fileExists(filepath.Join(r.root, "tool.sh")) || fileExists(filepath.Join(r.root, "old.txt")) {
		t.Fatal("the command's rm and mv were not carried into the tree")
	}
	n := len(r.client.snapshot())
	r.prompt(t, id, "/undo")
	said := agentText(r.client.snapshot()[n:])
	checkBack(t, r.root, said)
	if !strings.Contains(said, "new.txt") {
		t.Errorf("/undo does not name new.txt, which it cannot delete over ACP: %q", said)
	}
}

// commandWrites is a task whose command changes a file, makes one and
// deletes one.
const commandWrites = `{"turns":[
 {"toolCalls":[{"id":"call_w","name":"run_command","arguments":"{\"command\":\"sed -i s/hello/HELLO/ hello.txt && echo made > made.txt && rm gone.txt\"}"}]},
 {"text":"Done."}]}`

// checkHeld checks that none of commandWrites' command reached the disk:
// hello.txt is orig, made.txt not made, gone.txt still there (when says
// why they should be held).
func checkHeld(t *testing.T, root string, orig []byte, when string) {
	t.Helper()
	if b, _ := os.ReadFile(filepath.Join(root, "hello.txt")); !bytes.Equal(b, orig) {
		t.Errorf("hello.txt was written %s: %q", when, b)
	}
	if fileExists(filepath.Join(root, "made.txt")) {
		t.Errorf("made.txt was made %s", when)
	}
	if !fileExists(filepath.Join(root, "gone.txt")) {
		t.Errorf("gone.txt was deleted %s", when)
	}
}

// Issue 31: --dry-run holds what a command writes as it holds the edit
// tools' changes: the disk is left as it was, and the diff on stdout shows
// the command's change, its new file and its deletion. On the old code the
// command's writes landed on disk under --dry-run.
func TestHeadlessDryRunHoldsCommandWrites(t *testing.T) {
	root := copyWorkspace(t, "hello")
	if err := os.WriteFile(filepath.Join(root, "gone.txt"), []byte("deleted by the command\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	orig, _ := os.ReadFile(filepath.Join(root, "hello.txt"))
	_, base := startModel(t, commandWrites)
	env := append(cleanEnv(), "AGENTLS_API_KEY=sk-test-secret-key-123", "AGENTLS_MODEL=test-model",
		"XDG_STATE_HOME="+filepath.Join(t.TempDir(), "state"))
	out, errs, code := agentlsIn(t, root, env, "run", "--base-url", base, "--no-verify", "--dry-run", "shout")
	if code != 0 {
		t.Fatalf("run: exit %d\n%s%s", code, out, errs)
	}
	checkHeld(t, root, orig, "under --dry-run")
	if !containsAll(out, "+HELLO world", "+++ b/made.txt", "+made", "--- a/gone.txt", "+++ /dev/null", "-deleted by the command") {
		t.Errorf("the dry run's diff lacks the command's changes:\n%s\n%s", out, errs)
	}
}

// Issue 31: in the editor's review mode, what a command writes becomes a
// proposal like an edit tool's change: nothing reaches the disk until the
// user accepts, and accept writes it. A deletion cannot be proposed: it is
// left, and the model is told. On the old code hello.txt and made.txt were
// written by the command at once, and gone.txt deleted.
func TestReviewHoldsCommandWrites(t *testing.T) {
	s := start(t, setup{workspace: "hello", files: map[string]string{"gone.txt": "deleted by the command\n"}, script: commandWrites})
	orig, _ := os.ReadFile(filepath.Join(s.Root, "hello.txt"))
	r := s.run(t, map[string]any{"task": "shout", "review": true})
	if r.Status != "ok" {
		t.Fatalf("%+v", r)
	}
	checkHeld(t, s.Root, orig, "before review")
	said := ""
	for _, req := range s.LLM.Requests() {
		for _, m := range req.Body.Messages {
			said += m.Content
		}
	}
	if !strings.Contains(said, "proposed for the user's review") || !strings.Contains(said, "gone.txt (deleted by the command; review mode proposes text only") {
		t.Errorf("the model was not told what became of the command's writes:\n%s", said)
	}
	var res struct{ Applied bool }
	if err := s.Command(s.ctx, "agentls.accept", map[string]any{"taskId": r.TaskID}, &res); err != nil || !res.Applied {
		t.Fatalf("accept: %v %+v", err, res)
	}
	text := func(rel string) string {
		if t, open := s.Text(rel); open {
			return t
		}
		b, _ := os.ReadFile(filepath.Join(s.Root, rel))
		return string(b)
	}
	if got := text("hello.txt"); got != strings.Replace(string(orig), "hello", "HELLO", 1) {
		t.Errorf("hello.txt after accept: %q", got)
	}
	if got := text("made.txt"); got != "made\n" {
		t.Errorf("made.txt after accept: %q", got)
	}
}

// Issue 31 over ACP: with review on, every edit is asked about before it
// is written, and so is every file a command's view would carry in; a
// refused file is left as it was. On the old code the command's writes
// landed without a question.
func TestACPReviewAsksAboutCommandWrites(t *testing.T) {
	r := startACP(t, "hello", commandWrites, false, map[string]any{"agent": map[string]any{"review": true}})
	if err := os.WriteFile(filepath.Join(r.root, "gone.txt"), []byte("deleted by the command\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	orig, _ := os.ReadFile(filepath.Join(r.root, "hello.txt"))
	r.client.answer = "reject"
	id := r.newSession(t)
	r.prompt(t, id, "shout")
	checkHeld(t, r.root, orig, "though the user refused")
	r.client.mu.Lock()
	var titles []string
	for _, a := range r.client.asked {
		if a.ToolCall.Title != nil {
			titles = append(titles, *a.ToolCall.Title)
		}
	}
	r.client.mu.Unlock()
	if got := strings.Join(titles, ","); !containsAll(got, "Edit hello.txt", "Edit made.txt", "Edit gone.txt") {
		t.Errorf("asked about %q; want each file the command wrote or deleted", got)
	}
}

// Issue 31: in the language server, a file the editor does not hold that
// a command's view carries in goes through the write path (the Applier
// over the disk transport), so it takes its turn with a change to that
// file already in flight: while an accept's workspace/applyEdit of g.txt
// waits for the editor, task B's `sed` on g.txt is not written; once the
// accept lands, B's carry finds g.txt changed and leaves it (the model is
// told). On the old code the carry wrote g.txt straight to disk while the
// accept was in flight.
func TestCommandCarryTakesItsTurn(t *testing.T) {
	s := start(t, setup{files: map[string]string{"g.txt": "gamma\n"}, script: `{"turns":[
 {"toolCalls":[{"id":"a1r","name":"read_file","arguments":"{\"path\":\"g.txt\"}"},{"id":"a1","name":"edit_file","arguments":"{\"path\":\"g.txt\",\"old_string\":\"gamma\",\"new_string\":\"GAMMA\"}"}]},
 {"text":"A proposed"},
 {"toolCalls":[{"id":"b1","name":"run_command","arguments":"{\"command\":\"sed -i s/gamma/delta/ g.txt\"}"}]},
 {"text":"B done"}]}`})
	a := s.run(t, map[string]any{"task": "task A", "review": true})
	if a.Status != "ok" {
		t.Fatalf("A: %+v", a)
	}
	s.Configure(func(e *lspclient.Editor) {
		e.HoldApplyEdit = func(*protocol.ApplyWorkspaceEditParams) bool { return true }
	})
	accepted := make(chan error, 1)
	go func() { accepted <- s.Command(s.ctx, "agentls.accept", map[string]any{"taskId": a.TaskID}, nil) }()
	if !s.WaitFor(testWait, func() bool { return len(s.Edits()) == 1 }) {
		t.Fatal("the accept never reached the editor")
	}
	id, err := s.Run(s.ctx, map[string]any{"task": "task B", "session": "s-b"})
	if err != nil {
		t.Fatal(err)
	}
	// B's command ran and its carry waits for g.txt's turn: the disk keeps
	// g.txt as the accept planned on it.
	if !s.WaitFor(testWait, func() bool { return len(s.LLM.Requests()) >= 3 }) {
		t.Fatal("task B never started")
	}
	// (A carry that does not wait ends B's command and sends B's next
	// request within this bound; one that waits never does while held.)
	s.WaitFor(2*time.Second, func() bool { return len(s.LLM.Requests()) >= 4 })
	if b, _ := os.ReadFile(filepath.Join(s.Root, "g.txt")); string(b) != "gamma\n" {
		t.Fatalf("g.txt = %q while the accept's applyEdit of it was in flight: the command's carry did not wait its turn", b)
	}
	s.ReleaseHeld()
	if err := <-accepted; err != nil {
		t.Fatalf("accept: %v", err)
	}
	b, err := s.Wait(s.ctx, id, 30*time.Second)
	if err != nil || b.Status != "ok" {
		t.Fatalf("B: %+v, %v", b, err)
	}
	if got, open := s.Text("g.txt"); open && got != "GAMMA\n" {
		t.Errorf("g.txt's buffer = %q, want the accepted GAMMA", got)
	}
	reqs := s.LLM.Requests()
	last := reqs[len(reqs)-1].Body.Messages
	if said := last[len(last)-1].Content; !strings.Contains(said, "g.txt (changed by someone else") {
		t.Errorf("B's command result does not say g.txt was left: %q", said)
	}
}

// Issue 31 in the editor: agentls.undo puts back what the task's command
// deleted (bytes and mode) and renamed. On the old code the undo removed
// new.txt only.
func TestUndoRestoresCommandDeletions(t *testing.T) {
	caps := lspclient.VSCodeCaps()
	caps.FileOps = true
	s := start(t, setup{caps: &caps, workspace: "hello", script: deleteScript})
	deletable(t, s.Root)
	r := s.run(t, map[string]any{"task": "clean up"})
	if r.Status != "ok" {
		t.Fatalf("%+v", r)
	}
	checkDeleted(t, s.Root)
	var undo struct {
		Applied   bool   `json:"applied"`
		Reason    string `json:"reason"`
		Conflicts []any  `json:"conflicts"`
	}
	if err := s.Command(s.ctx, "agentls.undo", map[string]any{"taskId": r.TaskID}, &undo); err != nil || !undo.Applied {
		t.Fatalf("undo: %+v, %v", undo, err)
	}
	checkRestored(t, s.Root, fmt.Sprintf("%+v", undo))
}

package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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
	b, err := os.ReadFile(filepath.Join(root, "tool.sh"))
	if err != nil || !bytes.Equal(b, toolBytes) {
		t.Errorf("tool.sh after undo: %q, %v; want its bytes back (%s)", b, err, said)
	} else if fi, err := os.Stat(filepath.Join(root, "tool.sh")); err != nil || fi.Mode().Perm() != 0o751 {
		t.Errorf("tool.sh's mode after undo: %v, %v; want 0751", fi.Mode().Perm(), err)
	}
	if b, err := os.ReadFile(filepath.Join(root, "old.txt")); err != nil || string(b) != "renamed by the command\n" {
		t.Errorf("old.txt after undo: %q, %v; want it back under its old name (%s)", b, err, said)
	}
	if fileExists(filepath.Join(root, "new.txt")) {
		t.Errorf("new.txt, the rename's new name, is still there after undo (%s)", said)
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

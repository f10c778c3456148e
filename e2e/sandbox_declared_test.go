package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Issue 30's attacks on the sandbox, through the real binary (LSP, so the
// commands run in the LSP command view) and the scripted model, with the
// default settings: the model asks for commands, which run sandboxed
// without a question, and whatever they print is sent to the model.

// runCommandsScript is a script whose first turn runs each command.
func runCommandsScript(commands ...string) string {
	var calls []string
	for i, c := range commands {
		args, _ := json.Marshal(map[string]string{"command": c})
		call, _ := json.Marshal(map[string]any{"id": "c" + string(rune('1'+i)), "name": "run_command", "arguments": string(args)})
		calls = append(calls, string(call))
	}
	return `{"turns":[{"toolCalls":[` + strings.Join(calls, ",") + `]},{"text":"done"}]}`
}

// outsideTemp is a directory outside /tmp (a fake home, a cache): /tmp is
// where the attacks look for the user's sockets and files.
func outsideTemp(t *testing.T, prefix string) string {
	t.Helper()
	d, err := os.MkdirTemp("/var/tmp", prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		filepath.Walk(d, func(p string, _ os.FileInfo, _ error) error { os.Chmod(p, 0o755); return nil })
		os.RemoveAll(d)
	})
	return d
}

// Item 1: the user's ssh-agent, by its variable and by its path in /tmp.
// Before, SSH_AUTH_SOCK was passed and the socket in /tmp reachable: the
// command listed the user's key (and could have signed with it), and the
// model read it.
func TestSandboxedCommandCannotReachTheUsersAgent(t *testing.T) {
	for _, tool := range []string{"ssh-agent", "ssh-add", "ssh-keygen"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not installed (.ci/install installs openssh-client): %v", tool, err)
		}
	}
	dir, err := os.MkdirTemp("/tmp", "ssh-e2e-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "agent.sock")
	agent := exec.Command("ssh-agent", "-D", "-a", sock)
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { agent.Process.Kill(); agent.Wait() })
	for i := 0; i < 100 && !fileExists(sock); i++ {
		time.Sleep(50 * time.Millisecond)
	}
	key := filepath.Join(outsideTemp(t, "ssh-key-"), "id")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "agentls-e2e-user-key", "-f", key).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v %s", err, out)
	}
	add := exec.Command("ssh-add", key)
	add.Env = append(os.Environ(), "SSH_AUTH_SOCK="+sock)
	if out, err := add.CombinedOutput(); err != nil {
		t.Fatalf("ssh-add: %v %s", err, out)
	}
	s := start(t, setup{
		script: runCommandsScript("ssh-add -L", "env SSH_AUTH_SOCK="+sock+" ssh-add -L"),
		env:    []string{"SSH_AUTH_SOCK=" + sock},
	})
	if r := s.run(t, map[string]any{"task": "list the keys"}); r.Status == "" {
		t.Fatalf("task: %+v", r)
	}
	out := toolOutputs(s)
	if !strings.Contains(out, "ssh-add") && !strings.Contains(out, "agent") {
		t.Fatalf("the commands did not run: %q", out)
	}
	if strings.Contains(out, "agentls-e2e-user-key") || strings.Contains(out, "ssh-ed25519") {
		t.Errorf("a sandboxed command reached the user's ssh-agent:\n%s", out)
	}
}

// Item 2: secrets outside the deny list, in the user's home. Before, the
// sandbox was the whole machine minus a list: a token exported in
// ~/.bashrc, git's second credential file, the containers' auth file and
// another repository's .env were read and sent to the model.
func TestSandboxedCommandSeesOnlyTheDeclaration(t *testing.T) {
	home := outsideTemp(t, "agentls-e2e-home-")
	secrets := map[string]string{
		".bashrc":                      "export DEPLOY_KEY=E2E-SECRET-BASHRC\n",
		".config/git/credentials":      "https://u:E2E-SECRET-GITCRED@example.com\n",
		".config/containers/auth.json": `{"auths":{"r":{"auth":"E2E-SECRET-CONTAINERS"}}}`,
		"other-project/.env":           "TOKEN=E2E-SECRET-OTHER-ENV\n",
		"notes/todo.txt":               "E2E-SECRET-NOTES\n",
	}
	var paths []string
	for rel, body := range secrets {
		p := filepath.Join(home, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	s := start(t, setup{
		script: runCommandsScript("cat "+strings.Join(paths, " "), "ls -a "+home+" /root /run /var/run /mnt /media"),
		env:    []string{"HOME=" + home},
	})
	if r := s.run(t, map[string]any{"task": "look around"}); r.Status == "" {
		t.Fatalf("task: %+v", r)
	}
	out := toolOutputs(s)
	if !strings.Contains(out, "exit code") {
		t.Fatalf("the commands did not run: %q", out)
	}
	if strings.Contains(out, "E2E-SECRET") {
		t.Errorf("a sandboxed command read the user's files outside the declaration:\n%s", out)
	}
	if strings.Contains(out, "\nother-project\n") || strings.Contains(out, "\n.bashrc\n") {
		t.Errorf("the home directory is not empty but for what is declared:\n%s", out)
	}
}

// Item 5: writes outside the task. Before, a user's file in /tmp was
// changed and a file made in /dev/shm, and both stayed after the task.
func TestSandboxedCommandCannotWriteTheUsersTmp(t *testing.T) {
	dir, err := os.MkdirTemp("/tmp", "agentls-e2e-user-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	user := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(user, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	shm := filepath.Join("/dev/shm", filepath.Base(dir))
	t.Cleanup(func() { os.Remove(shm) })
	s := start(t, setup{
		files:  map[string]string{"payload.txt": "PWNED\n"},
		script: runCommandsScript("cp payload.txt "+user, "cp payload.txt "+shm, "cp payload.txt /tmp/scratch.txt && cat /tmp/scratch.txt"),
	})
	if r := s.run(t, map[string]any{"task": "copy"}); r.Status == "" {
		t.Fatalf("task: %+v", r)
	}
	if out := toolOutputs(s); !strings.Contains(out, "PWNED") {
		t.Errorf("the command's own /tmp is not writable:\n%s", out)
	}
	if b, _ := os.ReadFile(user); string(b) != "mine\n" {
		t.Errorf("a sandboxed command changed the user's file in /tmp: %q", b)
	}
	if fileExists(shm) {
		t.Errorf("a sandboxed command left %s behind", shm)
	}
}

// Item 6: cache layers that nobody owns. Before, they were keyed by the
// workspace's path: a new project made at a deleted project's path saw
// the old project's poisoned module.
func TestCacheLayersBelongToTheirProject(t *testing.T) {
	gomod := filepath.Join(outsideTemp(t, "agentls-e2e-gomod-"), "mod")
	if err := os.MkdirAll(filepath.Join(gomod, "cache"), 0o755); err != nil {
		t.Fatal(err)
	}
	state := outsideTemp(t, "agentls-e2e-state-")
	root := filepath.Join(outsideTemp(t, "agentls-e2e-projects-"), "app")
	planted := filepath.Join(gomod, "cache", "planted.txt")
	env := []string{"GOMODCACHE=" + gomod, "XDG_STATE_HOME=" + state}
	project := func() {
		if err := os.MkdirAll(root, 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/app\n\ngo 1.22\n"), 0o644)
		os.WriteFile(filepath.Join(root, "payload.txt"), []byte("POISONED-MODULE\n"), 0o644)
	}
	project()
	s := start(t, setup{root: root, env: env, script: runCommandsScript("cp payload.txt " + planted + " && cat " + planted)})
	if r := s.run(t, map[string]any{"task": "plant"}); r.Status == "" {
		t.Fatalf("task: %+v", r)
	}
	if out := toolOutputs(s); !strings.Contains(out, "POISONED-MODULE") {
		t.Fatalf("the first project could not write its cache layer: %s", out)
	}
	if fileExists(planted) {
		t.Fatalf("the plant reached the real cache")
	}
	// The project is deleted and another made at its path.
	if err := os.RemoveAll(root); err != nil {
		t.Fatal(err)
	}
	project()
	os.Remove(filepath.Join(root, "payload.txt"))
	sandbox := func(args ...string) string {
		cmd := exec.Command(binary, append([]string{"sandbox"}, args...)...)
		cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+state)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("agentls sandbox %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	// The old project's layers are orphaned now.
	if out := sandbox("caches"); !strings.Contains(out, "orphaned") || !strings.Contains(out, root) {
		t.Errorf("agentls sandbox caches does not list the old layers as orphaned:\n%s", out)
	}
	s2 := start(t, setup{root: root, env: env, script: runCommandsScript("cat " + planted)})
	if r := s2.run(t, map[string]any{"task": "build"}); r.Status == "" {
		t.Fatalf("task: %+v", r)
	}
	if out := toolOutputs(s2); strings.Contains(out, "POISONED-MODULE") {
		t.Errorf("a new project at a deleted project's path saw its cache layer:\n%s", out)
	}
	// agentls pruned the orphaned layers after its first command; the
	// new project's are kept until pruned by hand.
	if out := sandbox("caches"); strings.Contains(out, "orphaned") || !strings.Contains(out, "1 workspaces") {
		t.Errorf("the orphaned layers were not pruned:\n%s", out)
	}
	if out := sandbox("prune", "--all"); !strings.Contains(out, "removed 1 cache layers") {
		t.Errorf("agentls sandbox prune --all:\n%s", out)
	}
}

// Item 8: memory. Before, a command's memory was unbounded (it shared
// agentls's cgroup): this one touches 4.5 GiB, over the default cap of
// 4 GiB (sandbox.memoryMiB), and is killed, and the model is told why.
func TestSandboxedCommandMemoryIsCapped(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Fatalf("python3 is not installed: %v", err)
	}
	s := start(t, setup{
		files:  map[string]string{"hog.py": "b = b'x' * (4608 << 20)\nprint('ALLOCATED', len(b) >> 20, 'MiB')\n"},
		script: runCommandsScript("python3 hog.py"),
	})
	// Touching 4 GiB takes a while on a busy machine.
	id, err := s.Run(s.ctx, map[string]any{"task": "allocate"})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := s.Wait(s.ctx, id, 3*time.Minute); err != nil || r.Status == "" {
		t.Fatalf("task: %+v %v", r, err)
	}
	out := toolOutputs(s)
	t.Logf("the model was sent:\n%s", out)
	if strings.Contains(out, "ALLOCATED") {
		t.Errorf("a sandboxed command touched 4.5 GiB:\n%s", out)
	}
	if !strings.Contains(out, "memory cap") && !strings.Contains(out, "MemoryError") {
		t.Errorf("the model is not told the command hit the memory cap:\n%s", out)
	}
}

package proc_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/policy"
	"github.com/agentls/agentls/internal/proc"
	"github.com/agentls/agentls/internal/testkit/need"
	"golang.org/x/sys/unix"
)

// Each test here is an attack: it runs the same command unconfined (Mode
// off), where it must succeed, and sandboxed, where it must fail.

func needSandbox(t *testing.T) {
	t.Helper()
	if ok, why := proc.Available(); !ok {
		need.Missing(t, "sandbox unavailable here: %s", why)
	}
}

// confined is the sandbox agentls configures (assemble): the policy's
// lists of protected names, secret files and masked paths.
func confined() proc.Sandbox {
	return proc.Sandbox{Protect: policy.ProtectedNames(), SecretFiles: policy.DefaultSecretFiles(), DenyRead: policy.DefaultDenyRead()}
}

// modCache is a Go module cache outside the workspace holding one file,
// keep, and the environment that names it (GOMODCACHE): a cache a
// sandboxed command writes only through its layer.
func modCache(t *testing.T) (gomod string, env []string) {
	t.Helper()
	gomod = filepath.Join(outsideDir(t), "mod")
	write(t, filepath.Join(gomod, "keep"), "k\n", 0o644)
	return gomod, append(os.Environ(), "GOMODCACHE="+gomod)
}

// outsideDir is a directory neither in the workspace nor in os.TempDir
// (which sandboxed commands may write by design).
func outsideDir(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("/var/tmp", "proc-outside-")
	if err != nil {
		t.Skipf("no directory outside the temp dir: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	if strings.HasPrefix(d, os.TempDir()) {
		t.Skipf("%s is inside os.TempDir()", d)
	}
	return d
}

func TestSandboxCannotWriteOutsideWorkspace(t *testing.T) {
	needSandbox(t)
	ws, out := t.TempDir(), outsideDir(t)
	target := filepath.Join(out, "pwned")
	cmd := fmt.Sprintf("echo pwned > %s", target)

	if r := run(t, proc.Spec{Shell: cmd, Dir: ws, Sandbox: off}); r.ExitCode != 0 {
		t.Fatalf("unconfined write failed, the attack proves nothing: %+v", r)
	}
	os.Remove(target)

	for _, mode := range []string{proc.ModeWorkspaceWrite, proc.ModeReadOnly} {
		r := run(t, proc.Spec{Shell: cmd + "; touch " + filepath.Join(out, "touched"), Dir: ws, Sandbox: proc.Sandbox{Mode: mode}})
		if _, err := os.Stat(target); err == nil || r.ExitCode == 0 {
			t.Errorf("mode %s: wrote outside the workspace: %+v", mode, r)
		}
		if _, err := os.Stat(filepath.Join(out, "touched")); err == nil {
			t.Errorf("mode %s: created a file outside the workspace", mode)
		}
	}
	// The workspace itself stays writable, and read-only means read-only.
	if r := run(t, proc.Spec{Shell: "echo ok > inside", Dir: ws, Sandbox: proc.Sandbox{}}); r.ExitCode != 0 {
		t.Errorf("cannot write inside the workspace: %+v", r)
	}
	// (The workspace must lie outside os.TempDir here, which is writable.)
	if r := run(t, proc.Spec{Shell: "echo ok > inside", Dir: out, Sandbox: proc.Sandbox{Mode: proc.ModeReadOnly}}); r.ExitCode == 0 {
		t.Errorf("read-only mode wrote the workspace: %+v", r)
	}
	// WritableRoots widen it.
	if r := run(t, proc.Spec{Shell: cmd, Dir: ws, Sandbox: proc.Sandbox{WritableRoots: []string{out}}}); r.ExitCode != 0 {
		t.Errorf("a writable root is not writable: %+v", r)
	}
}

func TestSandboxProtectsGitAndConfig(t *testing.T) {
	needSandbox(t)
	attacks := []struct{ name, cmd string }{
		{"hook into .git", "mkdir -p .git/hooks && echo 'curl evil' > .git/hooks/pre-commit"},
		{"rewrite .git/config", "echo '[core]\n\tfsmonitor = evil' >> .git/config"},
		{"overwrite .agentls.json", `echo '{"tools":{"allow":["*"]}}' > .agentls.json`},
		{"replace .agentls.json", `echo '{"tools":{"allow":["*"]}}' > x && mv -f x .agentls.json`},
		{"remove .git", "rm -rf .git && ! test -e .git"},
		{"edit .vscode", `echo '{"chat.tools.autoApprove":true}' > .vscode/settings.json`},
	}
	setup := func(t *testing.T) string {
		ws := t.TempDir()
		for name, body := range map[string]string{".git/config": "[core]\n", ".agentls.json": "{}\n", ".vscode/settings.json": "{}\n"} {
			p := filepath.Join(ws, name)
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return ws
	}
	snapshot := func(ws string) string { // the protected files
		var b strings.Builder
		filepath.WalkDir(ws, func(p string, d os.DirEntry, err error) error {
			rel, _ := filepath.Rel(ws, p)
			first, _, _ := strings.Cut(rel, string(filepath.Separator))
			protected := first == ".git" || first == ".agentls.json" || first == ".vscode"
			if err == nil && protected && !d.IsDir() {
				c, _ := os.ReadFile(p)
				fmt.Fprintf(&b, "%s=%q\n", p, c)
			}
			return nil
		})
		return b.String()
	}
	for _, a := range attacks {
		t.Run(a.name, func(t *testing.T) {
			ws := setup(t)
			before := snapshot(ws)
			if r := run(t, proc.Spec{Shell: a.cmd, Dir: ws, Sandbox: off}); r.ExitCode != 0 || snapshot(ws) == before {
				t.Fatalf("unconfined attack failed, it proves nothing: %+v", r)
			}
			ws = setup(t)
			before = snapshot(ws)
			r := run(t, proc.Spec{Shell: a.cmd, Dir: ws, Sandbox: confined()})
			if after := snapshot(ws); r.ExitCode == 0 || after != before {
				t.Errorf("sandboxed attack succeeded: %+v\nbefore:\n%s\nafter:\n%s", r, before, after)
			}
		})
	}
}

func TestSandboxHasNoNetwork(t *testing.T) {
	needSandbox(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	dial := func(sb proc.Sandbox, addr string) proc.Result {
		return run(t, proc.Spec{Argv: []string{os.Args[0]}, Env: append(os.Environ(), "PROC_TEST_DIAL="+addr), Dir: t.TempDir(), Sandbox: self(sb)})
	}
	addr := ln.Addr().String()
	if r := dial(off, addr); r.ExitCode != 0 {
		t.Fatalf("unconfined dial failed, the attack proves nothing: %+v", r)
	}
	if r := dial(proc.Sandbox{}, addr); r.ExitCode == 0 || strings.Contains(r.Output, "connected") {
		t.Errorf("sandboxed command reached the host's loopback: %+v", r)
	}
	if r := dial(proc.Sandbox{Network: true}, addr); r.ExitCode != 0 {
		t.Errorf("with Network the command could not connect: %+v", r)
	}
	// A failure to reach a non-local host is reported as such.
	r := dial(proc.Sandbox{}, "192.0.2.1:80")
	if r.ExitCode == 0 || !r.NetworkBlocked {
		t.Errorf("a dial out without network is not flagged NetworkBlocked: %+v", r)
	}
}

func TestSandboxCannotReadOtherProcessesEnviron(t *testing.T) {
	needSandbox(t)
	// The holder plays agentls or the editor: a process outside the
	// sandbox with the key in its environment.
	const key = "sk-proc-test-fake-key-123"
	holder := exec.Command("sleep", "3600")
	holder.Env = append(os.Environ(), "AGENTLS_API_KEY="+key)
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { holder.Process.Kill(); holder.Wait() }()
	t.Setenv("AGENTLS_API_KEY", key)

	cmd := fmt.Sprintf("cat /proc/%d/environ /proc/%d/environ | tr '\\0' '\\n'; env", holder.Process.Pid, os.Getpid())
	if r := run(t, proc.Spec{Shell: cmd, Sandbox: off, Dir: t.TempDir()}); !strings.Contains(r.Output, key) {
		t.Fatalf("unconfined read of the holder's environ failed, the attack proves nothing: %+v", r)
	}
	r := run(t, proc.Spec{Shell: cmd, Dir: t.TempDir(), Sandbox: proc.Sandbox{}})
	if strings.Contains(r.Output, key) {
		t.Errorf("sandboxed command read the key:\n%s", r.Output)
	}
	// Nor can it see the processes at all.
	r = run(t, proc.Spec{Shell: "ls /proc | grep -c '^[0-9]'", Dir: t.TempDir(), Sandbox: proc.Sandbox{}})
	if n := strings.TrimSpace(r.Output); n != "2" && n != "3" {
		t.Errorf("sandboxed command sees %s processes", n)
	}
}

func TestSandboxBuildsAndTestsGoOffline(t *testing.T) {
	needSandbox(t)
	if _, err := exec.LookPath("go"); err != nil {
		need.Missing(t, "no go command")
	}
	ws := t.TempDir()
	files := map[string]string{
		"go.mod":        "module example.com/tiny\n\ngo 1.22\n",
		"tiny.go":       "package tiny\n\nfunc Add(a, b int) int { return a + b }\n",
		"tiny_test.go":  "package tiny\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"bad\")\n\t}\n}\n",
		"cmd/m/main.go": "package main\n\nimport \"example.com/tiny\"\n\nfunc main() { println(tiny.Add(1, 2)) }\n",
	}
	for name, body := range files {
		os.MkdirAll(filepath.Join(ws, filepath.Dir(name)), 0o755)
		if err := os.WriteFile(filepath.Join(ws, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOTOOLCHAIN=local")
	cmd := "go build -o bin/m ./cmd/m && ./bin/m && go vet ./... && go test -count=1 ./..."
	// Warm the cache unconfined, as a user's earlier builds would have.
	if r := run(t, proc.Spec{Shell: cmd, Env: env, Dir: ws, Sandbox: off}); r.ExitCode != 0 {
		t.Fatalf("unconfined build failed: %s", r.Output)
	}
	os.RemoveAll(filepath.Join(ws, "bin"))
	// (confined: the protected names' placeholders must not get in the
	// way; an empty .git would break go build's version stamping.)
	r := run(t, proc.Spec{Shell: cmd, Env: env, Dir: ws, Sandbox: confined()})
	if r.ExitCode != 0 || !strings.Contains(r.Output, "ok  \texample.com/tiny") {
		t.Errorf("sandboxed go build/test failed: %+v", r)
	}
}

func TestSandboxCommandHasPipesForMCP(t *testing.T) {
	needSandbox(t)
	cmd, err := proc.Command(context.Background(), proc.Spec{Argv: []string{"cat"}, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer proc.KillTree(cmd)
	fmt.Fprintln(in, `{"jsonrpc":"2.0"}`)
	in.Close()
	b := make([]byte, 64)
	n, _ := out.Read(b)
	if got := string(b[:n]); got != "{\"jsonrpc\":\"2.0\"}\n" {
		t.Errorf("echoed %q", got)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("wait: %v", err)
	}
}

// viaCommand runs s through Command, the path MCP servers and the ACP
// bridge take (the re-executed launcher, not the zygote Run uses).
func viaCommand(t *testing.T, s proc.Spec) (int, string) {
	t.Helper()
	cmd, err := proc.Command(t.Context(), s)
	if err != nil {
		t.Fatalf("Command(%q): %v", s.Shell, err)
	}
	defer proc.KillTree(cmd)
	out, _ := cmd.CombinedOutput()
	return cmd.ProcessState.ExitCode(), string(out)
}

// The launcher confines as the zygote does: each attack succeeds through
// an unconfined Command and fails through a sandboxed one.
func TestSandboxedCommandIsConfined(t *testing.T) {
	needSandbox(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	holder := exec.Command("sleep", "3600")
	const key = "sk-proc-test-launcher-key"
	holder.Env = append(os.Environ(), "AGENTLS_API_KEY="+key)
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { holder.Process.Kill(); holder.Wait() }()

	out := outsideDir(t)
	attacks := []struct {
		name string
		spec proc.Spec
		// done reports whether the attack reached its goal.
		done func(code int, output string) bool
	}{
		{"write outside the workspace", proc.Spec{Shell: "echo pwned > " + filepath.Join(out, "pwned")},
			func(int, string) bool { _, err := os.Stat(filepath.Join(out, "pwned")); return err == nil }},
		{"dial the host's loopback", proc.Spec{Argv: []string{os.Args[0]}, Env: append(os.Environ(), "PROC_TEST_DIAL="+ln.Addr().String())},
			func(code int, output string) bool { return code == 0 && strings.Contains(output, "connected") }},
		{"read another process's environ", proc.Spec{Shell: fmt.Sprintf("cat /proc/%d/environ", holder.Process.Pid)},
			func(_ int, output string) bool { return strings.Contains(output, key) }},
	}
	for _, a := range attacks {
		t.Run(a.name, func(t *testing.T) {
			s := a.spec
			s.Dir, s.Sandbox = t.TempDir(), off
			if code, output := viaCommand(t, s); !a.done(code, output) {
				t.Fatalf("unconfined attack failed, it proves nothing: exit %d\n%s", code, output)
			}
			os.Remove(filepath.Join(out, "pwned"))
			s.Sandbox = self(proc.Sandbox{})
			if code, output := viaCommand(t, s); a.done(code, output) {
				t.Errorf("sandboxed attack succeeded: exit %d\n%s", code, output)
			}
		})
	}
}

// KillTree on a sandboxed Command (how MCP servers are stopped) kills a
// descendant that left the process group too.
func TestKillTreeOfSandboxedCommand(t *testing.T) {
	needSandbox(t)
	for i, sb := range modes(t) {
		dir := t.TempDir()
		marker := fmt.Sprint(7301 + i)
		cmd, err := proc.Command(t.Context(), proc.Spec{Shell: treeCommand(dir, marker), Dir: dir, Sandbox: sb})
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(10 * time.Second); len(alive(marker)) < 2; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				proc.KillTree(cmd)
				_ = cmd.Wait()
				t.Fatalf("mode %q: the command's processes never started (%v)", sb.Mode, alive(marker))
			}
		}
		proc.KillTree(cmd)
		_ = cmd.Wait()
		if p := outlived(marker); len(p) > 0 {
			t.Errorf("mode %q: processes %v outlived KillTree", sb.Mode, p)
		}
	}
}

// An abstract Unix socket (an X server, a D-Bus or IDE helper listening
// on one) is per network namespace, so only Landlock's scope keeps a
// command that has the host's network from reaching it.
func TestSandboxWithNetworkCannotReachAbstractSockets(t *testing.T) {
	needSandbox(t)
	if abi, _, e := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION); e != 0 || abi < 6 {
		t.Skipf("Landlock ABI %d does not scope abstract sockets", abi)
	}
	name := fmt.Sprintf("@agentls-proc-test-%d", os.Getpid())
	ln, err := net.Listen("unix", name)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	dial := func(sb proc.Sandbox) proc.Result {
		return run(t, proc.Spec{Argv: []string{os.Args[0]}, Env: append(os.Environ(), "PROC_TEST_DIAL=unix:"+name), Dir: t.TempDir(), Sandbox: self(sb)})
	}
	if r := dial(off); r.ExitCode != 0 {
		t.Fatalf("unconfined dial failed, the attack proves nothing: %+v", r)
	}
	if r := dial(proc.Sandbox{Network: true}); r.ExitCode == 0 || strings.Contains(r.Output, "connected") {
		t.Errorf("a sandboxed command with network reached the host's abstract socket: %+v", r)
	}
}

// A masked directory that holds the workspace (agentls's state directory
// holds a task's worktree) masks everything beside the workspace, and not
// the workspace: a task in one worktree reads neither the other worktrees
// nor the rest of the state directory, and still reads its own files.
func TestDenyReadAroundTheWorkspace(t *testing.T) {
	needSandbox(t)
	state := outsideDir(t)
	mine := filepath.Join(state, "worktrees", "s1")
	other := filepath.Join(state, "worktrees", "s2")
	for _, d := range []string{mine, other, filepath.Join(state, "sessions")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(mine, "own.txt"), []byte("OWN-TEXT"), 0o644)
	os.WriteFile(filepath.Join(other, "theirs.txt"), []byte("THEIR-TEXT"), 0o644)
	os.WriteFile(filepath.Join(state, "sessions", "log"), []byte("HISTORY-TEXT"), 0o644)
	cmd := "cat own.txt; echo; cat " + filepath.Join(other, "theirs.txt") + "; echo; cat " + filepath.Join(state, "sessions", "log") + "; true"
	sb := confined()
	sb.Workspace = mine
	sb.DenyRead = append(sb.DenyRead, state)
	res, err := proc.Run(context.Background(), proc.Spec{Shell: cmd, Dir: mine, Sandbox: sb})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Output, "OWN-TEXT") {
		t.Errorf("the workspace is masked too: %q", res.Output)
	}
	if strings.Contains(res.Output, "THEIR-TEXT") || strings.Contains(res.Output, "HISTORY-TEXT") {
		t.Errorf("read beside the workspace: %q", res.Output)
	}
	off, _ := proc.Run(context.Background(), proc.Spec{Shell: cmd, Dir: mine, Sandbox: proc.Sandbox{Mode: proc.ModeOff}})
	if !strings.Contains(off.Output, "THEIR-TEXT") || !strings.Contains(off.Output, "HISTORY-TEXT") {
		t.Fatalf("unconfined, the command reads: %q", off.Output)
	}
}

// Read-only means read-only where the workspace lies: one beneath the temp
// directory, which sandboxed commands may write, stays unwritten, with or
// without a view of the editor's texts. Before, Landlock's writable temp
// directory covered the workspace inside it.
func TestReadOnlyWorkspaceInsideTempDir(t *testing.T) {
	needSandbox(t)
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("disk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, view := range []map[string][]byte{nil, {"a.txt": []byte("buffer\n")}} {
		sb := proc.Sandbox{Mode: proc.ModeReadOnly, View: view}
		r := run(t, proc.Spec{Shell: "cat a.txt; echo x > made.txt; echo x >> a.txt; mkdir d", Dir: ws, Sandbox: sb})
		if _, err := os.Stat(filepath.Join(ws, "made.txt")); err == nil {
			t.Errorf("view %v: read-only mode created a file in the workspace: %+v", view != nil, r)
		}
		if b, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(b) != "disk\n" {
			t.Errorf("view %v: read-only mode changed a.txt to %q", view != nil, b)
		}
		want := "disk"
		if view != nil {
			want = "buffer"
		}
		if !strings.Contains(r.Output, want) || !strings.Contains(r.Output, "Read-only file system") {
			t.Errorf("view %v: output %q, want the text %q and a read-only error", view != nil, r.Output, want)
		}
	}
	// Temporary files elsewhere are still allowed.
	if r := run(t, proc.Spec{Shell: "f=$(mktemp) && echo ok > $f && cat $f", Dir: ws, Sandbox: proc.Sandbox{Mode: proc.ModeReadOnly}}); r.ExitCode != 0 {
		t.Errorf("read-only mode cannot write a temporary file: %+v", r)
	}
}

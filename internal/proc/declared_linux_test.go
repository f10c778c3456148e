package proc_test

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/proc"
)

// The sandbox is built from a declaration (issue 30): each test here is
// an attack that works unconfined and must fail sandboxed.

// The user's agents: a socket variable is not passed, and a socket in
// /tmp or the home directory does not exist for the command.
func TestSandboxReachesNoAgentBySocket(t *testing.T) {
	needSandbox(t)
	home := outsideDir(t)
	tmp, err := os.MkdirTemp("/tmp", "proc-agent-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	for _, sock := range []string{filepath.Join(tmp, "agent.sock"), filepath.Join(home, ".docker.sock")} {
		ln, err := net.Listen("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ln.Close() })
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				c.Close()
			}
		}()
		env := append(os.Environ(), "HOME="+home, "SSH_AUTH_SOCK="+sock, "DOCKER_HOST=unix://"+sock,
			"DBUS_SESSION_BUS_ADDRESS=unix:path="+sock, "XDG_RUNTIME_DIR="+tmp, "PROC_TEST_DIAL=unix:"+sock)
		s := proc.Spec{Argv: []string{os.Args[0]}, Env: env, Dir: t.TempDir(), Sandbox: off}
		if r := run(t, s); !strings.Contains(r.Output, "connected") {
			t.Fatalf("unconfined dial failed, the attack proves nothing: %+v", r)
		}
		s.Sandbox = self(proc.Sandbox{})
		if r := run(t, s); strings.Contains(r.Output, "connected") {
			t.Errorf("a sandboxed command reached %s: %+v", sock, r)
		}
		r := run(t, proc.Spec{Shell: "env", Env: env, Dir: t.TempDir(), Sandbox: proc.Sandbox{}})
		for _, v := range []string{"SSH_AUTH_SOCK", "DOCKER_HOST", "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR"} {
			if strings.Contains(r.Output, v+"=") {
				t.Errorf("a sandboxed command got %s", v)
			}
		}
	}
}

// Reads are declared: what lies outside the workspace, the system, the
// languages' toolchains and caches and sandbox.allowRead does not exist.
func TestSandboxSeesOnlyTheDeclaration(t *testing.T) {
	needSandbox(t)
	home, other, allowed := outsideDir(t), outsideDir(t), outsideDir(t)
	for _, p := range []string{filepath.Join(home, ".bashrc"), filepath.Join(home, ".config/git/credentials"),
		filepath.Join(home, "other/.env"), filepath.Join(other, "x"), filepath.Join(allowed, "ok")} {
		write(t, p, "SECRET-"+filepath.Base(p)+"\n", 0o600)
	}
	cmd := "cat " + filepath.Join(home, ".bashrc") + " " + filepath.Join(home, ".config/git/credentials") + " " +
		filepath.Join(home, "other/.env") + " " + filepath.Join(other, "x") + "; ls -A " + home + " /run /mnt /media /var/run; cat " + filepath.Join(allowed, "ok")
	env := append(os.Environ(), "HOME="+home)
	if r := run(t, proc.Spec{Shell: cmd, Env: env, Dir: t.TempDir(), Sandbox: off}); strings.Count(r.Output, "SECRET-") != 5 {
		t.Fatalf("unconfined read failed, the attack proves nothing: %+v", r)
	}
	sb := confined()
	sb.AllowRead = []string{allowed}
	r := run(t, proc.Spec{Shell: cmd, Env: env, Dir: t.TempDir(), Sandbox: sb})
	if strings.Count(r.Output, "SECRET-") != 1 || !strings.Contains(r.Output, "SECRET-ok") {
		t.Errorf("the sandbox is not the declaration (only sandbox.allowRead's file may read):\n%s", r.Output)
	}
	if strings.Contains(r.Output, "\nother\n") || strings.Contains(r.Output, "\n.bashrc\n") {
		t.Errorf("the home directory holds the user's files:\n%s", r.Output)
	}
	// The declaration says the same.
	d, err := proc.Declare(sb, env)
	if err != nil {
		t.Fatal(err)
	}
	var declared []string
	for _, e := range d.Entries {
		declared = append(declared, e.Path+" "+string(e.Access))
	}
	want := []string{"/usr read-only", "/tmp private", home + " private", allowed + " read-only"}
	for _, w := range want {
		if !strings.Contains(strings.Join(declared, "\n"), w) {
			t.Errorf("the declaration lacks %q: %v", w, declared)
		}
	}
}

// The languages' toolchains and caches are declared by what the workspace
// holds: a Go workspace gets the Go caches, a Node one the npm cache.
func TestDeclarationFollowsTheWorkspacesLanguages(t *testing.T) {
	home := outsideDir(t)
	for _, d := range []string{"go/pkg/mod", ".cache/go-build", ".npm"} {
		os.MkdirAll(filepath.Join(home, d), 0o755)
	}
	env := []string{"HOME=" + home, "PATH=/usr/bin:/bin"}
	goWS, nodeWS := goWorkspace(t), t.TempDir()
	write(t, filepath.Join(nodeWS, "package.json"), "{}", 0o644)
	has := func(d proc.Declaration, p string) bool {
		for _, e := range d.Entries {
			if e.Path == p && e.Access == proc.CopyOnWrite {
				return true
			}
		}
		return false
	}
	g, err := proc.Declare(proc.Sandbox{Workspace: goWS}, env)
	if err != nil {
		t.Fatal(err)
	}
	n, err := proc.Declare(proc.Sandbox{Workspace: nodeWS}, env)
	if err != nil {
		t.Fatal(err)
	}
	if !has(g, filepath.Join(home, "go/pkg/mod")) || !has(g, filepath.Join(home, ".cache/go-build")) || has(g, filepath.Join(home, ".npm")) {
		t.Errorf("Go workspace: %+v", g.Entries)
	}
	if has(n, filepath.Join(home, "go/pkg/mod")) || !has(n, filepath.Join(home, ".npm")) {
		t.Errorf("Node workspace: %+v", n.Entries)
	}
}

// A marker made by one command is seen by the next one's declaration at
// once: `go mod init` then `go build` gets the Go caches, not a
// declaration kept from before go.mod existed.
func TestDeclarationSeesANewMarkerAtOnce(t *testing.T) {
	home := outsideDir(t)
	os.MkdirAll(filepath.Join(home, ".cache/go-build"), 0o755)
	env := []string{"HOME=" + home, "PATH=/usr/bin:/bin"}
	ws := t.TempDir()
	d, err := proc.Declare(proc.Sandbox{Workspace: ws}, env)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Languages) != 0 {
		t.Fatalf("empty workspace: languages %q", d.Languages)
	}
	write(t, filepath.Join(ws, "go.mod"), "module m\n", 0o644)
	d, err = proc.Declare(proc.Sandbox{Workspace: ws}, env)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Languages) != 1 || d.Languages[0] != "go" {
		t.Errorf("after go.mod was written: languages %q, want [go]", d.Languages)
	}
}

// /tmp and /dev/shm are the command's own: a user's file in /tmp is not
// there to change, what it writes is gone when it ends, and TMPDIR names
// its /tmp.
func TestSandboxTmpIsPrivate(t *testing.T) {
	needSandbox(t)
	dir, err := os.MkdirTemp("/tmp", "proc-user-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	user := filepath.Join(dir, "notes")
	shm := filepath.Join("/dev/shm", filepath.Base(dir))
	t.Cleanup(func() { os.Remove(shm) })
	cmd := "mkdir -p " + dir + " && echo pwned > " + user + "; echo x > " + shm + "; echo $TMPDIR; echo mine > $TMPDIR/own && cat $TMPDIR/own"
	setup := func() { write(t, user, "mine\n", 0o644); os.Remove(shm) }
	setup()
	if r := run(t, proc.Spec{Shell: cmd, Dir: t.TempDir(), Sandbox: off}); r.ExitCode != 0 {
		t.Fatalf("unconfined: %+v", r)
	}
	if b, _ := os.ReadFile(user); string(b) != "pwned\n" {
		t.Fatalf("unconfined write failed, the attack proves nothing")
	}
	setup()
	r := run(t, proc.Spec{Shell: cmd, Env: append(os.Environ(), "TMPDIR=/var/tmp"), Dir: t.TempDir(), Sandbox: proc.Sandbox{}})
	if b, _ := os.ReadFile(user); string(b) != "mine\n" {
		t.Errorf("a sandboxed command changed the user's file in /tmp: %q", b)
	}
	if _, err := os.Stat(shm); err == nil {
		t.Errorf("a sandboxed command left %s", shm)
	}
	if !strings.Contains(r.Output, "/tmp\nmine") {
		t.Errorf("TMPDIR is not the command's own /tmp: %+v", r)
	}
}

// A protected name that is a symlink protects its target too, at any
// depth: git runs .husky's hooks from tools/husky.
func TestSandboxProtectsSymlinkTargets(t *testing.T) {
	needSandbox(t)
	ws := t.TempDir()
	write(t, filepath.Join(ws, "tools/husky/pre-commit"), "npm test\n", 0o755)
	write(t, filepath.Join(ws, "editor/vscode/settings.json"), "{}\n", 0o644)
	if err := os.Symlink("tools/husky", filepath.Join(ws, ".husky")); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(ws, "sub/deep"), 0o755)
	if err := os.Symlink("../../editor/vscode", filepath.Join(ws, "sub/deep/.vscode")); err != nil {
		t.Fatal(err)
	}
	cmd := "echo evil > tools/husky/post-commit; echo evil >> tools/husky/pre-commit; echo '{\"x\":1}' > editor/vscode/settings.json; ls tools/husky"
	sb := confined()
	r := run(t, proc.Spec{Shell: cmd, Dir: ws, Sandbox: sb})
	if _, err := os.Stat(filepath.Join(ws, "tools/husky/post-commit")); err == nil {
		t.Errorf("a sandboxed command created a hook through .husky's target: %+v", r)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "tools/husky/pre-commit")); string(b) != "npm test\n" {
		t.Errorf("a sandboxed command changed a hook through .husky's target: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "editor/vscode/settings.json")); string(b) != "{}\n" {
		t.Errorf("a sandboxed command changed sub/deep/.vscode's target: %q", b)
	}
	// Unconfined, the same command writes (the attack is real).
	run(t, proc.Spec{Shell: cmd, Dir: ws, Sandbox: off})
	if _, err := os.Stat(filepath.Join(ws, "tools/husky/post-commit")); err != nil {
		t.Fatalf("unconfined, the attack did not write: it proves nothing")
	}
}

// The memory cap: a command touching more than it is killed, and Result
// says why.
func TestSandboxCapsMemory(t *testing.T) {
	needSandbox(t)
	if _, err := exec.LookPath("python3"); err != nil {
		t.Fatalf("python3 is not installed: %v", err)
	}
	cmd := `python3 -c "b = b'x' * (256 << 20); print('ALLOCATED')"`
	if r := run(t, proc.Spec{Shell: cmd, Dir: t.TempDir(), Sandbox: off}); !strings.Contains(r.Output, "ALLOCATED") {
		t.Fatalf("unconfined: %+v", r)
	}
	r := run(t, proc.Spec{Shell: cmd, Dir: t.TempDir(), Sandbox: proc.Sandbox{MemoryMax: 64 << 20}})
	if strings.Contains(r.Output, "ALLOCATED") || r.ExitCode == 0 {
		t.Errorf("a sandboxed command touched 256 MiB under a 64 MiB cap: %+v", r)
	}
	// Killed in its cgroup, it is told why (under RLIMIT_DATA, python
	// says MemoryError itself).
	if !r.OutOfMemory && !strings.Contains(r.Output, "MemoryError") {
		t.Errorf("the output does not say why: %+v", r)
	}
}

// Cache layers have an owner: a project made at a deleted project's path
// does not see its layers, which are orphaned and pruned.
func TestSandboxCacheLayersHaveAnOwner(t *testing.T) {
	needSandbox(t)
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	settleWarm(t)
	gomod, env := modCache(t)
	ws := filepath.Join(outsideDir(t), "app")
	mk := func() { write(t, filepath.Join(ws, "go.mod"), "module example.com/app\n", 0o644) }
	mk()
	if r := run(t, proc.Spec{Shell: "echo planted > " + gomod + "/p", Env: env, Dir: ws, Sandbox: confined()}); r.ExitCode != 0 {
		t.Fatalf("%+v", r)
	}
	if r := run(t, proc.Spec{Shell: "cat " + gomod + "/p", Env: env, Dir: ws, Sandbox: confined()}); r.Output != "planted\n" {
		t.Fatalf("the same project does not see its layer: %+v", r)
	}
	os.RemoveAll(ws)
	time.Sleep(10 * time.Millisecond)
	mk()
	ls, err := proc.CacheLayers("")
	if err != nil || len(ls) != 1 || !ls[0].Orphaned || ls[0].Workspace != ws || ls[0].Bytes == 0 {
		t.Errorf("the old project's layers are not listed as orphaned: %+v %v", ls, err)
	}
	if r := run(t, proc.Spec{Shell: "cat " + gomod + "/p", Env: env, Dir: ws, Sandbox: confined()}); r.ExitCode == 0 {
		t.Errorf("a new project at the old one's path sees its layer: %+v", r)
	}
	removed, err := proc.PruneCacheLayers("", proc.DefaultCacheMaxAge, proc.DefaultCacheMaxBytes, false)
	if err != nil || len(removed) != 1 || removed[0].Workspace != ws {
		// (agentls prunes once per process: this process may have
		// pruned it already after the command above.)
		if ls, _ := proc.CacheLayers(""); len(ls) != 1 || ls[0].Orphaned {
			t.Errorf("prune: %+v %v; left %+v", removed, err, ls)
		}
	}
}

// .git/config is shown with its credentials stripped, not masked whole.
func TestStripGitCredentials(t *testing.T) {
	in := "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = https://user:ghp_SECRET@github.com/o/r.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n" +
		"[remote \"t\"]\n\turl = https://ghp_SECRET2@github.com/o/r.git\n[remote \"s\"]\n\turl = ssh://git@host/r.git\n\tpushurl = git@github.com:o/r.git\n" +
		"[http \"https://github.com/\"]\n\textraheader = AUTHORIZATION: basic SECRET3\n[remote \"f\"]\n\turl = ftp://u:SECRET4@h/x\n"
	out := string(proc.StripGitCredentials([]byte(in)))
	if strings.Contains(out, "SECRET") {
		t.Errorf("credentials left:\n%s", out)
	}
	for _, keep := range []string{"url = https://github.com/o/r.git", "url = ssh://git@host/r.git", "pushurl = git@github.com:o/r.git",
		"fetch = +refs/heads/*:refs/remotes/origin/*", "bare = false", "url = ftp://h/x"} {
		if !strings.Contains(out, keep) {
			t.Errorf("lost %q:\n%s", keep, out)
		}
	}
}

// git's user configuration is declared with its credentials stripped: a
// commit knows who makes it, and a token in a URL rewrite does not leak.
func TestSandboxGitUserConfigIsStripped(t *testing.T) {
	needSandbox(t)
	home, ws := outsideDir(t), t.TempDir()
	write(t, filepath.Join(home, ".gitconfig"), "[user]\n\tname = Sandbox Tester\n\temail = t@example.com\n[url \"https://x:SECRET-gitconfig@example.com/\"]\n\tinsteadOf = https://example.com/\n", 0o644)
	write(t, filepath.Join(home, ".config/git/credentials"), "https://u:SECRET-cred@example.com\n", 0o600)
	write(t, filepath.Join(ws, "a.txt"), "a\n", 0o644)
	env := append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME=")
	cmd := "git init -q . && git add a.txt && git commit -qm a && git log --format=%an && cat " + filepath.Join(home, ".gitconfig") + " " + filepath.Join(home, ".config/git/credentials")
	r := run(t, proc.Spec{Shell: cmd, Env: env, Dir: ws, Sandbox: confined()})
	if !strings.Contains(r.Output, "Sandbox Tester") {
		t.Errorf("git in the sandbox does not know who commits: %+v", r)
	}
	if strings.Contains(r.Output, "SECRET") {
		t.Errorf("a credential of git's user configuration leaked: %s", r.Output)
	}
}

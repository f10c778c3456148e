package proc_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/proc"
	"golang.org/x/sys/unix"
)

// walkDirs bounds the boundary walk: breadth first from /, so the top of
// every tree (the home directory, the caches, /etc, /usr) comes first.
const walkDirs = 8000

// helperWalk runs inside the sandbox: it walks the file system from /
// and tries to create a file named marker in every directory, and reads
// every path of PROC_TEST_MASKED. It prints "W dir" for each directory
// it could write (and removes the file, except under PROC_TEST_KEEP) and
// "R path" for each masked path that read as anything.
func helperWalk(marker string) {
	keep := filepath.SplitList(os.Getenv("PROC_TEST_KEEP"))
	skip := map[string]bool{"/proc": true, "/sys": true, "/dev": true}
	for _, d := range filepath.SplitList(os.Getenv("PROC_TEST_SKIP")) {
		skip[d] = true
	}
	try := func(dir string) {
		p := filepath.Join(dir, marker)
		fd, err := unix.Open(p, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC, 0o600)
		if err != nil {
			return
		}
		unix.Close(fd)
		fmt.Println("W", dir)
		kept := false
		for _, k := range keep {
			if dir == k || strings.HasPrefix(dir, k+"/") {
				kept = true
			}
		}
		if !kept {
			os.Remove(p)
		}
	}
	queue := []string{"/"}
	if r := os.Getenv("PROC_TEST_WALK_ROOT"); r != "" {
		queue = []string{r}
	}
	for n := 0; len(queue) > 0 && n < walkDirs; n++ {
		dir := queue[0]
		queue = queue[1:]
		try(dir)
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			p := filepath.Join(dir, e.Name())
			if e.IsDir() && !skip[p] {
				queue = append(queue, p)
			}
		}
	}
	// The skipped trees' tops are tried too (not walked: the temporary
	// directory is shared with every other process on the machine).
	for d := range skip {
		if d != "/proc" && d != "/sys" && d != "/dev" {
			try(d)
		}
	}
	try("/dev/shm")
	for _, p := range filepath.SplitList(os.Getenv("PROC_TEST_MASKED")) {
		if b, err := os.ReadFile(p); err == nil && len(b) > 0 {
			fmt.Println("R", p)
		}
		if entries, err := os.ReadDir(p); err == nil && len(entries) > 0 {
			fmt.Println("R", p)
		}
	}
	os.Exit(0)
}

// The boundary walk: from inside the sandbox, every directory it can
// create a file in must lie within the declared boundary (the workspace
// less its protected names, the temporary directory, the caches, whose
// writes stay in agentls's layer, /dev/shm), and nothing of the masked
// list may read as anything.
func TestSandboxBoundaryWalk(t *testing.T) {
	needSandbox(t)
	home, ws, gomod := outsideDir(t), outsideDir(t), outsideDir(t)
	for _, rel := range []string{".ssh/id_ed25519", ".aws/credentials", ".netrc", ".kube/config", ".bash_history", ".local/state/agentls/s"} {
		write(t, filepath.Join(home, rel), "SECRET\n", 0o600)
	}
	write(t, filepath.Join(ws, "go.mod"), "module example.com/w\n", 0o644)
	for _, rel := range []string{".env", ".git/config", ".git/hooks/x", ".husky/pre-commit", "src/a.go", "sub/.vscode/settings.json"} {
		write(t, filepath.Join(ws, rel), "SECRET\n", 0o644)
	}
	write(t, filepath.Join(gomod, "example.com/lib@v1.0.0/lib.go"), "package lib\n", 0o444)
	marker := fmt.Sprintf("agentls-walk-%d", os.Getpid())
	masked := []string{filepath.Join(home, ".ssh"), filepath.Join(home, ".ssh/id_ed25519"), filepath.Join(home, ".aws/credentials"),
		filepath.Join(home, ".netrc"), filepath.Join(home, ".kube"), filepath.Join(home, ".bash_history"),
		filepath.Join(home, ".local/state/agentls"), filepath.Join(ws, ".env")}
	tmp := os.TempDir()
	env := append(os.Environ(), "HOME="+home, "GOMODCACHE="+gomod, "PROC_TEST_WALK="+marker,
		"PROC_TEST_MASKED="+strings.Join(masked, ":"), "PROC_TEST_KEEP="+gomod, "PROC_TEST_SKIP="+tmp)
	// Unconfined, the walk writes outside and reads the secrets: it sees.
	// (Only the fake home is walked: unconfined, the walk would create a
	// file in every directory of the machine.)
	r := run(t, proc.Spec{Argv: []string{os.Args[0]}, Env: append(env, "PROC_TEST_WALK_ROOT="+home), Dir: ws, Sandbox: off})
	if !strings.Contains(r.Output, "W "+home) || !strings.Contains(r.Output, "R "+filepath.Join(home, ".ssh")) {
		t.Fatalf("the unconfined walk found nothing, it proves nothing:\n%s", r.Output)
	}
	os.Remove(filepath.Join(gomod, marker))
	sb := confined()
	sb.CacheLayer = t.TempDir()
	settleWarm(t)
	r = run(t, proc.Spec{Argv: []string{os.Args[0]}, Env: env, Dir: ws, Sandbox: self(sb)})
	if r.ExitCode != 0 {
		t.Fatalf("the walk failed: %+v", r)
	}
	// The home directory is the command's own (a tmpfs): what it writes
	// there dies with it.
	declared := []string{ws, tmp, gomod, "/dev/shm", home}
	for _, c := range caches(t) {
		declared = append(declared, c)
	}
	var writable []string
	for _, line := range strings.Split(strings.TrimSpace(r.Output), "\n") {
		kind, p, _ := strings.Cut(line, " ")
		switch kind {
		case "R":
			t.Errorf("masked path readable in the sandbox: %s", p)
		case "W":
			writable = append(writable, p)
			inside := false
			for _, d := range declared {
				if p == d || strings.HasPrefix(p, d+"/") {
					inside = true
				}
			}
			rel, err := filepath.Rel(ws, p)
			if err == nil && filepath.IsLocal(rel) {
				for _, part := range strings.Split(rel, "/") {
					if part == ".git" || part == ".husky" || part == ".vscode" {
						inside = false
					}
				}
			}
			if !inside {
				t.Errorf("writable outside the declared boundary: %s", p)
			}
		}
	}
	// The cache took the walk's file in its layer, not on disk.
	if slices.Contains(writable, gomod) {
		if _, err := os.Lstat(filepath.Join(gomod, marker)); err == nil {
			t.Errorf("the walk's file reached the real cache %s", gomod)
		}
	}
	t.Logf("writable: %v", writable)
}

// caches are the cache directories of this environment, which the
// sandbox layers.
func caches(t *testing.T) []string {
	var out []string
	for _, v := range []string{"GOCACHE", "XDG_CACHE_HOME", "npm_config_cache"} {
		if d := os.Getenv(v); d != "" {
			out = append(out, d)
		}
	}
	if h, err := os.UserHomeDir(); err == nil {
		out = append(out, filepath.Join(h, ".cache"), filepath.Join(h, ".npm"), filepath.Join(h, "go", "pkg", "mod"),
			filepath.Join(h, ".cargo", "registry"), filepath.Join(h, ".cargo", "git"))
	}
	return out
}

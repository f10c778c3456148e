package proc_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/proc"
)

// The false positives that cost the agent its task: each row is normal
// work that must behave in the sandbox as outside it, on the disk
// (headless), in the LSP command view (an overlay over the workspace) and
// in the caches' copy-on-write layers. Before, in the view and the layers,
// deleting a directory that exists on disk failed half-way with EIO (no
// whiteouts in a user namespace), and `git remote -v` printed nothing
// (.git/config was masked whole).
func TestSandboxNormalWorkKeepsWorking(t *testing.T) {
	needSandbox(t)
	tool := func(t *testing.T, names ...string) {
		t.Helper()
		for _, n := range names {
			if _, err := exec.LookPath(n); err != nil {
				t.Fatalf("%s is not installed (.ci/install installs it): %v", n, err)
			}
		}
	}
	gomod := filepath.Join(outsideDir(t), "mod")
	resetCache := func() {
		os.RemoveAll(filepath.Join(gomod, "example.com", "ren2"))
		write(t, filepath.Join(gomod, "example.com", "old@v1.0.0", "sub", "a.go"), "package old\n", 0o644)
		write(t, filepath.Join(gomod, "example.com", "ren@v1.0.0", "sub", "a.go"), "package ren\n", 0o644)
	}
	env := append(os.Environ(), "GOMODCACHE="+gomod, "GOFLAGS=-mod=mod", "GOPROXY=off", "GOTOOLCHAIN=local",
		"npm_config_audit=false", "npm_config_fund=false", "npm_config_update_notifier=false")
	goMod := map[string]string{"go.mod": "module example.com/w\n\ngo 1.22\n"}
	rows := []struct {
		name  string
		tools []string
		files map[string]string
		// prep runs unconfined in the workspace first (a lock file).
		prep string
		cmd  string
		want string // in the output
	}{
		{name: "rm -rf dir", files: map[string]string{"build/sub/a.o": "x", "build/b.o": "y"},
			cmd: "rm -rf build && test ! -e build && echo gone", want: "gone"},
		{name: "mv dir dir2", files: map[string]string{"dir/sub/a": "x"},
			cmd: "mv dir dir2 && cat dir2/sub/a && test ! -e dir && echo moved", want: "xmoved"},
		{name: "python shutil.rmtree", tools: []string{"python3"}, files: map[string]string{"dist/pkg/a.py": "x"},
			cmd: `python3 -c 'import shutil, os; shutil.rmtree("dist"); print("removed", os.path.exists("dist"))'`, want: "removed False"},
		{name: "git status", tools: []string{"git"}, files: map[string]string{"a.txt": "a\n"},
			prep: "git init -q . && git add a.txt && git -c user.name=t -c user.email=t@t commit -qm a && echo b >> a.txt",
			cmd:  "git status --short", want: " M a.txt"},
		{name: "git remote -v", tools: []string{"git"}, files: map[string]string{"a.txt": "a\n"},
			prep: "git init -q . && git remote add origin https://example.com/r.git",
			cmd:  "git remote -v", want: "origin\thttps://example.com/r.git (fetch)"},
		{name: "go test ./...", tools: []string{"go"}, files: map[string]string{"go.mod": goMod["go.mod"],
			"w.go":      "package w\n\nfunc Add(a, b int) int { return a + b }\n",
			"w_test.go": "package w\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal()\n\t}\n}\n"},
			cmd: "go test ./...", want: "ok"},
		{name: "make clean", tools: []string{"make"}, files: map[string]string{"Makefile": "clean:\n\trm -rf build out.bin\n\t@echo cleaned\n",
			"build/x/y.o": "o", "out.bin": "b"},
			cmd: "make --no-print-directory clean && test ! -e build && test ! -e out.bin && echo ok", want: "cleaned\nok"},
		// Debian's python3 (.ci/install: python3-venv, python3-pip,
		// python3-wheel): the venv builds offline from its packages.
		{name: "pip install -e . into a workspace venv", tools: []string{"/usr/bin/python3"},
			files: map[string]string{"pyproject.toml": "[project]\nname = \"wpkg\"\nversion = \"0.1\"\n\n[build-system]\nrequires = [\"setuptools\"]\nbuild-backend = \"setuptools.build_meta\"\n",
				"wpkg/__init__.py": "X = 42\n"},
			cmd:  "/usr/bin/python3 -m venv --without-pip --system-site-packages .venv && .venv/bin/python -m pip install -q --no-index --no-build-isolation -e . && .venv/bin/python -c 'import wpkg; print(wpkg.X)'",
			want: "42"},
		{name: "npm ci with a local package", tools: []string{"npm", "node"},
			files: map[string]string{"package.json": `{"name":"w","version":"1.0.0","dependencies":{"dep":"file:./dep"}}`,
				"dep/package.json": `{"name":"dep","version":"1.0.0","main":"index.js"}`, "dep/index.js": "module.exports = 7\n"},
			prep: "npm install --offline -s && rm -rf node_modules && mkdir -p node_modules/stale/x",
			cmd:  "npm ci --offline -s && node -e 'console.log(require(\"dep\"))'", want: "7"},
		{name: "cargo build (offline, no dependencies)", tools: []string{"cargo"},
			files: map[string]string{"Cargo.toml": "[package]\nname = \"w\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n",
				"src/main.rs": "fn main() { println!(\"hi\"); }\n"},
			cmd: "cargo build --offline -q && ./target/debug/w", want: "hi"},
		{name: "rm -rf a directory of a cache", files: goMod,
			cmd: "rm -rf " + filepath.Join(gomod, "example.com", "old@v1.0.0") + " && test ! -e " + filepath.Join(gomod, "example.com", "old@v1.0.0") + " && echo gone", want: "gone"},
		{name: "mv a directory of a cache", files: goMod,
			cmd: "mv " + filepath.Join(gomod, "example.com", "ren@v1.0.0") + " " + filepath.Join(gomod, "example.com", "ren2") + " && cat " + filepath.Join(gomod, "example.com", "ren2", "sub", "a.go"), want: "package ren"},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			tool(t, row.tools...)
			for _, how := range []string{"outside", "sandboxed", "view"} {
				resetCache()
				ws := t.TempDir()
				for rel, body := range row.files {
					write(t, filepath.Join(ws, rel), body, 0o644)
				}
				if row.prep != "" {
					if r := run(t, proc.Spec{Shell: row.prep, Env: env, Dir: ws, Sandbox: off}); r.ExitCode != 0 {
						t.Fatalf("prep: %+v", r)
					}
				}
				sb := off
				switch how {
				case "sandboxed":
					sb = confined()
					sb.CacheLayer = t.TempDir()
					settleWarm(t)
				case "view":
					sb = confined()
					sb.CacheLayer = t.TempDir()
					settleWarm(t)
					sb.View = map[string][]byte{}
				}
				r := run(t, proc.Spec{Shell: row.cmd, Env: env, Dir: ws, Sandbox: sb})
				if r.ExitCode != 0 || !strings.Contains(r.Output, row.want) {
					t.Errorf("%s: exit %d, want %q in:\n%s", how, r.ExitCode, row.want, r.Output)
				}
			}
			for _, m := range []string{"old@v1.0.0", "ren@v1.0.0"} {
				if _, err := os.Stat(filepath.Join(gomod, "example.com", m, "sub", "a.go")); err != nil {
					t.Errorf("a sandboxed command changed the real cache: %v", err)
				}
			}
		})
	}
}

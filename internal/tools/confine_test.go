package tools

import (
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/policy"
)

// confineTree builds a workspace next to an "outside" directory, with
// symlinks that stay inside, leave, loop and dangle.
func confineTree(t testing.TB) (root, outsideDir string) {
	t.Helper()
	base := t.TempDir()
	root = filepath.Join(base, "ws")
	outsideDir = filepath.Join(base, "outside")
	for _, d := range []string{root, outsideDir, filepath.Join(root, "a", "b"), filepath.Join(root, ".git"), filepath.Join(outsideDir, "d")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		"ws/a/b/c.txt":   "c",
		"ws/top.txt":     "top",
		"ws/.env":        "SECRET=1",
		"ws/.git/config": "[core]",
		"outside/x.txt":  "x",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(base, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"ws/in":          "a",
		"ws/in_file":     "a/b/c.txt",
		"ws/out":         "../outside",
		"ws/out_abs":     outsideDir,
		"ws/out_file":    "../outside/x.txt",
		"ws/loop1":       "loop2",
		"ws/loop2":       "loop1",
		"ws/self":        "self",
		"ws/chain1":      "chain2",
		"ws/chain2":      "a/b/../../out",
		"ws/a/up":        "../..",
		"ws/a/b/upup":    "../../in/b/../../..",
		"ws/a/b/uproot":  "../../in/b/../..",
		"ws/dangle_out":  "../outside/new.txt",
		"ws/dangle_in":   "a/new.txt",
		"ws/dangle_dir":  "../outside/newdir/f",
		"ws/env_link":    ".env",
		"ws/git_link":    ".git",
		"ws/a/back_in":   "../a/b",
		"ws/abs_root_in": root + "/a",
		"ws/rootlink":    "/",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(base, name)); err != nil {
			t.Fatal(err)
		}
	}
	return root, outsideDir
}

func TestResolveTable(t *testing.T) {
	root, outsideDir := confineTree(t)
	pol := Policy{Root: root}
	tests := []struct {
		path    string
		rel     string // expected rel when accepted
		err     error  // expected error class when refused
		write   bool
		errText string
	}{
		{path: "top.txt", rel: "top.txt"},
		{path: "./a/b/../b/c.txt", rel: "a/b/c.txt"},
		{path: "", rel: "."},
		{path: ".", rel: "."},
		{path: "a/", rel: "a"},
		{path: root + "/top.txt", rel: "top.txt"},
		{path: root, rel: "."},
		{path: "in/b/c.txt", rel: "a/b/c.txt"},
		{path: "in_file", rel: "a/b/c.txt"},
		{path: "a/back_in/c.txt", rel: "a/b/c.txt"},
		{path: "abs_root_in/b", rel: "a/b"},
		{path: "new/dir/file.go", rel: "new/dir/file.go"},
		{path: "dangle_in", rel: "a/new.txt"},
		{path: "a/b/../../top.txt", rel: "top.txt"},
		{path: "../x", err: ErrOutside, errText: "path ../x is outside the workspace"},
		{path: "a/../../x", err: ErrOutside},
		{path: "/etc/passwd", err: ErrOutside},
		{path: outsideDir + "/x.txt", err: ErrOutside},
		{path: "~/x", err: ErrOutside},
		{path: "~root/.ssh/id_rsa", err: ErrOutside},
		{path: "~", err: ErrOutside},
		{path: "a\x00b", err: ErrBadPath},
		{path: "out/x.txt", err: ErrOutside},
		{path: "out", err: ErrOutside},
		{path: "out_abs/x.txt", err: ErrOutside},
		{path: "out_file", err: ErrOutside},
		{path: "chain1/x.txt", err: ErrOutside},
		{path: "a/up/outside/x.txt", err: ErrOutside},
		{path: "a/up", err: ErrOutside},
		{path: "a/b/upup", err: ErrOutside},
		{path: "a/b/uproot/top.txt", rel: "top.txt"},
		{path: "dangle_out", err: ErrOutside},
		{path: "dangle_dir", err: ErrOutside},
		{path: "rootlink/etc/passwd", err: ErrOutside},
		{path: "loop1", err: ErrBadPath},
		{path: "self/x", err: ErrBadPath},
		{path: "top.txt/x", err: ErrBadPath},
		{path: ".env", err: ErrSecret},
		{path: "env_link", err: ErrSecret},
		{path: "keys/server.pem", err: ErrSecret},
		{path: "home/id_ed25519", err: ErrSecret},
		// .git/config can hold credentials in remote URLs: a secret file.
		{path: ".git/config", err: ErrSecret},
		{path: ".git/HEAD", rel: ".git/HEAD"},
		// A case-insensitive file system (macOS, Windows) opens .env for
		// .ENV and .git/config for .GIT/Config: names are compared without case.
		{path: ".ENV", err: ErrSecret},
		{path: "keys/SERVER.PEM", err: ErrSecret},
		{path: "sub/.GIT/Config", err: ErrSecret},
		{path: ".Env.Local", err: ErrSecret},
		{path: ".git/config", write: true, err: ErrReadOnly},
		{path: "git_link/config", write: true, err: ErrReadOnly},
		{path: "sub/.GIT/hooks/pre-commit", write: true, err: ErrReadOnly},
		{path: ".", write: true, err: ErrBadPath},
		{path: "．．／x", rel: "．．／x"}, // fullwidth dots and slash are ordinary name characters
	}
	for _, tt := range tests {
		resolveFn := pol.ResolveRead
		if tt.write {
			resolveFn = pol.ResolveWrite
		}
		abs, rel, err := resolveFn(tt.path)
		if tt.err != nil {
			if !errors.Is(err, tt.err) {
				t.Errorf("%q (write=%v): err = %v, want %v", tt.path, tt.write, err, tt.err)
			}
			if tt.errText != "" && (err == nil || err.Error() != tt.errText) {
				t.Errorf("%q: err text = %v, want %q", tt.path, err, tt.errText)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q (write=%v): unexpected error %v", tt.path, tt.write, err)
			continue
		}
		if rel != tt.rel {
			t.Errorf("%q: rel = %q, want %q", tt.path, rel, tt.rel)
		}
		if want := filepath.Join(root, filepath.FromSlash(tt.rel)); abs != want {
			t.Errorf("%q: abs = %q, want %q", tt.path, abs, want)
		}
	}
}

// TestResolveRootSymlink checks a workspace opened through a symlink, as on
// macOS where /tmp is /private/tmp: absolute paths under either name work,
// and abs keeps the name the workspace was opened with.
func TestResolveRootSymlink(t *testing.T) {
	root, _ := confineTree(t)
	alias := filepath.Join(t.TempDir(), "alias")
	if err := os.Symlink(root, alias); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"top.txt", alias + "/top.txt", root + "/top.txt"} {
		abs, rel, err := Resolve(alias, p)
		if err != nil || rel != "top.txt" || abs != alias+"/top.txt" {
			t.Errorf("Resolve(alias, %q) = %q, %q, %v", p, abs, rel, err)
		}
	}
}

// TestResolveNoEscape is the property test: random paths built from
// traversal pieces, symlinks, absolute prefixes and look-alike characters.
// Every accepted path is checked with the kernel, not with Resolve's own
// logic: an existing path's EvalSymlinks must be inside the root, and a new
// one is created for real, after which nothing outside may have changed.
func TestResolveNoEscape(t *testing.T) {
	root, outsideDir := confineTree(t)
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, filepath.Dir(outsideDir), root)

	pieces := []string{
		"..", ".", "", "a", "b", "c.txt", "in", "out", "out_abs", "out_file", "loop1", "self",
		"chain1", "chain2", "up", "upup", "back_in", "dangle_out", "dangle_in", "dangle_dir",
		"abs_root_in", "rootlink", "outside", "x.txt", "new", "etc", "~", "~root",
		"．．", "／", "..／", "\u2024\u2024", "..\u200b", "%2e%2e", "..\\..", " ..", ".. ",
		"\u202e", "a/", "...",
	}
	seed := uint64(os.Getpid())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 7))
	accepted := 0
	for i := range 3000 {
		var sb strings.Builder
		switch rng.IntN(6) {
		case 0:
			sb.WriteString(root + "/")
		case 1:
			sb.WriteString("/")
		case 2:
			sb.WriteString(outsideDir + "/")
		}
		n := 1 + rng.IntN(6)
		for j := range n {
			if j > 0 {
				sb.WriteString("/")
			}
			sb.WriteString(pieces[rng.IntN(len(pieces))])
		}
		if rng.IntN(5) == 0 {
			sb.WriteString("/")
		}
		p := sb.String()
		abs, _, err := Resolve(root, p)
		if err != nil {
			continue
		}
		accepted++
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			if _, ok := within(realRoot, real); !ok {
				t.Fatalf("case %d: %q accepted as %s, really %s", i, p, abs, real)
			}
			continue
		} else if !errors.Is(err, fs.ErrNotExist) {
			continue
		}
		// Create it as a writer would: the parent chain, then the file.
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			continue
		}
		f, err := os.OpenFile(abs, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err != nil {
			continue
		}
		f.Close()
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			t.Fatalf("case %d: %q created at %s but does not resolve: %v", i, p, abs, err)
		}
		if _, ok := within(realRoot, real); !ok {
			t.Fatalf("case %d: %q created outside the root at %s", i, p, real)
		}
	}
	if after := snapshot(t, filepath.Dir(outsideDir), root); after != before {
		t.Fatalf("the tree outside the workspace changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if accepted < 300 {
		t.Fatalf("only %d of 3000 random paths were accepted; the generator no longer exercises acceptance", accepted)
	}
}

// snapshot lists every path under dir except the workspace itself.
func snapshot(t *testing.T, dir, skip string) string {
	t.Helper()
	var sb strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == skip {
			return filepath.SkipDir
		}
		sb.WriteString(p + "\n")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return sb.String()
}

func FuzzResolve(f *testing.F) {
	for _, s := range []string{"../x", "a/../../x", "out/x.txt", "in/b", "a/up/outside", "．．／", "~/x", "/etc"} {
		f.Add(s)
	}
	root, _ := confineTree(f)
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, p string) {
		abs, _, err := Resolve(root, p)
		if err != nil {
			return
		}
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			if _, ok := within(realRoot, real); !ok {
				t.Fatalf("%q accepted as %s, really %s", p, abs, real)
			}
		}
	})
}

func TestIsSecret(t *testing.T) {
	pol := Policy{Root: "/", SecretFiles: []string{".env", "*.pem", "id_*", "config/secrets/*"}}
	for rel, want := range map[string]bool{
		".env": true, "sub/.env": true, "a/b/cert.pem": true, "id_rsa": true, "home/id_ed25519.pub": true,
		"config/secrets/db.yaml": true, "other/secrets/db.yaml": false,
		"env": false, ".envrc": false, "main.go": false, "pem": false,
	} {
		if got := pol.IsSecret(rel); got != want {
			t.Errorf("IsSecret(%q) = %v, want %v", rel, got, want)
		}
	}
	// The tools' matcher is policy's: they agree on every default pattern.
	for _, rel := range []string{".env", ".ENV", "a/.env.prod", "x.PEM", "ID_rsa", ".git/config", "a/.Git/CONFIG", "git/config", ".docker/config.json", "a/b.p12", "main.go", ".envrc"} {
		if got, want := (Policy{}).IsSecret(rel), isSecret(rel, policy.DefaultSecretFiles()); got != want {
			t.Errorf("IsSecret(%q) = %v, policy's matcher %v", rel, got, want)
		}
	}
	if (Policy{SecretFiles: []string{}}).IsSecret(".env") {
		t.Error("an empty non-nil SecretFiles must disable the defaults")
	}
	if !(Policy{}).IsSecret("prod.key") {
		t.Error("nil SecretFiles must use the defaults")
	}
}

// isSecret reports whether the '/'-separated relative path rel (unclean or
// with '\\') matches one of patterns, as a walk asks Secrets.Match.
func isSecret(rel string, patterns []string) bool {
	rel = path.Clean("/" + strings.ReplaceAll(rel, `\`, "/"))[1:]
	return policy.CompileSecrets(patterns).Match(rel, path.Base(rel))
}

// Resolve is resolve without the lexical path: the confinement tests'
// view of it.
func Resolve(root, p string) (abs, rel string, err error) {
	abs, rel, _, err = resolve(root, p)
	return abs, rel, err
}

package verify

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/proc"
	"github.com/agentls/agentls/internal/testkit/need"
)

// A check's environment is filtered like run_command's: a variable holding
// the key under a name of its own (LLM_KEY, OPENAI_KEY) never reaches it.
func TestChecksEnvironmentHoldsNoKey(t *testing.T) {
	const key = "sk-verify-test-key-0123456789"
	t.Setenv("AGENTLS_API_KEY", key)
	t.Setenv("LLM_KEY", key)
	t.Setenv("OPENAI_KEY", "Bearer "+key)
	modes := []proc.Sandbox{{Mode: proc.ModeOff}}
	if ok, _ := proc.Available(); ok {
		modes = append(modes, proc.Sandbox{})
	}
	for _, sb := range modes {
		rs, err := Run(context.Background(), RunOptions{Root: t.TempDir(), Commands: []string{"env; exit 1"},
			Env: []string{"MY_LLM_SECRET_HOLDER=x" + "-" + "sk-other-key-99999"}, Secrets: []string{"sk-other-key-99999"}, Sandbox: sb})
		if err != nil || len(rs) != 1 {
			t.Fatalf("%+v %v", rs, err)
		}
		if !strings.Contains(rs[0].Output, "PWD=") {
			t.Fatalf("mode %q: the check printed no environment: %s", sb.Mode, rs[0].Output)
		}
		for _, s := range []string{key, "sk-other-key-99999", "LLM_KEY", "OPENAI_KEY"} {
			if strings.Contains(rs[0].Output, s) {
				t.Errorf("mode %q: the check's environment holds %s:\n%s", sb.Mode, s, rs[0].Output)
			}
		}
	}
}

// A check (the model's test, run by the gate with no question) that
// rewrites a module in the module cache leaves the user's cache as it was.
func TestChecksCannotRewriteTheModuleCache(t *testing.T) {
	if ok, why := proc.Available(); !ok {
		need.Missing(t, "sandbox unavailable here: %s", why)
	}
	out, err := os.MkdirTemp("/var/tmp", "verify-gomod-")
	if err != nil || strings.HasPrefix(out, os.TempDir()) {
		t.Skipf("no directory outside the temp dir: %v", err)
	}
	defer func() {
		filepath.Walk(out, func(p string, _ os.FileInfo, _ error) error { os.Chmod(p, 0o755); return nil })
		os.RemoveAll(out)
	}()
	lib := filepath.Join(out, "example.com", "lib@v1.0.0", "lib.go")
	const orig = "package lib\n"
	writeFile(t, filepath.Dir(lib), "lib.go", orig)
	os.Chmod(lib, 0o444)
	os.Chmod(filepath.Dir(lib), 0o555)
	root := t.TempDir()
	writeFile(t, root, "go.mod", "module example.com/w\n\ngo 1.22\n")
	writeFile(t, root, "w_test.go", `package w

import (
	"os"
	"path/filepath"
	"testing"
)

func TestPlant(t *testing.T) {
	p := filepath.Join(os.Getenv("GOMODCACHE"), "example.com", "lib@v1.0.0", "lib.go")
	os.Chmod(filepath.Dir(p), 0o755)
	os.Chmod(p, 0o644)
	if err := os.WriteFile(p, []byte("package lib // pwned\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}
`)
	rs, err := Run(context.Background(), RunOptions{Root: root, Commands: []string{"go test -count=1 ./..."},
		Env:     []string{"GOMODCACHE=" + out, "GOFLAGS=-mod=mod", "GOPROXY=off", "GOTOOLCHAIN=local"},
		Sandbox: proc.Sandbox{CacheLayer: t.TempDir()}})
	if err != nil || len(rs) != 1 {
		t.Fatalf("%+v %v", rs, err)
	}
	if b, _ := os.ReadFile(lib); string(b) != orig {
		t.Errorf("the check rewrote the user's module cache: %q\n%s", b, rs[0].Output)
	}
	if !rs[0].Passed {
		t.Errorf("the cache was not writable through its layer: %s", rs[0].Output)
	}
}

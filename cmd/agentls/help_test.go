package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

// --help, -h and help list the subcommands, one line each; --version
// prints the version (issue 13, item 12). They used to print "Usage of
// serve:" and exit 2.
func TestHelpAndVersion(t *testing.T) {
	e := newEnv(t, nil)
	for _, arg := range []string{"--help", "-h", "help", "-help"} {
		r := e.run(arg)
		if r.code != 0 {
			t.Errorf("%s: exit %d: %s", arg, r.code, r.stderr)
		}
		for _, w := range []string{"\n  serve ", "\n  run ", "\n  acp ", "\n  sessions ", "\n  trust ", "\n  doctor ", "\n  version ", "\n  help "} {
			if !strings.Contains(r.stdout, w) {
				t.Errorf("%s: no line for %q:\n%s", arg, strings.TrimSpace(w), r.stdout)
			}
		}
		if strings.Contains(r.stdout+r.stderr, "Usage of serve") {
			t.Errorf("%s: serve's flag usage:\n%s%s", arg, r.stdout, r.stderr)
		}
	}
	for _, arg := range []string{"--version", "-version", "version"} {
		if r := e.run(arg); r.code != 0 || !strings.HasPrefix(r.stdout, "agentls ") {
			t.Errorf("%s: exit %d: %q %q", arg, r.code, r.stdout, r.stderr)
		}
	}
	// Flags of a command still reach it.
	if r := e.run("serve", "-h"); r.code != 0 || !strings.Contains(r.stderr, "-log-file") {
		t.Errorf("serve -h: exit %d: %s", r.code, r.stderr)
	}
}

// Started by an editor, with pipes, plain agentls serves LSP: no help on
// the protocol stream.
func TestNoArgumentsOnAPipeServes(t *testing.T) {
	e := newEnv(t, nil)
	cmd := e.command()
	cmd.Stdin = strings.NewReader("")
	var out bytes.Buffer
	cmd.Stdout = &out
	_ = cmd.Run() // the stream ends without shutdown: any status
	if out.Len() != 0 {
		t.Errorf("wrote to the protocol stream: %q", out.String())
	}
}

// A "go install …@v1.2.3" build reports the module's version, not "dev"
// (issue 13, item 16).
func TestModuleVersion(t *testing.T) {
	installed := &debug.BuildInfo{Main: debug.Module{Path: "github.com/agentls/agentls", Version: "v1.2.3"}}
	local := &debug.BuildInfo{Main: debug.Module{Path: "github.com/agentls/agentls", Version: "(devel)"}}
	for _, c := range []struct {
		linked string
		bi     *debug.BuildInfo
		want   string
	}{
		{"dev", installed, "v1.2.3"},
		{"dev", local, "dev"},
		{"dev", nil, "dev"},
		{"v2.0.0", installed, "v2.0.0"},
	} {
		if got := moduleVersion(c.linked, c.bi); got != c.want {
			t.Errorf("moduleVersion(%q, %v) = %q, want %q", c.linked, c.bi, got, c.want)
		}
	}
}

// agentls trust records the workspace file's content as trusted, so a
// later run applies its widening settings without asking; without a
// terminal it needs --yes, and a changed file is untrusted again.
func TestTrustCommand(t *testing.T) {
	e := newEnv(t, map[string]string{".agentls.json": `{"verify": {"commands": ["grep -q goodbye hello.txt"]}}`})
	if r := e.run("trust"); r.code != 1 || !strings.Contains(r.stderr, "verify.commands") || !strings.Contains(r.stderr, "--yes") {
		t.Fatalf("trust on a pipe: exit %d, stderr %q; want 1, naming the key and --yes", r.code, r.stderr)
	}
	if r := e.run("trust", "--yes"); r.code != 0 || !strings.Contains(r.stdout, "trusted") {
		t.Fatalf("trust --yes: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// The trusted verify.commands applies: the check runs and passes.
	r := e.run("run", "--base-url", fakeModel(t, "read-edit.json").URL(), "replace hello with goodbye")
	if r.code != 0 || !strings.Contains(r.stderr, "grep -q goodbye hello.txt") {
		t.Fatalf("run after trust: exit %d\n%s", r.code, r.stderr)
	}
	if r := e.run("trust"); r.code != 0 || !strings.Contains(r.stdout, "trusted as it is") {
		t.Errorf("trust again: exit %d %q", r.code, r.stdout)
	}
	if err := os.WriteFile(filepath.Join(e.ws, ".agentls.json"), []byte(`{"verify": {"commands": ["true"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := e.run("trust"); r.code != 1 {
		t.Errorf("a changed file is still trusted: exit %d %q", r.code, r.stdout)
	}
}

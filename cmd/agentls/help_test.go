package main

import (
	"bytes"
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
		for _, w := range []string{"\n  serve ", "\n  run ", "\n  sessions ", "\n  version ", "\n  help "} {
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

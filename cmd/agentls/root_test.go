package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Run from a subdirectory, agentls works on the project around it: the
// nearest directory up with .git, go.mod, package.json, Cargo.toml or
// pyproject.toml (issue 13, item 15); --workspace overrides.
func TestWorkspaceIsTheProjectAroundTheCurrentDirectory(t *testing.T) {
	write := `{"turns": [
		{"toolCalls": [{"id": "w", "name": "write_file", "arguments": "{\"path\":\"new.txt\",\"content\":\"new\\n\"}"}]},
		{"text": "Done."}]}`
	for _, marker := range []string{".git", "go.mod", "package.json", "Cargo.toml", "pyproject.toml"} {
		t.Run(marker, func(t *testing.T) {
			e := newEnv(t, nil)
			if marker == ".git" {
				must(t, os.Mkdir(filepath.Join(e.ws, ".git"), 0o755))
			} else {
				must(t, os.WriteFile(filepath.Join(e.ws, marker), nil, 0o644))
			}
			sub := filepath.Join(e.ws, "pkg", "deep")
			must(t, os.MkdirAll(sub, 0o755))
			cmd := e.command("run", "--no-verify", "--base-url", fakeModel(t, write).URL(), "add new.txt")
			cmd.Dir = sub
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if !strings.Contains(string(out), "agentls · "+e.ws+" · ") {
				t.Errorf("workspace not the project root:\n%s", out)
			}
			if _, err := os.Stat(filepath.Join(e.ws, "new.txt")); err != nil {
				t.Errorf("new.txt not at the project root: %v", err)
			}
			// sessions from the subdirectory sees the same workspace.
			cmd = e.command("sessions")
			cmd.Dir = sub
			if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "add new.txt") {
				t.Errorf("sessions from the subdirectory: %v\n%s", err, out)
			}
		})
	}
	t.Run("--workspace overrides", func(t *testing.T) {
		e := newEnv(t, map[string]string{"go.mod": "module x\n"})
		sub := filepath.Join(e.ws, "sub")
		must(t, os.Mkdir(sub, 0o755))
		cmd := e.command("run", "--no-verify", "--workspace", sub, "--base-url", fakeModel(t, write).URL(), "add new.txt")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if _, err := os.Stat(filepath.Join(sub, "new.txt")); err != nil {
			t.Errorf("new.txt not in --workspace: %v", err)
		}
	})
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

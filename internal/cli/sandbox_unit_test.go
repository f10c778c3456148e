package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// agentls sandbox show prints the declaration for a workspace, as text and
// as JSON; the workspace's allowRead applies only once trusted.
func TestSandboxShowPrintsTheDeclaration(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	home := t.TempDir()
	t.Setenv("HOME", home)
	os.MkdirAll(filepath.Join(home, "go", "pkg", "mod"), 0o755)
	ws := t.TempDir()
	extra := t.TempDir()
	os.WriteFile(filepath.Join(ws, "go.mod"), []byte("module example.com/w\n"), 0o644)
	os.WriteFile(filepath.Join(ws, ".agentls.json"), []byte(`{"sandbox":{"allowRead":["`+extra+`"]}}`), 0o644)
	var out, errb bytes.Buffer
	if code := Sandbox([]string{"show", "--workspace", ws, "--json"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var d struct {
		Workspace string   `json:"workspace"`
		Languages []string `json:"languages"`
		Entries   []struct {
			Path, Access, Why string
		} `json:"entries"`
	}
	if err := json.Unmarshal(out.Bytes(), &d); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	got := map[string]string{}
	for _, e := range d.Entries {
		got[e.Path] = e.Access
	}
	realWS, _ := filepath.EvalSymlinks(ws)
	realHome, _ := filepath.EvalSymlinks(home)
	if got[realWS] != "read-write" || got["/usr"] != "read-only" || got["/tmp"] != "private" ||
		got[filepath.Join(realHome, "go", "pkg", "mod")] != "copy-on-write" || len(d.Languages) != 1 || d.Languages[0] != "go" {
		t.Errorf("declaration: %+v", d)
	}
	realExtra, _ := filepath.EvalSymlinks(extra)
	if _, ok := got[realExtra]; ok {
		t.Errorf("an untrusted .agentls.json's sandbox.allowRead was applied: %+v", d.Entries)
	}
	out.Reset()
	if code := Sandbox([]string{"--workspace", ws}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"copy-on-write  go module cache", "read-write     workspace", "Not applied until you trust", "sandbox.allowRead"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, out.String())
		}
	}
}

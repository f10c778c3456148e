package e2e

import (
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agentls/agentls/internal/testkit/codexpatch"
	"github.com/agentls/agentls/internal/testkit/lspclient"
)

// codexScript is a model that reads every file of the case, then sends
// its patch (read before edit, as agent.readBeforeEdit wants).
func codexScript(t *testing.T, c codexpatch.Case) string {
	var reads []call
	for _, rel := range slices.Sorted(maps.Keys(c.Before)) {
		reads = append(reads, call{"read_file", map[string]any{"path": rel}})
	}
	patch := []call{{"apply_patch", map[string]any{"input": c.Patch}}}
	if len(reads) == 0 {
		return callsScript(t, patch)
	}
	return callsScript(t, reads, patch)
}

// wantAfter is the files a case leaves: Codex's result, or for a refused
// patch (the all-or-nothing case included) the files as they were.
func wantAfter(c codexpatch.Case) map[string]string {
	if c.Refused {
		return c.Before
	}
	return c.After
}

// treeFiles is every regular file under root but those named in skip.
func treeFiles(t *testing.T, root string, skip ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if slices.Contains(skip, rel) {
			return nil
		}
		b, err := os.ReadFile(p)
		out[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Codex's own apply_patch cases through the binary, headless: agentls run
// with gpt-5-codex reads the files, sends the patch, and the tree afterwards
// is Codex's result (the one deliberate difference, all or nothing, as ours).
func TestCodexPatchCasesHeadless(t *testing.T) {
	for _, c := range casesFor(t) {
		t.Run(c.Source+"/"+c.Name, func(t *testing.T) {
			_, base := startModel(t, codexScript(t, c))
			dir := copyWorkspace(t, "")
			writeTree(t, dir, c.Before)
			env := append(cleanEnv(), "AGENTLS_BASE_URL="+base, "AGENTLS_API_KEY=sk-test", "AGENTLS_MODEL=gpt-5-codex", "XDG_STATE_HOME="+t.TempDir())
			runCLI(t, dir, env, "run", "--json", "--no-verify", "patch it")
			if got, want := treeFiles(t, dir), wantAfter(c); !maps.Equal(got, want) {
				t.Errorf("files after:\n%q\nwant\n%q", got, want)
			}
		})
	}
}

// The same cases through the editor: the changes reach the editor as
// workspace edits (text edits of its buffers, file creations, renames and
// deletions), and what it holds afterwards is Codex's result.
func TestCodexPatchCasesThroughEditor(t *testing.T) {
	caps := lspclient.VSCodeCaps()
	caps.FileOps = true
	for _, c := range casesFor(t) {
		t.Run(c.Source+"/"+c.Name, func(t *testing.T) {
			s := start(t, setup{caps: &caps, files: c.Before, script: codexScript(t, c), env: []string{"AGENTLS_MODEL=gpt-5-codex"}})
			if r := s.run(t, map[string]any{"task": "patch it"}); r.Status != "ok" {
				t.Fatalf("status %q, error %q", r.Status, r.Error)
			}
			got := treeFiles(t, s.Root)
			want := wantAfter(c)
			// What the editor holds wins over the disk: a buffer, unsaved.
			for _, rel := range slices.Concat(slices.Collect(maps.Keys(got)), slices.Collect(maps.Keys(want)), slices.Collect(maps.Keys(c.Before))) {
				if txt, ok := s.Text(rel); ok {
					got[rel] = txt
				}
			}
			if !maps.Equal(got, want) {
				t.Errorf("files after:\n%q\nwant\n%q", got, want)
			}
		})
	}
}

// casesFor is every case, or under -short (the race pass of make test,
// after the full pass ran them all) every fifth: the race detector looks
// at the same code paths, and 55 runs under it cost three minutes.
func casesFor(t *testing.T) []codexpatch.Case {
	if !testing.Short() {
		return codexpatch.Cases
	}
	var some []codexpatch.Case
	for i, c := range codexpatch.Cases {
		if i%5 == 0 {
			some = append(some, c)
		}
	}
	return some
}

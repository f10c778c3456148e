package tools

import (
	"context"
	"encoding/json"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agentls/agentls/internal/testkit/codexpatch"
)

// TestApplyPatchCodexCases runs Codex's own apply_patch cases through the
// tool, on disk, with read-before-edit on: as a model would, the test reads
// every file first. Every case must give Codex's result; the one deliberate
// difference (a patch of which a part fails changes nothing) is checked as
// agentls's rule.
func TestApplyPatchCodexCases(t *testing.T) {
	matched, counted := 0, 0
	for _, c := range codexpatch.Cases {
		ok := t.Run(c.Source+"/"+c.Name, func(t *testing.T) {
			ws := newDisk(t, c.Before)
			ts := Default(ws, Options{EditTool: "apply_patch", ReadBeforeEdit: true})
			byName := map[string]func(any) error{}
			for _, tl := range ts {
				byName[tl.Spec().Name] = func(args any) error {
					raw, _ := json.Marshal(args)
					_, err := tl.Run(context.Background(), raw)
					return err
				}
			}
			for _, rel := range slices.Sorted(maps.Keys(c.Before)) {
				if err := byName["read_file"](map[string]string{"path": rel}); err != nil {
					t.Fatalf("read %s: %v", rel, err)
				}
			}
			err := byName["apply_patch"](map[string]string{"input": c.Patch})
			want := c.After
			if c.Refused {
				if err == nil {
					t.Fatalf("the patch applied; Codex refuses it")
				}
				want = c.Before // nothing changed, AllOrNothing included
			} else if err != nil {
				t.Fatalf("refused: %v", err)
			}
			if got := diskFiles(t, ws.Root()); !maps.Equal(got, want) {
				t.Errorf("files after:\n%q\nwant\n%q", got, want)
			}
		})
		if c.Counted() {
			counted++
			if ok {
				matched++
			}
		}
	}
	t.Logf("Codex's cases: %d of %d give Codex's result (the all-or-nothing rule counted as one)", matched, counted)
	if counted != 55 {
		t.Errorf("%d counted cases, want 55", counted)
	}
}

// diskFiles is every regular file under root and its content.
func diskFiles(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

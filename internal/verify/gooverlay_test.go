package verify

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Go prints the overlay's stand-in files relative to its working directory
// when that is shorter, e.g. "../agentls-gooverlay1/0_a.go" for a
// workspace directly under $TMPDIR, and through whichever form of a
// symlinked path it was given. Every form must map back to the real file
// (issue 13, item 2).
func TestGoOverlayStandInsInEveryForm(t *testing.T) {
	type layout struct{ tmpdir, root string }
	cases := map[string]func(base string) layout{
		// The workspace directly under TMPDIR: go prints ../agentls-gooverlayN/….
		"workspace under TMPDIR": func(base string) layout {
			return layout{tmpdir: base, root: filepath.Join(base, "ws")}
		},
		// TMPDIR beside the project, as with TMPDIR=~/tmp and ~/src/proj.
		"TMPDIR beside the project": func(base string) layout {
			return layout{tmpdir: filepath.Join(base, "tmp"), root: filepath.Join(base, "src", "proj")}
		},
		// TMPDIR is a symlink to a directory next to the workspace.
		"TMPDIR through a symlink": func(base string) layout {
			must(t, os.MkdirAll(filepath.Join(base, "realtmp"), 0o755))
			must(t, os.Symlink(filepath.Join(base, "realtmp"), filepath.Join(base, "tmplink")))
			return layout{tmpdir: filepath.Join(base, "tmplink"), root: filepath.Join(base, "ws")}
		},
		// The workspace is reached through a symlink.
		"workspace through a symlink": func(base string) layout {
			must(t, os.MkdirAll(filepath.Join(base, "real"), 0o755))
			must(t, os.Symlink(filepath.Join(base, "real"), filepath.Join(base, "link")))
			return layout{tmpdir: base, root: filepath.Join(base, "link", "ws")}
		},
	}
	for name, mk := range cases {
		t.Run(name, func(t *testing.T) {
			base, err := filepath.EvalSymlinks(t.TempDir())
			must(t, err)
			l := mk(base)
			must(t, os.MkdirAll(l.tmpdir, 0o755))
			must(t, os.MkdirAll(l.root, 0o755))
			t.Setenv("TMPDIR", l.tmpdir)
			must(t, os.WriteFile(filepath.Join(l.root, "go.mod"), []byte("module example.com/m\n\ngo 1.22\n"), 0o644))
			must(t, os.WriteFile(filepath.Join(l.root, "calc.go"), []byte("package m\n\nfunc A() int { return 1 }\n"), 0o644))
			rs, err := Run(context.Background(), RunOptions{Root: l.root, Commands: []string{"go build ./..."},
				Unsaved: map[string][]byte{"calc.go": []byte("package m\n\nfunc A() int { return undefinedThing }\n")}})
			must(t, err)
			if len(rs) != 1 || rs[0].Passed {
				t.Fatalf("results %+v", rs)
			}
			ds := rs[0].Diagnostics
			want := filepath.Join(l.root, "calc.go")
			if len(ds) != 1 || ds[0].Path != want || ds[0].Line != 3 {
				t.Fatalf("diagnostics %+v, want one at %s:3\noutput %s", ds, want, rs[0].Output)
			}
			if strings.Contains(rs[0].Output, "gooverlay") {
				t.Errorf("the output still names the stand-in:\n%s", rs[0].Output)
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

package verify

import (
	"os"
	"path/filepath"
	"testing"
)

func writeFile(t testing.TB, root, rel, text string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestParseGeneric(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "conf/app.yaml", "a: 1\nb: [\n")
	writeFile(t, root, "Makefile", "all:\n  echo\n")
	writeFile(t, root, "docs/x.md", "# x\n")
	cases := []struct {
		name, out string
		want      []want
		unlocated []string
	}{
		{"line and column", "conf/app.yaml:2:4: did not find expected node content\n",
			[]want{{path: "conf/app.yaml", line: 2, col: 4, sev: Error, msg: "did not find expected node content", source: "yamllint"}}, nil},
		{"severity word", "docs/x.md:1: warning: heading level\n",
			[]want{{path: "docs/x.md", line: 1, sev: Warning, msg: "heading level", source: "yamllint"}}, nil},
		{"make's own error", "Makefile:2: *** missing separator.  Stop.\n",
			[]want{{path: "Makefile", line: 2, sev: Error, msg: "*** missing separator.  Stop.", source: "yamllint"}}, nil},
		{"absolute path inside root", filepath.Join(root, "conf/app.yaml") + ":1:1: bad\n",
			[]want{{path: "conf/app.yaml", line: 1, col: 1, sev: Error, msg: "bad", source: "yamllint"}}, nil},
		// A file that is not in the workspace, a timestamp and a URL are
		// not locations.
		{"missing file", "nothere.txt:3: oops\n", nil, []string{"nothere.txt:3: oops"}},
		{"outside root", "/etc/hosts:1: oops\n", nil, []string{"/etc/hosts:1: oops"}},
		{"timestamp", "12:30:45: started\n", nil, []string{"12:30:45: started"}},
		{"url", "see http://example.com:8080: down\n", nil, []string{"see http://example.com:8080: down"}},
		{"escape", "../outside.go:3:1: x\n", nil, []string{"../outside.go:3:1: x"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			diags, unloc := parseOutput(c.out, root, root, "yamllint -f parsable .")
			checkDiags(t, root, diags, c.want)
			if len(unloc) != len(c.unlocated) || (len(unloc) > 0 && unloc[0] != c.unlocated[0]) {
				t.Errorf("unlocated %q, want %q", unloc, c.unlocated)
			}
		})
	}
}

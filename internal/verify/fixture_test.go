package verify

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixture is a captured output from testdata, with the directory it was
// captured in rewritten to where its sources now lie.
type fixture struct {
	output, root, cmd string
}

func loadFixture(t testing.TB, name string) fixture {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	head, out, ok := strings.Cut(string(b), "-- output --\n")
	if !ok {
		t.Fatalf("%s: no output marker", name)
	}
	var f fixture
	var recorded string
	for _, l := range strings.Split(head, "\n") {
		if v, ok := strings.CutPrefix(l, "# command: "); ok {
			f.cmd = v
		}
		if v, ok := strings.CutPrefix(l, "# root: "); ok {
			recorded = v
		}
	}
	if recorded == "" {
		t.Fatalf("%s: no root recorded", name)
	}
	root, err := filepath.Abs(filepath.Join("testdata", "src", filepath.Base(recorded)))
	if err != nil {
		t.Fatal(err)
	}
	f.root = root
	f.output = strings.ReplaceAll(out, recorded, root)
	return f
}

// want is an expected diagnostic; path is relative to the fixture's root.
type want struct {
	path              string
	line, col         int
	endCol            int
	sev               Severity
	msg, code, source string
}

func checkDiags(t *testing.T, root string, got []Diagnostic, wants []want) {
	t.Helper()
	if len(got) != len(wants) {
		for _, d := range got {
			t.Logf("got %s [%s %s] end=%d", d, d.Code, d.Source, d.EndCol)
		}
		t.Fatalf("got %d diagnostics, want %d", len(got), len(wants))
	}
	for i, w := range wants {
		d := got[i]
		wp := filepath.Join(root, filepath.FromSlash(w.path))
		if d.Path != wp || d.Line != w.line || d.Col != w.col || d.Severity != w.sev ||
			d.Message != w.msg || d.Code != w.code || d.Source != w.source || d.EndCol != w.endCol {
			t.Errorf("diagnostic %d:\n got %s:%d:%d end %d %s %q code=%q source=%q\nwant %s:%d:%d end %d %s %q code=%q source=%q",
				i, d.Path, d.Line, d.Col, d.EndCol, d.Severity, d.Message, d.Code, d.Source,
				wp, w.line, w.col, w.endCol, w.sev, w.msg, w.code, w.source)
		}
	}
}

// fixtureCase is one captured output and everything Parse must find in it.
type fixtureCase struct {
	fixture   string
	wants     []want
	unlocated []string // exact, in order
}

func runFixtureCases(t *testing.T, cases []fixtureCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(strings.TrimSuffix(c.fixture, ".txt"), func(t *testing.T) {
			f := loadFixture(t, c.fixture)
			diags, unloc := parseOutput(f.output, f.root, f.root, f.cmd)
			checkDiags(t, f.root, diags, c.wants)
			if strings.Join(unloc, "\n") != strings.Join(c.unlocated, "\n") {
				t.Errorf("unlocated:\n got %q\nwant %q", unloc, c.unlocated)
			}
		})
	}
}

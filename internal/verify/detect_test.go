package verify

import (
	"strings"
	"testing"
)

func TestDetect(t *testing.T) {
	npmInit := `{"name":"x","scripts":{"test":"echo \"Error: no test specified\" && exit 1"}}`
	cases := []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"empty", nil, nil},
		{"go", map[string]string{"go.mod": "module x\n"}, []string{"go build ./...", "go vet ./...", "go test ./..."}},
		{"npm with a test script", map[string]string{"package.json": `{"scripts":{"test":"vitest run"}}`}, []string{"npm test"}},
		{"npm without scripts", map[string]string{"package.json": `{"name":"x"}`}, nil},
		{"npm init's placeholder", map[string]string{"package.json": npmInit}, nil},
		{"broken package.json", map[string]string{"package.json": `{"scripts":`}, nil},
		{"cargo", map[string]string{"Cargo.toml": "[package]\n"}, []string{"cargo check", "cargo test"}},
		{"pyproject", map[string]string{"pyproject.toml": "[project]\n"}, []string{"pytest -q"}},
		{"pytest.ini", map[string]string{"pytest.ini": "[pytest]\n"}, []string{"pytest -q"}},
		{"make check wins", map[string]string{"go.mod": "module x\n", "Makefile": "test:\n\tgo test\ncheck: lint test\n\tgo vet\n"}, []string{"make check"}},
		{"make test is the fallback", map[string]string{"Makefile": "CC := gcc\ntest: build\n\t./run-tests\n"}, []string{"make test"}},
		{"make test loses to a language", map[string]string{"go.mod": "module x\n", "Makefile": "test:\n\tgo test\n"}, []string{"go build ./...", "go vet ./...", "go test ./..."}},
		{"several targets on one rule", map[string]string{"Makefile": "all check install:\n\techo\n"}, []string{"make check"}},
		{"assignments are not targets", map[string]string{"Makefile": "check := yes\ntest ::= no\n"}, nil},
		{"recipe lines are not targets", map[string]string{"Makefile": "all:\n\tcheck: x\n"}, nil},
		{"polyglot", map[string]string{"go.mod": "module x\n", "package.json": `{"scripts":{"test":"jest"}}`, "pyproject.toml": ""},
			[]string{"go build ./...", "go vet ./...", "go test ./...", "npm test", "pytest -q"}},
		{"a directory named go.mod is not a module", map[string]string{"go.mod/x": ""}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			for rel, text := range c.files {
				writeFile(t, root, rel, text)
			}
			if got := Detect(root); strings.Join(got, "|") != strings.Join(c.want, "|") {
				t.Fatalf("Detect = %q, want %q", got, c.want)
			}
		})
	}
}

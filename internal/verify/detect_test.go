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
		{"go", map[string]string{"go.mod": "module x\n", "main.go": "package main\n"}, []string{"go build ./...", "go vet ./...", "go test ./..."}},
		{"npm with a test script", map[string]string{"package.json": `{"scripts":{"test":"vitest run"}}`}, []string{"npm test"}},
		{"typescript with its compiler installed", map[string]string{"package.json": `{"scripts":{"test":"vitest run"}}`, "tsconfig.json": "{}", "node_modules/.bin/tsc": "", "node_modules/x/y.ts": "", "src/a.ts": ""},
			[]string{TscCheck, "npm test"}},
		{"a tsconfig without tsc installed", map[string]string{"tsconfig.json": "{}", "src/a.ts": ""}, nil},
		{"tsc installed, no TypeScript outside node_modules", map[string]string{"tsconfig.json": "{}", "node_modules/.bin/tsc": "", "node_modules/x/y.ts": ""}, nil},
		{"npm without scripts", map[string]string{"package.json": `{"name":"x"}`}, nil},
		{"npm init's placeholder", map[string]string{"package.json": npmInit}, nil},
		{"broken package.json", map[string]string{"package.json": `{"scripts":`}, nil},
		{"cargo", map[string]string{"Cargo.toml": "[package]\n", "src/main.rs": ""}, []string{"cargo check", "cargo test"}},
		{"pyproject", map[string]string{"pyproject.toml": "[project]\n", "app/x.py": ""}, []string{"pytest -q"}},
		{"pytest.ini", map[string]string{"pytest.ini": "[pytest]\n", "test_x.py": ""}, []string{"pytest -q"}},
		{"make check wins", map[string]string{"go.mod": "module x\n", "Makefile": "test:\n\tgo test\ncheck: lint test\n\tgo vet\n"}, []string{"make check"}},
		{"make test is the fallback", map[string]string{"Makefile": "CC := gcc\ntest: build\n\t./run-tests\n"}, []string{"make test"}},
		{"make test loses to a language", map[string]string{"go.mod": "module x\n", "x.go": "", "Makefile": "test:\n\tgo test\n"}, []string{"go build ./...", "go vet ./...", "go test ./..."}},
		{"several targets on one rule", map[string]string{"Makefile": "all check install:\n\techo\n"}, []string{"make check"}},
		{"assignments are not targets", map[string]string{"Makefile": "check := yes\ntest ::= no\n"}, nil},
		{"recipe lines are not targets", map[string]string{"Makefile": "all:\n\tcheck: x\n"}, nil},
		{"polyglot", map[string]string{"go.mod": "module x\n", "cmd/a/a.go": "", "package.json": `{"scripts":{"test":"jest"}}`, "pyproject.toml": "", "tools/t.py": ""},
			[]string{"go build ./...", "go vet ./...", "go test ./...", "npm test", "pytest -q"}},
		// Nothing to check: a fresh "go mod init", "cargo init" without
		// sources, a pyproject with no Python yet (issue 13, item 4).
		{"go.mod and no Go files", map[string]string{"go.mod": "module x\n", "hello.txt": "hi\n"}, nil},
		{"Go files only where builds do not look", map[string]string{"go.mod": "module x\n", "testdata/a.go": "", ".git/x.go": "", "vendor/v/v.go": ""}, nil},
		{"Cargo.toml and no Rust files", map[string]string{"Cargo.toml": "[package]\n"}, nil},
		{"pyproject and no Python files", map[string]string{"pyproject.toml": "[project]\n"}, nil},
		{"no Go files but a make test", map[string]string{"go.mod": "module x\n", "Makefile": "test:\n\t./t\n"}, []string{"make test"}},
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

// A task's files that are not on disk yet count (a dry run, a review).
func TestDetectWith(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "go.mod", "module x\n")
	if got := DetectWith(root, []string{"notes.md"}); len(got) != 0 {
		t.Errorf("DetectWith(notes.md) = %q", got)
	}
	if got := DetectWith(root, []string{"cmd/x/main.go"}); len(got) != 3 {
		t.Errorf("DetectWith(main.go) = %q", got)
	}
	if got := DetectAny(root); len(got) != 3 {
		t.Errorf("DetectAny = %q", got)
	}
}

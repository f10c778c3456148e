package verify

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
)

// Detect proposes check commands from the files at root, for when the
// configuration names none. A Makefile "check" target is the project's own
// word on what checking means and wins alone. Otherwise each ecosystem
// found adds its commands (a Go service with a web frontend gets both), and
// a Makefile "test" target is the fallback when none is found.
func Detect(root string) []string {
	targets := makeTargets(root)
	if targets["check"] {
		return []string{"make check"}
	}
	var cmds []string
	if isFile(root, "go.mod") {
		cmds = append(cmds, "go build ./...", "go vet ./...", "go test ./...")
	}
	if npmHasTest(root) {
		cmds = append(cmds, "npm test")
	}
	if isFile(root, "Cargo.toml") {
		cmds = append(cmds, "cargo check", "cargo test")
	}
	if isFile(root, "pyproject.toml") || isFile(root, "pytest.ini") {
		cmds = append(cmds, "pytest -q")
	}
	if len(cmds) == 0 && targets["test"] {
		cmds = append(cmds, "make test")
	}
	return cmds
}

func isFile(root, name string) bool {
	fi, err := os.Stat(filepath.Join(root, name))
	return err == nil && fi.Mode().IsRegular()
}

// npmPlaceholder is the test script "npm init" writes, which always fails.
const npmPlaceholder = `echo "Error: no test specified" && exit 1`

func npmHasTest(root string) bool {
	b, err := os.ReadFile(filepath.Join(root, "package.json"))
	if err != nil {
		return false
	}
	var pkg struct {
		Scripts map[string]string `json:"scripts"`
	}
	if json.Unmarshal(b, &pkg) != nil {
		return false
	}
	t := strings.TrimSpace(pkg.Scripts["test"])
	return t != "" && t != npmPlaceholder
}

// makeRuleRE matches a rule line "a b: deps", not a variable assignment
// ("a := b", "a ::= b") or a recipe line (those start with a tab).
var makeRuleRE = lazyRegexp(`^([A-Za-z0-9_.\-/ ]+?)\s*::?(?:[^=:]|$)`)

// makeTargets lists the explicit targets of the Makefile GNU make would
// read at root. Included makefiles are not followed.
func makeTargets(root string) map[string]bool {
	targets := map[string]bool{}
	for _, name := range []string{"GNUmakefile", "makefile", "Makefile"} {
		f, err := os.Open(filepath.Join(root, name))
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			m := makeRuleRE.FindStringSubmatch(sc.Text())
			if m == nil {
				continue
			}
			for _, t := range strings.Fields(m[1]) {
				targets[t] = true
			}
		}
		f.Close()
		break
	}
	return targets
}

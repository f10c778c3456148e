package agent

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The machine is pure by construction, not by convention: this test fails
// when a non-test file of the package imports something that does I/O or
// concurrency, reads the clock, or starts a goroutine. The driver does
// all of that (internal/driver).
func TestPackageIsPure(t *testing.T) {
	allowed := map[string]bool{
		"context":       true, // in interface signatures only: the LLM, Tool and Workspace contracts
		"encoding/json": true,
		"errors":        true,
		"fmt":           true,
		"slices":        true,
		"sort":          true,
		"strings":       true,
		"time":          true, // time.Duration and its constants only: checked below
		"unicode/utf8":  true,
		// Cuts text on character boundaries and imports only unicode/utf8.
		"github.com/agentls/agentls/internal/textcut": true,
	}
	// From package time, only values that are not the clock.
	timeOK := map[string]bool{"Duration": true, "Nanosecond": true, "Microsecond": true, "Millisecond": true, "Second": true, "Minute": true, "Hour": true}

	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if !allowed[path] {
				t.Errorf("%s imports %q: the machine must stay pure (no I/O, clock, concurrency or other agentls packages)", fset.Position(imp.Pos()), path)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.GoStmt:
				t.Errorf("%s: a go statement; the machine starts no goroutines", fset.Position(n.Pos()))
			case *ast.SelectorExpr:
				if id, ok := n.X.(*ast.Ident); ok && id.Name == "time" && !timeOK[n.Sel.Name] {
					t.Errorf("%s: time.%s; the machine reads no clock (time is an input)", fset.Position(n.Pos()), n.Sel.Name)
				}
			}
			return true
		})
	}
	if checked < 5 {
		t.Fatalf("checked %d files; the glob found the wrong directory", checked)
	}
}

package agent

import (
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// EventKinds documents every Kind constant once, and names only fields
// Event has: a new kind without documentation fails here.
func TestEventKindsDocumentEveryKind(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "events.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	declared := map[string]bool{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, sp := range g.Specs {
			v := sp.(*ast.ValueSpec)
			for i, n := range v.Names {
				if !strings.HasPrefix(n.Name, "Kind") || i >= len(v.Values) {
					continue
				}
				if lit, ok := v.Values[i].(*ast.BasicLit); ok {
					s, _ := strconv.Unquote(lit.Value)
					declared[s] = true
				}
			}
		}
	}
	if len(declared) < 10 {
		t.Fatalf("found %d Kind constants in events.go", len(declared))
	}
	fields := map[string]bool{}
	et := reflect.TypeFor[Event]()
	for sf := range et.Fields() {
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		fields[name] = true
	}
	documented := map[string]bool{}
	for _, k := range EventKinds {
		if documented[k.Kind] {
			t.Errorf("%s is documented twice", k.Kind)
		}
		documented[k.Kind] = true
		if !declared[k.Kind] {
			t.Errorf("EventKinds documents %q, which is not a Kind constant", k.Kind)
		}
		if k.Doc == "" {
			t.Errorf("%s has no documentation", k.Kind)
		}
		for _, fn := range k.Fields {
			if !fields[fn] || fn == "kind" || fn == "step" {
				t.Errorf("%s names field %q, which Event does not have (besides kind and step)", k.Kind, fn)
			}
		}
	}
	for k := range declared {
		if !documented[k] {
			t.Errorf("event kind %q is not in EventKinds (internal/agent/eventkinds.go)", k)
		}
	}
}

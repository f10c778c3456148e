package verify

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
)

// A mutation is a one-line change to one module of a generated project.
type mutation struct {
	module, kind string
	apply        func(text string) string
}

// genMutations are the sweep's one-line changes: a wrong result (failing
// the module's tests and, through imports, its importers' tests two hops
// away included), a syntax error, and a harmless change, in the shared
// module, in modules a chain imports, in one that imports nothing, and in
// the leaf.
func genMutations(lang string) []mutation {
	factor := func(i int) mutation {
		return mutation{fmt.Sprintf("m%02d", i), "wrong result", func(s string) string {
			return strings.Replace(s, fmt.Sprintf("* %d", genFactor(i)), fmt.Sprintf("* %d", genFactor(i)+5), 1)
		}}
	}
	nonce := func(m string) mutation {
		return mutation{m, "harmless", func(s string) string {
			for _, z := range []string{"NONCE = 0", "Nonce = 0"} {
				s = strings.Replace(s, z, strings.Replace(z, "0", "7", 1), 1)
			}
			return s
		}}
	}
	syntax := func(m string) mutation {
		return mutation{m, "syntax error", func(s string) string {
			if strings.HasPrefix(lang, "python") {
				return strings.Replace(s, "\ndef ", "\ndef def ", 1)
			}
			return strings.Replace(s, "export function", "export function function", 1)
		}}
	}
	ms := []mutation{
		{"shared", "wrong result", func(s string) string { return strings.Replace(s, "x + 1", "x + 2", 1) }},
		nonce("shared"),
		factor(2), // m03 imports it: m03's tests fail two imports from shared… and one from m02
		factor(3), factor(4), factor(48), nonce("m48"), syntax("m09"),
	}
	if lang == "typescript" {
		// Each full run starts 50 node processes through tsx (about 35 s
		// a mutation here): the TypeScript sweep keeps one of each kind,
		// the chain two imports away, and the type error only tsc finds
		// (tsx strips types unchecked; tsc runs whole). The other
		// languages run the whole list.
		ms = []mutation{ms[0], ms[1], ms[2], syntax("m09"), {"m48", "type error", func(s string) string {
			return strings.Replace(s, "export const NONCE = 0;", "export const NONCE: string = 0;", 1)
		}}}
	}
	return ms
}

// The sweep: one-line mutations over the generated Python (pytest and
// unittest), JavaScript and TypeScript projects, each checked twice,
// scoped (Scope) and whole: the scoped run fails exactly when the full run
// fails. The checks are those Detect proposes for each project.
func TestScopedRunFailsExactlyWhenTheFullRunFails(t *testing.T) {
	for _, lang := range genLangs {
		if lang.name == "go" {
			continue // Go's scope is the toolchain's own (TestGoScope…)
		}
		t.Run(lang.name, func(t *testing.T) {
			root := t.TempDir()
			lang.gen(t, root, 0)
			if got := DetectWith(root, nil); strings.Join(got, "\n") != strings.Join(lang.cmds, "\n") {
				t.Fatalf("Detect = %q, want %q", got, lang.cmds)
			}
			var bothFail, bothPass, narrower int
			for _, m := range genMutations(lang.name) {
				rel := lang.module(m.module)
				orig, err := os.ReadFile(root + "/" + rel)
				if err != nil {
					t.Fatal(err)
				}
				mutated := m.apply(string(orig))
				if mutated == string(orig) {
					t.Fatalf("%s %s: the mutation changed nothing", m.module, m.kind)
				}
				unsaved := map[string][]byte{rel: []byte(mutated)}
				checks := Scope(context.Background(), ScopeInput{Root: root, Commands: lang.cmds, Changed: []string{rel}, Unsaved: unsaved})
				scoped := Commands(checks)
				if Scoped(checks) {
					narrower++
				}
				scopedPassed := true
				if len(scoped) > 0 {
					rs, err := Run(context.Background(), RunOptions{Root: root, Commands: scoped, Unsaved: unsaved})
					if err != nil {
						t.Fatal(err)
					}
					scopedPassed = passedAll(rs)
				}
				rs, err := Run(context.Background(), RunOptions{Root: root, Commands: lang.cmds, Unsaved: unsaved})
				if err != nil {
					t.Fatal(err)
				}
				fullPassed := passedAll(rs)
				// Each mutation is made to fail or not: a sweep whose
				// wrong results pass, or whose harmless change fails,
				// compares runs that prove nothing about the scope.
				if wantPass := m.kind == "harmless"; fullPassed != wantPass {
					t.Errorf("%s %s: the full run passed %v, want %v", m.module, m.kind, fullPassed, wantPass)
				}
				if scopedPassed != fullPassed {
					t.Errorf("%s %s: scoped (%q) passed %v, full passed %v", m.module, m.kind, scoped, scopedPassed, fullPassed)
				}
				if fullPassed {
					bothPass++
				} else {
					bothFail++
				}
			}
			t.Logf("%s: %d mutations, %d narrowed: full and scoped both failed %d, both passed %d", lang.name, bothFail+bothPass, narrower, bothFail, bothPass)
			if bothFail == 0 || bothPass == 0 || narrower < bothFail+bothPass-3 {
				t.Errorf("the sweep proves little: %d failed, %d passed, %d narrowed", bothFail, bothPass, narrower)
			}
		})
	}
}

func passedAll(rs []Result) bool {
	for _, r := range rs {
		if !r.Passed {
			return false
		}
	}
	return true
}

package verify

import "testing"

func TestParseGoBuild(t *testing.T) {
	runFixtureCases(t, []fixtureCase{
		{fixture: "go_build.txt", wants: []want{
			{path: "sub/sub.go", line: 4, col: 17, sev: Error, msg: "undefined: c", source: "go build"},
			{path: "main.go", line: 5, col: 2, sev: Error, msg: `"os" imported and not used`, source: "go build"},
			{path: "main.go", line: 9, col: 14, sev: Error, msg: `cannot use "hello" (untyped string constant) as int value in variable declaration`, source: "go build"},
			{path: "main.go", line: 10, col: 17, sev: Error, msg: "undefined: undefinedThing", source: "go build"},
		}},
		{fixture: "go_build_related.txt", wants: []want{
			{path: "b.go", line: 3, col: 6, sev: Error, msg: "f redeclared in this block\n./a.go:3:6: other declaration of f", source: "go build"},
			{path: "a.go", line: 6, col: 12, sev: Error, msg: "too many return values\nhave (number, number)\nwant (int)", source: "go build"},
			{path: "a.go", line: 12, col: 4, sev: Error, msg: "not enough arguments in call to h\nhave (number)\nwant (int, string)", source: "go build"},
			{path: "a.go", line: 13, col: 17, sev: Error, msg: "cannot use 3 (untyped int constant) as string value in variable declaration", source: "go build"},
		}},
		{fixture: "go_vet.txt", wants: []want{
			{path: "inner/inner.go", line: 6, col: 25, sev: Error, msg: "fmt.Sprintf format %s reads arg #2, but call has 1 arg", source: "go vet"},
			{path: "main.go", line: 13, col: 13, sev: Error, msg: "show passes lock by value: example.com/capvet.guarded contains sync.Mutex", source: "go vet"},
			{path: "main.go", line: 19, col: 19, sev: Error, msg: "call of show copies lock value: example.com/capvet.guarded contains sync.Mutex", source: "go vet"},
			{path: "main.go", line: 17, col: 14, sev: Error, msg: "fmt.Printf format %d has arg name of wrong type string", source: "go vet"},
		}},
		// vet's own type errors carry a "vet: " prefix and package headers
		// that must not end up unlocated.
		{fixture: "go_vet_typeerror.txt", wants: []want{
			{path: "sub/sub.go", line: 4, col: 17, sev: Error, msg: "undefined: c", source: "go vet"},
			{path: "main.go", line: 9, col: 14, sev: Error, msg: `cannot use "hello" (untyped string constant) as int value in variable declaration`, source: "go vet"},
		}},
	})
}

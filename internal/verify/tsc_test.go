package verify

import "testing"

func TestParseTSC(t *testing.T) {
	tscWants := []want{
		{path: "src/helper.ts", line: 3, col: 3, sev: Error, msg: "Type 'number' is not assignable to type 'string'.", code: "TS2322", source: "tsc"},
		{path: "src/helper.ts", line: 3, col: 10, sev: Error, msg: "'x' is possibly 'undefined'.", code: "TS18048", source: "tsc"},
		{path: "src/index.ts", line: 3, col: 7, sev: Error, msg: "Type 'string' is not assignable to type 'number'.", code: "TS2322", source: "tsc"},
		{path: "src/index.ts", line: 5, col: 15, sev: Error, msg: "Property 'toFixed' does not exist on type 'string'. Did you mean 'fixed'?", code: "TS2551", source: "tsc"},
		{path: "src/index.ts", line: 7, col: 19, sev: Error, msg: "Argument of type 'number' is not assignable to parameter of type 'string'.", code: "TS2345", source: "tsc"},
		{path: "src/index.ts", line: 7, col: 34, sev: Error, msg: "Cannot find name 'missing'.", code: "TS2304", source: "tsc"},
	}
	runFixtureCases(t, []fixtureCase{
		{fixture: "tsc.txt", wants: tscWants},
		// The pretty form is colored; its excerpts, the related
		// information in lib.d.ts (outside the workspace) and the summary
		// table are all noise.
		{fixture: "tsc_pretty.txt", wants: tscWants},
	})
}

// tsc counts UTF-16 code units: after an emoji (two units, four bytes) the
// byte column is further right.
func TestParseTSCColumnsAreUTF16(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "a.ts", "const s = \"😀\"; let n: number = s;\n")
	diags, _ := Parse("a.ts(1,21): error TS2322: Type 'string' is not assignable to type 'number'.\n", root)
	if len(diags) != 1 || diags[0].Col != 23 {
		t.Fatalf("got %v, want column 23", diags)
	}
}

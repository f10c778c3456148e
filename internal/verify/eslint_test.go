package verify

import "testing"

func TestParseESLint(t *testing.T) {
	stylish := []want{
		{path: "lib/app.js", line: 1, col: 7, sev: Error, msg: "'unused' is assigned a value but never used", code: "no-unused-vars", source: "eslint"},
		{path: "lib/app.js", line: 3, col: 3, sev: Warning, msg: "Unexpected console statement", code: "no-console", source: "eslint"},
		{path: "lib/app.js", line: 3, col: 17, sev: Error, msg: "Missing semicolon", code: "semi", source: "eslint"},
		{path: "lib/app.js", line: 4, col: 10, sev: Error, msg: "'undefinedName' is not defined", code: "no-undef", source: "eslint"},
		{path: "lib/other.js", line: 1, col: 5, sev: Error, msg: "'x' is not defined", code: "no-undef", source: "eslint"},
		{path: "lib/other.js", line: 1, col: 15, sev: Error, msg: "Unexpected 'debugger' statement", code: "no-debugger", source: "eslint"},
	}
	unix := make([]want, len(stylish))
	for i, w := range stylish {
		w.msg += "." // the unix formatter keeps the final period
		unix[i] = w
	}
	runFixtureCases(t, []fixtureCase{
		{fixture: "eslint_stylish.txt", wants: stylish},
		{fixture: "eslint_stylish_color.txt", wants: stylish},
		{fixture: "eslint_unix.txt", wants: unix},
	})
}

package verify

import "testing"

func TestParsePythonTraceback(t *testing.T) {
	runFixtureCases(t, []fixtureCase{
		{fixture: "python_simple.txt", wants: []want{
			{path: "simple.py", line: 4, sev: Error, msg: "NameError: name 'undefined_name' is not defined", source: "python"},
		}},
		// Chained exceptions: each traceback is placed at its own last
		// frame in the workspace; the json library's frames are skipped.
		{fixture: "python_traceback.txt", wants: []want{
			{path: "app/core.py", line: 5, sev: Error, msg: "json.decoder.JSONDecodeError: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)", source: "python"},
			{path: "app/core.py", line: 12, sev: Error, msg: "RuntimeError: bad config", source: "python"},
		}},
		{fixture: "python_syntax.txt", wants: []want{
			{path: "bad.py", line: 1, sev: Error, msg: "SyntaxError: invalid syntax", source: "python"},
		}},
	})
}

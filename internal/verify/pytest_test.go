package verify

import "testing"

func TestParsePytest(t *testing.T) {
	summary := func(total string) []string {
		return []string{
			"FAILED tests/test_mathy.py::test_add - assert -1 == 5",
			"FAILED tests/test_mathy.py::test_parse - ValueError: invalid literal for int(...",
			"FAILED tests/test_mathy.py::test_helper - AssertionError: value must be truthy",
			total,
		}
	}
	long := []want{
		{path: "tests/test_mathy.py", line: 5, sev: Error, msg: "assert -1 == 5\n+  where -1 = add(2, 3)", source: "pytest"},
		// Raised in the code under test: placed there, not in the test.
		{path: "pkg/mathy.py", line: 6, sev: Error, msg: "ValueError: invalid literal for int() with base 10: 'x'", source: "pytest"},
		// A failing assert in a helper the test called.
		{path: "tests/test_mathy.py", line: 13, sev: Error, msg: "AssertionError: value must be truthy\nassert 0", source: "pytest"},
	}
	runFixtureCases(t, []fixtureCase{
		{fixture: "pytest.txt", wants: long, unlocated: summary("3 failed, 1 passed in 0.02s")},
		{fixture: "pytest_short.txt", wants: long, unlocated: summary("3 failed, 1 passed in 0.02s")},
		{fixture: "pytest_line.txt", wants: []want{
			{path: "tests/test_mathy.py", line: 5, sev: Error, msg: "assert -1 == 5", source: "pytest"},
			{path: "pkg/mathy.py", line: 6, sev: Error, msg: "ValueError: invalid literal for int() with base 10: 'x'", source: "pytest"},
			{path: "tests/test_mathy.py", line: 13, sev: Error, msg: "AssertionError: value must be truthy", source: "pytest"},
		}, unlocated: summary("3 failed, 1 passed in 0.01s")},
		// A test module that does not parse: every frame is in pytest and
		// the standard library; the file is named inside the E lines.
		{fixture: "pytest_collect.txt", wants: []want{
			{path: "tests/test_bad.py", line: 2, sev: Error, msg: "SyntaxError: '(' was never closed", source: "pytest"},
		}, unlocated: []string{
			"ERROR tests/test_bad.py",
			"!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!",
			"1 error in 0.10s",
		}},
	})
}

// A failure raised inside a library is placed at the last workspace frame
// that led to it.
func TestParsePytestLibraryFrame(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "tests/test_j.py", "import json\n\ndef test_j():\n    json.loads('x')\n")
	out := "=================================== FAILURES ===================================\n" +
		"____________________________________ test_j ____________________________________\n" +
		"tests/test_j.py:4: in test_j\n    json.loads('x')\n" +
		"/usr/lib/python3.11/json/__init__.py:346: in loads\n    return _default_decoder.decode(s)\n" +
		"E   json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)\n" +
		"=========================== short test summary info ============================\n"
	diags, _ := Parse(out, root)
	if len(diags) != 1 || diags[0].Line != 4 || diags[0].Message != "json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)" {
		t.Fatalf("got %v", diags)
	}
}

package verify

import "testing"

func TestParseGCC(t *testing.T) {
	gccMain := []want{
		{path: "src/main.c", line: 5, col: 13, endCol: 18, sev: Warning, msg: "initialization of ‘int’ from ‘char *’ makes integer from pointer without a cast", code: "-Wint-conversion", source: "gcc"},
		{path: "src/main.c", line: 7, col: 20, endCol: 33, sev: Error, msg: "‘undefined_var’ undeclared (first use in this function)", source: "gcc"},
		{path: "src/main.c", line: 7, col: 20, sev: Info, msg: "each undeclared identifier is reported only once for each function it appears in", source: "gcc"},
		{path: "src/main.c", line: 8, col: 12, endCol: 16, sev: Error, msg: "too many arguments to function ‘util’", source: "gcc"},
		{path: "src/util.h", line: 1, col: 5, endCol: 9, sev: Info, msg: "declared here", source: "gcc"},
		{path: "src/util.h", line: 2, col: 12, endCol: 25, sev: Warning, msg: "‘unused_helper’ defined but not used", code: "-Wunused-function", source: "gcc"},
	}
	runFixtureCases(t, []fixtureCase{
		{fixture: "gcc.txt", wants: gccMain},
		// make -C src: gcc prints paths relative to the directory make
		// entered, which must resolve to the same files.
		{fixture: "gcc_make.txt", wants: gccMain, unlocated: []string{
			"make -C src -f ../sub.mk",
			"gcc -Wall -Wextra -c main.c -o /dev/null",
			"make[1]: *** [../sub.mk:2: all] Error 1",
			"make: *** [Makefile:3: check] Error 2",
		}},
		{fixture: "clang.txt", wants: []want{
			{path: "src/main.c", line: 5, col: 9, sev: Warning, msg: "incompatible pointer to integer conversion initializing 'int' with an expression of type 'char[4]'", code: "-Wint-conversion", source: "clang"},
			{path: "src/main.c", line: 7, col: 20, sev: Error, msg: "use of undeclared identifier 'undefined_var'", source: "clang"},
			{path: "src/main.c", line: 8, col: 20, sev: Error, msg: "too many arguments to function call, expected single argument 'x', have 2 arguments", source: "clang"},
			{path: "src/util.h", line: 1, col: 5, sev: Info, msg: "'util' declared here", source: "clang"},
		}},
		// gcc counts display columns (a tab runs to the next multiple of
		// 8), clang bytes; on a tab-indented line with an "é" both must come
		// out as the same byte columns.
		{fixture: "gcc_tabs.txt", wants: []want{
			{path: "t.c", line: 2, col: 10, endCol: 13, sev: Warning, msg: "initialization of ‘int’ from ‘char *’ makes integer from pointer without a cast", code: "-Wint-conversion", source: "gcc"},
			{path: "t.c", line: 3, col: 19, endCol: 23, sev: Warning, msg: "initialization of ‘int’ from ‘char *’ makes integer from pointer without a cast", code: "-Wint-conversion", source: "gcc"},
			{path: "t.c", line: 3, col: 15, endCol: 16, sev: Warning, msg: "unused variable ‘y’", code: "-Wunused-variable", source: "gcc"},
			{path: "t.c", line: 2, col: 6, endCol: 7, sev: Warning, msg: "unused variable ‘x’", code: "-Wunused-variable", source: "gcc"},
		}},
		{fixture: "clang_tabs.txt", wants: []want{
			{path: "t.c", line: 2, col: 6, sev: Warning, msg: "incompatible pointer to integer conversion initializing 'int' with an expression of type 'char[2]'", code: "-Wint-conversion", source: "clang"},
			{path: "t.c", line: 3, col: 15, sev: Warning, msg: "incompatible pointer to integer conversion initializing 'int' with an expression of type 'char[3]'", code: "-Wint-conversion", source: "clang"},
			{path: "t.c", line: 2, col: 6, sev: Warning, msg: "unused variable 'x'", code: "-Wunused-variable", source: "clang"},
			{path: "t.c", line: 3, col: 15, sev: Warning, msg: "unused variable 'y'", code: "-Wunused-variable", source: "clang"},
		}},
	})
}

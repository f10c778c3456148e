package verify

import "testing"

func TestParseRust(t *testing.T) {
	runFixtureCases(t, []fixtureCase{
		{
			fixture: "cargo_short.txt",
			wants: []want{
				{path: "src/lib.rs", line: 3, col: 21, sev: Error, msg: "mismatched types: expected `String`, found `i32`", code: "E0308", source: "rustc"},
				{path: "src/lib.rs", line: 4, col: 5, sev: Error, msg: "mismatched types: expected `i32`, found `String`", code: "E0308", source: "rustc"},
				{path: "src/lib.rs", line: 8, col: 5, sev: Error, msg: "cannot find function `undefined_fn` in this scope: not found in this scope", code: "E0425", source: "rustc"},
			},
			unlocated: []string{"error: could not compile `rust` (lib) due to 3 previous errors"},
		},
		{
			// The human form gives the same findings as the short one, with
			// the primary span's end from its carets.
			fixture: "cargo_human.txt",
			wants: []want{
				{path: "src/lib.rs", line: 3, col: 21, endCol: 26, sev: Error, msg: "mismatched types: expected `String`, found `i32`", code: "E0308", source: "rustc"},
				{path: "src/lib.rs", line: 4, col: 5, endCol: 6, sev: Error, msg: "mismatched types: expected `i32`, found `String`", code: "E0308", source: "rustc"},
				{path: "src/lib.rs", line: 8, col: 5, endCol: 17, sev: Error, msg: "cannot find function `undefined_fn` in this scope: not found in this scope", code: "E0425", source: "rustc"},
			},
			unlocated: []string{
				"Some errors have detailed explanations: E0308, E0425.",
				"For more information about an error, try `rustc --explain E0308`.",
				"error: could not compile `rust` (lib) due to 3 previous errors",
			},
		},
		{
			fixture: "cargo_warn_short.txt",
			wants: []want{
				{path: "src/lib.rs", line: 2, col: 9, sev: Warning, msg: "unused variable: `unused`: help: if this is intentional, prefix it with an underscore: `_unused`", source: "rustc"},
			},
			unlocated: []string{"warning: `rusttest` (lib) generated 1 warning (run `cargo fix --lib -p rusttest` to apply 1 suggestion)"},
		},
		{
			// Test panics, with RUST_BACKTRACE=1 stacks that are noise.
			fixture: "cargo_test.txt",
			wants: []want{
				{path: "src/lib.rs", line: 2, col: 9, endCol: 15, sev: Warning, msg: "unused variable: `unused`: help: if this is intentional, prefix it with an underscore: `_unused`", source: "rustc"},
				{path: "src/lib.rs", line: 12, col: 9, sev: Error, msg: "assertion `left == right` failed\n  left: 0\n right: 4 (thread 'tests::it_adds')", source: "cargo test"},
				{path: "src/lib.rs", line: 18, col: 18, sev: Error, msg: "index out of bounds: the len is 0 but the index is 3 (thread 'tests::it_panics')", source: "cargo test"},
			},
			unlocated: []string{
				"warning: `rusttest` (lib) generated 1 warning (run `cargo fix --lib -p rusttest` to apply 1 suggestion)",
				"warning: `rusttest` (lib test) generated 1 warning (1 duplicate)",
				"test tests::it_adds ... FAILED",
				"test tests::it_panics ... FAILED",
				"failures:",
				"tests::it_adds",
				"tests::it_panics",
				"test result: FAILED. 1 passed; 2 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.09s",
				"error: test failed, to rerun pass `--lib`",
			},
		},
	})
}

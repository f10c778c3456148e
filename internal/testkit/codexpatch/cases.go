// Package codexpatch is test data: the cases of Codex's own apply_patch
// tests (openai/codex, codex-rs/apply-patch) written down as facts, a
// patch, the files before and the files after or a refusal, so that
// agentls's apply_patch is held to what the models trained on it expect.
// The tools' unit tests run the table through a disk workspace and an
// editor's buffers; the end-to-end tests run it through the binary.
//
// The table is our own wording of those facts; no code or text of Codex is
// copied. Where agentls differs on purpose, the case says so (AllOrNothing).
package codexpatch

// Case is one test case.
type Case struct {
	// Source is where the case comes from in codex-rs/apply-patch:
	// "scenario 003", "lib.rs", "tool.rs", "parser.rs", "seek_sequence.rs".
	Source string
	Name   string
	Before map[string]string // workspace-relative path → content
	Patch  string
	// After is every file afterwards (a file absent from it must not
	// exist); nil with Refused.
	After map[string]string
	// Refused: Codex refuses the patch and changes nothing.
	Refused bool
	// AllOrNothing marks the case where Codex refuses the patch but keeps
	// what an earlier part did (CodexAfter): agentls, deliberately,
	// changes nothing when any part fails.
	AllOrNothing bool
	CodexAfter   map[string]string

	extra bool
}

// Counted says whether the case is one of the 55 of Codex's tests the
// table is measured on (the rest are extra cases of the same rules).
func (c Case) Counted() bool { return !c.extra }

func wrap(body string) string { return "*** Begin Patch\n" + body + "\n*** End Patch" }

// Cases are the 55 cases, then the extra ones.
var Cases = append(append(append(append(append(scenarios, libCases...), toolCases...), parserCases...), seekCases...), extra...)

var scenarios = []Case{
	{Source: "scenario 001", Name: "add a file",
		Before: map[string]string{},
		Patch:  "*** Begin Patch\n*** Add File: bar.md\n+This is a new file\n*** End Patch\n",
		After:  map[string]string{"bar.md": "This is a new file\n"}},
	{Source: "scenario 002", Name: "add, delete and update in one patch",
		Before: map[string]string{"delete.txt": "obsolete\n", "modify.txt": "line1\nline2\n"},
		Patch:  "*** Begin Patch\n*** Add File: nested/new.txt\n+created\n*** Delete File: delete.txt\n*** Update File: modify.txt\n@@\n-line2\n+changed\n*** End Patch\n",
		After:  map[string]string{"nested/new.txt": "created\n", "modify.txt": "line1\nchanged\n"}},
	{Source: "scenario 003", Name: "two hunks in one file",
		Before: map[string]string{"multi.txt": "line1\nline2\nline3\nline4\n"},
		Patch:  "*** Begin Patch\n*** Update File: multi.txt\n@@\n-line2\n+changed2\n@@\n-line4\n+changed4\n*** End Patch\n",
		After:  map[string]string{"multi.txt": "line1\nchanged2\nline3\nchanged4\n"}},
	{Source: "scenario 004", Name: "move into a new directory",
		Before: map[string]string{"old/name.txt": "old content\n", "old/other.txt": "unrelated\n"},
		Patch:  "*** Begin Patch\n*** Update File: old/name.txt\n*** Move to: renamed/dir/name.txt\n@@\n-old content\n+new content\n*** End Patch\n",
		After:  map[string]string{"renamed/dir/name.txt": "new content\n", "old/other.txt": "unrelated\n"}},
	{Source: "scenario 005", Name: "an empty patch is refused",
		Before:  map[string]string{"foo.txt": "stable\n"},
		Patch:   "*** Begin Patch\n*** End Patch\n",
		Refused: true},
	{Source: "scenario 006", Name: "a hunk whose lines are missing is refused",
		Before:  map[string]string{"modify.txt": "line1\nline2\n"},
		Patch:   "*** Begin Patch\n*** Update File: modify.txt\n@@\n-missing\n+changed\n*** End Patch\n",
		Refused: true},
	{Source: "scenario 007", Name: "deleting a missing file is refused",
		Before:  map[string]string{"foo.txt": "stable\n"},
		Patch:   "*** Begin Patch\n*** Delete File: missing.txt\n*** End Patch\n",
		Refused: true},
	{Source: "scenario 008", Name: "an update without a hunk is refused",
		Before:  map[string]string{"foo.txt": "stable\n"},
		Patch:   "*** Begin Patch\n*** Update File: foo.txt\n*** End Patch\n",
		Refused: true},
	{Source: "scenario 009", Name: "updating a missing file is refused",
		Before:  map[string]string{"foo.txt": "stable\n"},
		Patch:   "*** Begin Patch\n*** Update File: missing.txt\n@@\n-old\n+new\n*** End Patch\n",
		Refused: true},
	{Source: "scenario 010", Name: "a move onto an existing file replaces it",
		Before: map[string]string{"old/name.txt": "from\n", "old/other.txt": "unrelated\n", "renamed/dir/name.txt": "existing\n"},
		Patch:  "*** Begin Patch\n*** Update File: old/name.txt\n*** Move to: renamed/dir/name.txt\n@@\n-from\n+new\n*** End Patch\n",
		After:  map[string]string{"old/other.txt": "unrelated\n", "renamed/dir/name.txt": "new\n"}},
	{Source: "scenario 011", Name: "an added file replaces an existing one",
		Before: map[string]string{"duplicate.txt": "old content\n"},
		Patch:  "*** Begin Patch\n*** Add File: duplicate.txt\n+new content\n*** End Patch\n",
		After:  map[string]string{"duplicate.txt": "new content\n"}},
	{Source: "scenario 012", Name: "deleting a directory is refused",
		Before:  map[string]string{"dir/foo.txt": "stable\n"},
		Patch:   "*** Begin Patch\n*** Delete File: dir\n*** End Patch\n",
		Refused: true},
	{Source: "scenario 013", Name: "an unknown file header is refused",
		Before:  map[string]string{"foo.txt": "stable\n"},
		Patch:   "*** Begin Patch\n*** Frobnicate File: foo\n*** End Patch\n",
		Refused: true},
	{Source: "scenario 014", Name: "an updated file ends with a line break",
		Before: map[string]string{"no_newline.txt": "no newline at end"},
		Patch:  "*** Begin Patch\n*** Update File: no_newline.txt\n@@\n-no newline at end\n+first line\n+second line\n*** End Patch\n",
		After:  map[string]string{"no_newline.txt": "first line\nsecond line\n"}},
	{Source: "scenario 015", Name: "a part that fails after one that applied",
		Before:       map[string]string{},
		Patch:        "*** Begin Patch\n*** Add File: created.txt\n+hello\n*** Update File: missing.txt\n@@\n-old\n+new\n*** End Patch\n",
		Refused:      true,
		AllOrNothing: true,
		CodexAfter:   map[string]string{"created.txt": "hello\n"}},
	{Source: "scenario 016", Name: "a hunk of only added lines goes at the end",
		Before: map[string]string{"input.txt": "line1\nline2\n"},
		Patch:  "*** Begin Patch\n*** Update File: input.txt\n@@\n+added line 1\n+added line 2\n*** End Patch\n",
		After:  map[string]string{"input.txt": "line1\nline2\nadded line 1\nadded line 2\n"}},
	{Source: "scenario 017", Name: "a file header with leading spaces",
		Before: map[string]string{"foo.txt": "old\n"},
		Patch:  "*** Begin Patch\n  *** Update File: foo.txt\n@@\n-old\n+new\n*** End Patch\n",
		After:  map[string]string{"foo.txt": "new\n"}},
	{Source: "scenario 018", Name: "begin and end markers padded with spaces",
		Before: map[string]string{"file.txt": "one\n"},
		Patch:  " *** Begin Patch\n*** Update File: file.txt\n@@\n-one\n+two\n*** End Patch \n",
		After:  map[string]string{"file.txt": "two\n"}},
	{Source: "scenario 019", Name: "non-ASCII text",
		Before: map[string]string{"foo.txt": "line1\nnaïve café\nline3\n"},
		Patch:  "*** Begin Patch\n*** Update File: foo.txt\n@@\n line1\n-naïve café\n+naïve café ✅\n*** End Patch \n",
		After:  map[string]string{"foo.txt": "line1\nnaïve café ✅\nline3\n"}},
	{Source: "scenario 020", Name: "delete a file",
		Before: map[string]string{"obsolete.txt": "obsolete\n", "keep.txt": "keep\n"},
		Patch:  "*** Begin Patch\n*** Delete File: obsolete.txt\n*** End Patch\n",
		After:  map[string]string{"keep.txt": "keep\n"}},
	{Source: "scenario 020", Name: "marker lines with spaces after and before",
		Before: map[string]string{"file.txt": "one\n"},
		Patch:  "*** Begin Patch \n*** Update File: file.txt\n@@\n-one\n+two\n *** End Patch\n",
		After:  map[string]string{"file.txt": "two\n"}},
	{Source: "scenario 021", Name: "a hunk that only removes",
		Before: map[string]string{"lines.txt": "line1\nline2\nline3\n"},
		Patch:  "*** Begin Patch\n*** Update File: lines.txt\n@@\n line1\n-line2\n line3\n*** End Patch\n",
		After:  map[string]string{"lines.txt": "line1\nline3\n"}},
	{Source: "scenario 022", Name: "a hunk at the end of the file",
		Before: map[string]string{"tail.txt": "first\nsecond\n"},
		Patch:  "*** Begin Patch\n*** Update File: tail.txt\n@@\n first\n-second\n+second updated\n*** End of File\n*** End Patch\n",
		After:  map[string]string{"tail.txt": "first\nsecond updated\n"}},
}

var libCases = []Case{
	{Source: "lib.rs", Name: "add a file of two lines",
		Before: map[string]string{},
		Patch:  wrap("*** Add File: add.txt\n+ab\n+cd"),
		After:  map[string]string{"add.txt": "ab\ncd\n"}},
	{Source: "lib.rs", Name: "delete a file without a line break",
		Before: map[string]string{"del.txt": "x"},
		Patch:  wrap("*** Delete File: del.txt"),
		After:  map[string]string{}},
	{Source: "lib.rs", Name: "update a line after context",
		Before: map[string]string{"update.txt": "foo\nbar\n"},
		Patch:  wrap("*** Update File: update.txt\n@@\n foo\n-bar\n+baz"),
		After:  map[string]string{"update.txt": "foo\nbaz\n"}},
	{Source: "lib.rs", Name: "move and update",
		Before: map[string]string{"src.txt": "line\n"},
		Patch:  wrap("*** Update File: src.txt\n*** Move to: dst.txt\n@@\n-line\n+line2"),
		After:  map[string]string{"dst.txt": "line2\n"}},
	{Source: "lib.rs", Name: "two hunks with context",
		Before: map[string]string{"multi.txt": "foo\nbar\nbaz\nqux\n"},
		Patch:  wrap("*** Update File: multi.txt\n@@\n foo\n-bar\n+BAR\n@@\n baz\n-qux\n+QUX"),
		After:  map[string]string{"multi.txt": "foo\nBAR\nbaz\nQUX\n"}},
	{Source: "lib.rs", Name: "interleaved hunks and an addition at the end",
		Before: map[string]string{"interleaved.txt": "a\nb\nc\nd\ne\nf\n"},
		Patch:  wrap("*** Update File: interleaved.txt\n@@\n a\n-b\n+B\n@@\n c\n d\n-e\n+E\n@@\n f\n+g\n*** End of File"),
		After:  map[string]string{"interleaved.txt": "a\nB\nc\nd\nE\nf\ng\n"}},
	{Source: "lib.rs", Name: "a hunk of added lines, then one that replaces",
		Before: map[string]string{"panic.txt": "line1\nline2\nline3\n"},
		Patch:  wrap("*** Update File: panic.txt\n@@\n+after-context\n+second-line\n@@\n line1\n-line2\n-line3\n+line2-replacement"),
		After:  map[string]string{"panic.txt": "line1\nline2-replacement\nafter-context\nsecond-line\n"}},
	{Source: "lib.rs", Name: "ASCII dashes match Unicode ones",
		Before: map[string]string{"unicode.py": "import asyncio  # local import \u2013 avoids top\u2011level dep\n"},
		Patch:  wrap("*** Update File: unicode.py\n@@\n-import asyncio  # local import - avoids top-level dep\n+import asyncio  # HELLO"),
		After:  map[string]string{"unicode.py": "import asyncio  # HELLO\n"}},
	{Source: "lib.rs", Name: "replace the first line (a trailing empty hunk line)",
		Before: map[string]string{"first.txt": "foo\nbar\nbaz\n"},
		Patch:  wrap("*** Update File: first.txt\n@@\n-foo\n+FOO\n bar\n"),
		After:  map[string]string{"first.txt": "FOO\nbar\nbaz\n"}},
	{Source: "lib.rs", Name: "replace the last line (a trailing empty hunk line)",
		Before: map[string]string{"last.txt": "foo\nbar\nbaz\n"},
		Patch:  wrap("*** Update File: last.txt\n@@\n foo\n bar\n-baz\n+BAZ\n"),
		After:  map[string]string{"last.txt": "foo\nbar\nBAZ\n"}},
	{Source: "lib.rs", Name: "insert at the end of the file",
		Before: map[string]string{"insert.txt": "foo\nbar\nbaz\n"},
		Patch:  wrap("*** Update File: insert.txt\n@@\n+quux\n*** End of File\n"),
		After:  map[string]string{"insert.txt": "foo\nbar\nbaz\nquux\n"}},
}

var toolCases = []Case{
	{Source: "tool.rs", Name: "CRLF kept for changed and added lines",
		Before: map[string]string{"crlf.txt": "one\r\ntwo\r\nthree\r\n"},
		Patch:  wrap("*** Update File: crlf.txt\n@@\n-one\n+uno\n@@\n two\n+\n+between\n three"),
		After:  map[string]string{"crlf.txt": "uno\r\ntwo\r\n\r\nbetween\r\nthree\r\n"}},
	{Source: "tool.rs", Name: "repeated lines keep the order of the change",
		Before: map[string]string{"repeated.txt": "a\nb\n"},
		Patch:  wrap("*** Update File: repeated.txt\n@@\n-a\n-b\n+b\n+b\n+a"),
		After:  map[string]string{"repeated.txt": "b\nb\na\n"}},
	{Source: "tool.rs", Name: "a context line keeps its own line ending",
		Before: map[string]string{"repeated_context.txt": "same\r\nsame\n"},
		Patch:  wrap("*** Update File: repeated_context.txt\n@@\n-same\n same"),
		After:  map[string]string{"repeated_context.txt": "same\n"}},
	{Source: "tool.rs", Name: "mixed line endings: untouched lines keep theirs",
		Before: map[string]string{"mixed.txt": "one\r\ntwo\nthree\r\nfour\n"},
		Patch:  wrap("*** Update File: mixed.txt\n@@\n one\n two\n-three\n+THREE\n four"),
		After:  map[string]string{"mixed.txt": "one\r\ntwo\nTHREE\r\nfour\n"}},
	{Source: "tool.rs", Name: "a new final line break is CRLF in a CRLF file",
		Before: map[string]string{"no_trailing_newline.txt": "one\r\ntwo"},
		Patch:  wrap("*** Update File: no_trailing_newline.txt\n@@\n-one\n+ONE"),
		After:  map[string]string{"no_trailing_newline.txt": "ONE\r\ntwo\r\n"}},
}

const file2 = "*** Begin Patch\n*** Update File: file2.py\n import foo\n+bar\n*** End Patch"

var parserCases = []Case{
	{Source: "parser.rs", Name: "no Begin Patch line",
		Before: map[string]string{"foo": "x\n"}, Patch: "bad", Refused: true},
	{Source: "parser.rs", Name: "no End Patch line",
		Before: map[string]string{"foo": "x\n"}, Patch: "*** Begin Patch\nbad", Refused: true},
	{Source: "parser.rs", Name: "markers with a space after",
		Before: map[string]string{},
		Patch:  "*** Begin Patch \n*** Add File: foo\n+hi\n *** End Patch",
		After:  map[string]string{"foo": "hi\n"}},
	{Source: "parser.rs", Name: "an update with no hunk",
		Before: map[string]string{"test.py": "x\n"}, Patch: "*** Begin Patch\n*** Update File: test.py\n*** End Patch", Refused: true},
	{Source: "parser.rs", Name: "add, delete, and move with an @@ line",
		Before: map[string]string{"path/delete.py": "gone\n", "path/update.py": "def f():\n    pass\n"},
		Patch:  wrap("*** Add File: path/add.py\n+abc\n+def\n*** Delete File: path/delete.py\n*** Update File: path/update.py\n*** Move to: path/update2.py\n@@ def f():\n-    pass\n+    return 123"),
		After:  map[string]string{"path/add.py": "abc\ndef\n", "path/update2.py": "def f():\n    return 123\n"}},
	{Source: "parser.rs", Name: "an update of added lines, then an added file",
		Before: map[string]string{"file.py": "import os\n"},
		Patch:  wrap("*** Update File: file.py\n@@\n+line\n*** Add File: other.py\n+content"),
		After:  map[string]string{"file.py": "import os\nline\n", "other.py": "content\n"}},
	{Source: "parser.rs", Name: "a first hunk without @@",
		Before: map[string]string{"file2.py": "import foo\n"},
		Patch:  file2,
		After:  map[string]string{"file2.py": "import foo\nbar\n"}},
	{Source: "parser.rs", Name: "in a heredoc <<EOF",
		Before: map[string]string{"file2.py": "import foo\n"},
		Patch:  "<<EOF\n" + file2 + "\nEOF\n",
		After:  map[string]string{"file2.py": "import foo\nbar\n"}},
	{Source: "parser.rs", Name: "in a heredoc <<'EOF'",
		Before: map[string]string{"file2.py": "import foo\n"},
		Patch:  "<<'EOF'\n" + file2 + "\nEOF\n",
		After:  map[string]string{"file2.py": "import foo\nbar\n"}},
	{Source: "parser.rs", Name: `in a heredoc <<"EOF"`,
		Before: map[string]string{"file2.py": "import foo\n"},
		Patch:  "<<\"EOF\"\n" + file2 + "\nEOF\n",
		After:  map[string]string{"file2.py": "import foo\nbar\n"}},
	{Source: "parser.rs", Name: "@@ then *** End of File: a hunk with no line",
		Before: map[string]string{"foo.txt": "x\n"}, Patch: wrap("*** Update File: foo.txt\n@@\n*** End of File"), Refused: true},
	{Source: "parser.rs", Name: "an @@ line, an empty context line, context, a change",
		Before: map[string]string{"chunk.txt": "change_context\n\ncontext\nremove\ncontext2\n"},
		Patch:  wrap("*** Update File: chunk.txt\n@@ change_context\n\n context\n-remove\n+add\n context2"),
		After:  map[string]string{"chunk.txt": "change_context\n\ncontext\nadd\ncontext2\n"}},
}

var seekCases = []Case{
	{Source: "seek_sequence.rs", Name: "exact match",
		Before: map[string]string{"s.txt": "foo\nbar\nbaz\n"},
		Patch:  wrap("*** Update File: s.txt\n@@\n-bar\n-baz\n+qux"),
		After:  map[string]string{"s.txt": "foo\nqux\n"}},
	{Source: "seek_sequence.rs", Name: "trailing whitespace ignored",
		Before: map[string]string{"s.txt": "foo   \nbar\t\t\n"},
		Patch:  wrap("*** Update File: s.txt\n@@\n-foo\n-bar\n+x"),
		After:  map[string]string{"s.txt": "x\n"}},
	{Source: "seek_sequence.rs", Name: "surrounding whitespace ignored",
		Before: map[string]string{"s.txt": "    foo   \n   bar\t\n"},
		Patch:  wrap("*** Update File: s.txt\n@@\n-foo\n-bar\n+x"),
		After:  map[string]string{"s.txt": "x\n"}},
	{Source: "seek_sequence.rs", Name: "more lines than the file has",
		Before:  map[string]string{"s.txt": "just one line\n"},
		Patch:   wrap("*** Update File: s.txt\n@@\n-too\n-many\n-lines\n+x"),
		Refused: true},
}

// extra are cases of the same rules beyond the 55.
var extra = []Case{
	{Source: "parser.rs", Name: "mismatched heredoc quotes", extra: true,
		Before: map[string]string{"file2.py": "import foo\n"}, Patch: "<<\"EOF'\n" + file2 + "\nEOF\n", Refused: true},
	{Source: "parser.rs", Name: "a heredoc without End Patch", extra: true,
		Before: map[string]string{"file2.py": "import foo\n"}, Patch: "<<EOF\n*** Begin Patch\n*** Update File: file2.py\nEOF\n", Refused: true},
	{Source: "parser.rs", Name: "a hunk line with no prefix", extra: true,
		Before: map[string]string{"foo.txt": "x\n"}, Patch: wrap("*** Update File: foo.txt\n@@\nbad"), Refused: true},
	{Source: "agentls", Name: "read_file's line numbers pasted into a hunk", extra: true,
		Before: map[string]string{"n.go": "package n\n\nfunc A() int {\n\treturn 1\n}\n"},
		Patch:  wrap("*** Update File: n.go\n@@\n 3\tfunc A() int {\n-4\t\treturn 1\n+4\t\treturn 2\n 5\t}"),
		After:  map[string]string{"n.go": "package n\n\nfunc A() int {\n\treturn 2\n}\n"}},
	{Source: "agentls", Name: "a pure addition in a Python file goes below the imports", extra: true,
		Before: map[string]string{"m.py": "import os\n\n\ndef f():\n    return os.sep\n"},
		Patch:  wrap("*** Update File: m.py\n@@\n+\n+\n+def g():\n+    return 1"),
		After:  map[string]string{"m.py": "import os\n\n\ndef f():\n    return os.sep\n\n\ndef g():\n    return 1\n"}},
}

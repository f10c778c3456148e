package tools

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// binarySniffLen is how much of a file is searched for a NUL byte, as git
// and grep do: enough to catch real binaries, cheap on big text files.
const binarySniffLen = 8 << 10

// maxEditSize bounds the files edit_file takes. An edit is a replacement
// in the text, and the diff that carries it to the editor, the session and
// the review cuts the unchanged lines at both ends with a memory compare,
// so a few places changed in a big file stay cheap (a one-line edit of a
// 32 MiB file, both diffs included, takes about 0.1 s: BenchmarkEditLargeFile). Above it, holding the file
// several times over (old, new, diff) is the cost, and such a file is data
// or generated: the message says so.
const maxEditSize = 32 << 20

// maxWriteSize bounds write_file's content: the model writes it all out,
// and a whole new text is diffed against the old one line by line.
const maxWriteSize = 2 << 20

// isBinary reports whether b should be treated as binary: a NUL byte in the
// first 8 KB, or text that is not valid UTF-8 (which the editor could not
// round-trip through LSP's UTF-16 positions).
func isBinary(b []byte) bool {
	return hasNUL(b) || !utf8.Valid(b)
}

func hasNUL(b []byte) bool {
	return bytes.IndexByte(b[:min(len(b), binarySniffLen)], 0) >= 0
}

// isCRLF reports whether every line break of s is CRLF (and there is at
// least one). Only then are edits done on LF text and converted back, so a
// file with mixed endings is never normalised.
func isCRLF(s string) bool {
	n := strings.Count(s, "\n")
	return n > 0 && strings.Count(s, "\r\n") == n
}

// splitLines splits text into lines without their terminators; a final line
// break does not start another line.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	s = strings.TrimSuffix(s, "\n")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// numbered writes lines[from-1:to], each after its 1-based number and a
// tab (unpadded: cat -n's padding to six columns cost two tokens a line).
func numbered(sb *strings.Builder, lines []string, from, to int) {
	for i := from; i <= to; i++ {
		fmt.Fprintf(sb, "%d\t%s\n", i, lines[i-1])
	}
}

// lineAt returns the 1-based line of byte offset off in s.
func lineAt(s string, off int) int {
	return 1 + strings.Count(s[:off], "\n")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

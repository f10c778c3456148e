package edits

import (
	"bytes"
	"errors"
	"fmt"
	"unicode/utf8"
)

// DefaultMaxSize is the largest file CheckText accepts when given no limit.
// Diffing and position mapping stay fast well past it; the limit is about
// what is sensible to put in a model's context and send over LSP.
const DefaultMaxSize = 2 << 20

// binarySniffLen is how much of a file is searched for a NUL byte, the
// same heuristic git uses to call a file binary.
const binarySniffLen = 8 << 10

var (
	// ErrBinary reports content that is not UTF-8 text.
	ErrBinary = errors.New("not a UTF-8 text file")
	// ErrTooLarge reports content above the size limit.
	ErrTooLarge = errors.New("file too large")
)

// CheckText reports whether b is text this package can edit safely: at most
// maxSize bytes (DefaultMaxSize when maxSize <= 0), no NUL byte in its first
// 8 KB, and valid UTF-8 throughout. Invalid UTF-8 is refused because editors
// show it as U+FFFD, so positions and diffs would no longer describe the
// bytes on disk. The error wraps ErrTooLarge or ErrBinary.
func CheckText(b []byte, maxSize int) error {
	if maxSize <= 0 {
		maxSize = DefaultMaxSize
	}
	if len(b) > maxSize {
		return fmt.Errorf("%w: %d bytes, limit %d", ErrTooLarge, len(b), maxSize)
	}
	if i := bytes.IndexByte(b[:min(len(b), binarySniffLen)], 0); i >= 0 {
		return fmt.Errorf("%w: NUL byte at offset %d", ErrBinary, i)
	}
	if !utf8.Valid(b) {
		return fmt.Errorf("%w: invalid UTF-8 at offset %d", ErrBinary, firstInvalid(b))
	}
	return nil
}

func firstInvalid(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return -1
}

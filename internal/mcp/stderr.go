package mcp

import (
	"bytes"
	"strings"
	"sync"

	"go.uber.org/zap"
)

// tailSize is how much of a server's stderr is kept: enough for the error
// that made it exit, small enough to put in a message to the user.
const tailSize = 2 << 10

// tail keeps the last tailSize bytes a server wrote to stderr and logs
// each complete line at debug level. Its methods accept a nil receiver
// (URL servers have no stderr).
type tail struct {
	log *zap.Logger

	mu   sync.Mutex
	buf  []byte
	line []byte // the unfinished last line, for the log
}

func newTail(log *zap.Logger) *tail { return &tail{log: log} }

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - tailSize; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	t.line = append(t.line, p...)
	for {
		i := bytes.IndexByte(t.line, '\n')
		if i < 0 {
			break
		}
		t.log.Debug("mcp server stderr", zap.ByteString("line", t.line[:i]))
		t.line = t.line[i+1:]
	}
	if len(t.line) > tailSize { // a runaway line is logged in pieces
		t.log.Debug("mcp server stderr", zap.ByteString("line", t.line))
		t.line = nil
	}
	t.line = append([]byte(nil), t.line...)
	return len(p), nil
}

// String is the kept stderr, trimmed, starting at a line boundary when
// some was cut.
func (t *tail) String() string {
	if t == nil {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.buf
	if len(s) == tailSize {
		if i := bytes.IndexByte(s, '\n'); i >= 0 && i < len(s)-1 {
			s = s[i+1:]
		}
	}
	return strings.TrimSpace(strings.ToValidUTF8(string(s), "\uFFFD"))
}

// suffix is the stderr tail formatted to end an error message, or "".
func (t *tail) suffix() string {
	s := t.String()
	if s == "" {
		return ""
	}
	return "; stderr:\n" + s
}

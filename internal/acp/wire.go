package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"sync"

	"go.uber.org/zap"
)

// lockedWriter serializes whole messages from the connection and from
// screenMalformed on the one output stream.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// maxLine bounds one message (the SDK's own limit).
const maxLine = 10 << 20

// screenMalformed passes the well-formed lines of in on and answers the
// others itself: the SDK drops a line that is not JSON without a word, and
// JSON-RPC wants a parse error (-32700) or an invalid request (-32600), with
// a null id. The connection keeps serving either way.
func screenMalformed(in io.Reader, out io.Writer, log *zap.Logger) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		defer recoverLog(log, "reading the client's messages")
		// After a panic too: the connection sees the end of its input and
		// Serve returns, instead of the reader waiting for ever.
		defer pw.Close()
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 0, 64<<10), maxLine)
		for sc.Scan() {
			line := bytes.TrimSpace(sc.Bytes())
			if len(line) == 0 {
				continue
			}
			if msg := malformed(line); msg != nil {
				log.Warn("malformed message", zap.ByteString("line", line[:min(len(line), 200)]))
				_, _ = out.Write(msg)
				continue
			}
			if _, err := pw.Write(append(line, '\n')); err != nil {
				return
			}
		}
		pw.CloseWithError(sc.Err())
	}()
	return pr
}

// malformed returns the error reply for a line that is not a JSON-RPC
// message, or nil.
func malformed(line []byte) []byte {
	reply := func(code int, message, detail string) []byte {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil,
			"error": map[string]any{"code": code, "message": message, "data": map[string]any{"error": detail}}})
		return append(b, '\n')
	}
	if !json.Valid(line) {
		return reply(-32700, "Parse error", "the message is not valid JSON")
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil {
		return reply(-32600, "Invalid request", "a message must be a JSON object")
	}
	if string(m["jsonrpc"]) != `"2.0"` {
		return reply(-32600, "Invalid request", `"jsonrpc" must be "2.0"`)
	}
	_, hasMethod := m["method"]
	_, hasID := m["id"]
	if !hasMethod && !hasID {
		return reply(-32600, "Invalid request", "a message needs a method or an id")
	}
	return nil
}

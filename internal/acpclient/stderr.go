package acpclient

import (
	"bytes"
	"sync"

	"go.uber.org/zap"
)

// maxStderrLine is where a runaway stderr line is cut and logged in pieces.
const maxStderrLine = 16 << 10

// agentStderr logs the agent's stderr line by line. Its Write always
// reports the whole buffer written: os/exec copies the agent's stderr pipe
// into it and stops at a short write, closing the pipe, after which the
// agent's next line fails with EPIPE. zap's standard-library writer, used
// here before, reports the length of the trimmed text, so it stopped the
// copy at the first line; Codex (codex-acp) then panicked writing its next
// log line, dying before initialize or losing its turn mid-prompt.
type agentStderr struct {
	log  *zap.Logger
	mu   sync.Mutex
	line []byte
}

func newAgentStderr(log *zap.Logger) *agentStderr { return &agentStderr{log: log} }

func (s *agentStderr) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.line = append(s.line, p...)
	for {
		i := bytes.IndexByte(s.line, '\n')
		if i < 0 {
			break
		}
		s.emit(s.line[:i])
		s.line = s.line[i+1:]
	}
	if len(s.line) > maxStderrLine {
		s.emit(s.line)
		s.line = nil
	}
	s.line = append([]byte(nil), s.line...)
	return len(p), nil
}

func (s *agentStderr) emit(line []byte) {
	if line = bytes.TrimSpace(line); len(line) > 0 {
		s.log.Info("ACP agent stderr", zap.ByteString("line", line))
	}
}

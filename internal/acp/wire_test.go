package acp

import (
	"io"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
)

type panicWriter struct{}

func (panicWriter) Write([]byte) (int, error) { panic("write") }

// A panic in the goroutine that screens the client's lines ends the
// connection's input, so the connection ends; it used to leave its reader
// blocked for ever, and Serve with it.
func TestScreenMalformedPanicEndsTheInput(t *testing.T) {
	r := screenMalformed(strings.NewReader("not json\n"), panicWriter{}, zap.NewNop())
	done := make(chan error, 1)
	go func() {
		_, err := io.ReadAll(r)
		done <- err
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the input did not end after the screening goroutine panicked")
	}
}

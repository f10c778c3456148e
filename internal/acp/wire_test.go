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

// A message over the size limit is refused under its id and the
// connection keeps serving: the SDK's reader used to end the connection on
// it, so a prompt with a few large images took the whole session down.
func TestScreenRefusesAnOversizedMessageAndGoesOn(t *testing.T) {
	bulk := strings.Repeat("A", maxLine)
	in := `{"jsonrpc":"2.0","id":7,"method":"session/prompt","params":{"data":"` + bulk + `"}}` + "\n" +
		`{"jsonrpc":"2.0","method":"session/prompt","params":{"data":"` + bulk + `"},"id":8}` + "\n" +
		`{"jsonrpc":"2.0","id":9,"method":"session/cancel","params":{}}` + "\n"
	var out strings.Builder
	passed, err := io.ReadAll(screenMalformed(strings.NewReader(in), &out, zap.NewNop()))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(passed); got != `{"jsonrpc":"2.0","id":9,"method":"session/cancel","params":{}}`+"\n" {
		t.Errorf("passed on to the SDK: %.200q", got)
	}
	replies := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(replies) != 2 {
		t.Fatalf("replies: %q", replies)
	}
	for i, id := range []string{`"id":7`, `"id":null`} {
		if r := replies[i]; !strings.Contains(r, id) || !strings.Contains(r, "-32600") || !strings.Contains(r, "over agentls's limit of 10 MB") {
			t.Errorf("reply %d: %s", i, r)
		}
	}
}

// A message at the limit (with its newline, as the SDK counts) passes
// whole.
func TestScreenPassesAMessageUnderTheLimit(t *testing.T) {
	msg := `{"jsonrpc":"2.0","id":1,"method":"x","params":{"data":"`
	msg += strings.Repeat("B", maxLine-1-len(msg)-3) + `"}}`
	passed, err := io.ReadAll(screenMalformed(strings.NewReader(msg+"\n"), io.Discard, zap.NewNop()))
	if err != nil || string(passed) != msg+"\n" {
		t.Errorf("%d bytes passed of %d, err %v", len(passed), len(msg)+1, err)
	}
}

// screenMalformed is screen without requests of its own to answer: the
// tests' view of how malformed lines are answered.
func screenMalformed(in io.Reader, out io.Writer, log *zap.Logger) io.Reader {
	return screen(in, out, log, nil, nil)
}

package e2e

import (
	"bufio"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// Garbage on the wire, a response to a request never made, and a 100 MB
// message: the server answers what it can and keeps serving.
func TestWireGarbage(t *testing.T) {
	if testing.Short() {
		t.Skip("sends 100 MB")
	}
	root := t.TempDir()
	cmd := exec.Command(binary)
	cmd.Dir = root
	cmd.Env = []string{"HOME=" + root, "XDG_STATE_HOME=" + root}
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	frame := func(body string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body) }
	write := func(s string) {
		if _, err := io.WriteString(in, s); err != nil {
			t.Fatalf("write: %v\n%s", err, stderr.String())
		}
	}
	replies := make(chan string, 16)
	go func() {
		r := bufio.NewReader(out)
		for {
			body, err := readFrame(r)
			if err != nil {
				close(replies)
				return
			}
			replies <- body
		}
	}()
	next := func(what string) string {
		select {
		case b, ok := <-replies:
			if !ok {
				t.Fatalf("%s: server closed the stream\n%s", what, stderr.String())
			}
			return b
		case <-time.After(30 * time.Second):
			t.Fatalf("%s: no reply\n%s", what, stderr.String())
		}
		return ""
	}

	write(frame(`{{{{ not json`))
	write(frame(`{"jsonrpc":"2.0","id":4242,"result":{"applied":true}}`)) // nobody asked
	write(frame(`[]`))
	// 100 MB: a didOpen of a huge document before initialize is dropped.
	huge := `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///x","languageId":"t","version":1,"text":"` +
		strings.Repeat("a", 100<<20) + `"}}}`
	write(frame(huge))
	huge = ""
	write(frame(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":"file://%s","capabilities":{}}}`, root)))
	for {
		b := next("initialize")
		if strings.Contains(b, `"id":1`) {
			if !strings.Contains(b, `"executeCommandProvider"`) {
				t.Fatalf("initialize reply: %s", b)
			}
			break
		}
		// Error replies to the garbage come first (with a null id).
		if !strings.Contains(b, `"error"`) {
			t.Fatalf("unexpected message %s", b)
		}
	}
	write(frame(`{"jsonrpc":"2.0","id":2,"method":"workspace/executeCommand","params":{"command":"agentls.status","arguments":[{}]}}`))
	if b := next("status"); !strings.Contains(b, `"tasks"`) {
		t.Fatalf("status reply %s", b)
	}
}

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Over ACP, a command runs in a view whose writes are carried into the
// tree when it ends, through the write path (the client's fs when it
// offers it, else the disk), and recorded in the task's change log: what
// `sed -i` wrote is there after the task, and /undo restores it. On the old code the command wrote the disk directly,
// the change log did not hold it, and /undo left hello.txt as the command
// made it.
func TestACPCommandWritesAreUndone(t *testing.T) {
	for _, withFS := range []bool{false, true} {
		t.Run(fmt.Sprint("fs=", withFS), func(t *testing.T) {
			r := startACP(t, "hello", `{"turns":[
			 {"toolCalls":[{"id":"call_sed","name":"run_command","arguments":"{\"command\":\"sed -i s/hello/HELLO/ hello.txt && echo made > made.txt\"}"}]},
			 {"text":"Done."}]}`, withFS, nil)
			orig, err := os.ReadFile(filepath.Join(r.root, "hello.txt"))
			if err != nil {
				t.Fatal(err)
			}
			id := r.newSession(t)
			r.prompt(t, id, "shout")
			// With the client's fs, what the command wrote goes through it
			// (the write path): the client's buffers hold it.
			text := func(name string) string {
				if withFS {
					r.client.mu.Lock()
					defer r.client.mu.Unlock()
					b, ok := r.client.buffers[filepath.Join(r.root, name)]
					if !ok {
						return "(not written)"
					}
					return b
				}
				b, err := os.ReadFile(filepath.Join(r.root, name))
				if err != nil {
					return "(gone)"
				}
				return string(b)
			}
			if want := strings.Replace(string(orig), "hello", "HELLO", 1); text("hello.txt") != want {
				t.Fatalf("hello.txt after the command: %q, want %q", text("hello.txt"), want)
			}
			if text("made.txt") != "made\n" {
				t.Fatalf("made.txt after the command: %q", text("made.txt"))
			}
			if b, _ := os.ReadFile(filepath.Join(r.root, "hello.txt")); withFS && string(b) != string(orig) {
				t.Errorf("with the client's fs, the command's write went around it to the disk: %q", b)
			}
			n := len(r.client.snapshot())
			r.prompt(t, id, "/undo")
			said := agentText(r.client.snapshot()[n:])
			if withFS {
				// The undo goes out through the client's fs (its buffer);
				// a file the command made is named, as the client cannot
				// delete over ACP.
				if b := text("hello.txt"); b != string(orig) {
					t.Errorf("hello.txt's buffer after /undo: %q; agent said %q", b, said)
				}
				if !strings.Contains(said, "Undone: hello.txt") || !strings.Contains(said, "made.txt") {
					t.Errorf("/undo said %q", said)
				}
				return
			}
			if b, _ := os.ReadFile(filepath.Join(r.root, "hello.txt")); string(b) != string(orig) {
				t.Errorf("hello.txt after /undo: %q; agent said %q", b, said)
			}
			if _, err := os.Stat(filepath.Join(r.root, "made.txt")); err == nil {
				t.Errorf("made.txt, made by the command, is still there after /undo; agent said %q", said)
			}
		})
	}
}

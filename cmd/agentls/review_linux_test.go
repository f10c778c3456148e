//go:build linux

package main

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal pair, so --review can be driven as a
// person at a terminal would.
func openPTY() (master, tty *os.File, err error) {
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, err
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		m.Close()
		return nil, nil, err
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		m.Close()
		return nil, nil, err
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		return nil, nil, err
	}
	return m, s, nil
}

func TestReviewOnATerminal(t *testing.T) {
	master, tty, err := openPTY()
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer master.Close()
	e := newEnv(t, nil)
	srv := fakeModel(t, `{"turns": [
		{"toolCalls": [{"id": "e", "name": "edit_file", "arguments": "{\"path\":\"hello.txt\",\"old_string\":\"hello\",\"new_string\":\"goodbye\"}"}]},
		{"toolCalls": [{"id": "w", "name": "write_file", "arguments": "{\"path\":\"new.txt\",\"content\":\"new\\n\"}"}]},
		{"text": "Done."}
	]}`)
	cmd := e.command("run", "--review", "--base-url", srv.URL(), "edit and create")
	cmd.Stdin, cmd.Stderr = tty, tty
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()

	sc := readScreen(master)
	waitFor := func(str string, n int) { sc.waitFor(t, cmd.Process, str, n) }
	waitFor("[1/2] apply hello.txt (+1 -1)? [y]es [n]o [d]iff [a]ll [q]uit: ", 1)
	if _, err := os.ReadFile(e.ws + "/new.txt"); err == nil {
		t.Fatal("new.txt was written before the review")
	}
	master.WriteString("d\n")
	waitFor("+goodbye world", 1)
	waitFor("apply hello.txt", 2)
	master.WriteString("y\n")
	waitFor("[2/2] apply new.txt (+1 -0)?", 1)
	master.WriteString("n\n")
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v\n%s", err, sc.String())
	}
	files := snapshot(t, e.ws)
	if files["hello.txt"] != helloAfter {
		t.Errorf("hello.txt = %q", files["hello.txt"])
	}
	if _, ok := files["new.txt"]; ok {
		t.Error("new.txt was written although refused")
	}
	waitFor("wrote 1 of 2 changed files", 1)
	r := e.run("sessions", "--json")
	id := strings.Split(strings.Split(r.stdout, `"id": "`)[1], `"`)[0]
	r = e.run("sessions", "show", id)
	if !strings.Contains(r.stdout, "changed hello.txt") || strings.Contains(r.stdout, "new.txt") {
		t.Errorf("the session should hold the written change only:\n%s", r.stdout)
	}
}

// On a terminal, a command the policy does not allow is asked about;
// "always" covers the same command again; without a terminal it is refused.
func TestRunCommandAsksOnATerminal(t *testing.T) {
	master, tty, err := openPTY()
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer master.Close()
	e := newEnv(t, nil)
	script := `{"turns": [
		{"toolCalls": [{"id": "a", "name": "run_command", "arguments": "{\"command\":\"echo asked > ran.txt\"}"}]},
		{"toolCalls": [{"id": "b", "name": "run_command", "arguments": "{\"command\":\"echo asked > ran.txt\"}"}]},
		{"text": "Done."}
	]}`
	srv := fakeModel(t, script)
	cmd := e.command("run", "--no-verify", "--base-url", srv.URL(), "run it")
	cmd.Stdin, cmd.Stderr = tty, tty
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	sc := readScreen(master)
	sc.waitFor(t, cmd.Process, "Run it? [y]es once, [a]lways this command, [n]o: ", 1)
	master.WriteString("a\n")
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v\n%s", err, sc.String())
	}
	asked := strings.Count(sc.String(), "Run it?")
	if asked != 1 {
		t.Errorf("asked %d times, want once (always)", asked)
	}
	if files := snapshot(t, e.ws); files["ran.txt"] != "asked\n" {
		t.Errorf("ran.txt = %q", files["ran.txt"])
	}

	// No terminal: the policy alone, and its refusal says how to allow.
	e2 := newEnv(t, nil)
	srv2 := fakeModel(t, `{"turns": [
		{"toolCalls": [{"id": "a", "name": "run_command", "arguments": "{\"command\":\"touch x\"}"}]},
		{"expect": {"lastToolContains": "tools.allow"}, "text": "Denied."}]}`)
	if r := e2.run("run", "--no-verify", "--base-url", srv2.URL(), "run it"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if _, ok := snapshot(t, e2.ws)["x"]; ok {
		t.Error("command ran without a terminal and outside the policy")
	}
}

// screen collects what a program writes to a pseudo-terminal.
type screen struct {
	mu sync.Mutex
	b  strings.Builder
}

func readScreen(master *os.File) *screen {
	sc := &screen{}
	go func() {
		buf := make([]byte, 1024)
		for {
			n, err := master.Read(buf)
			sc.mu.Lock()
			sc.b.Write(buf[:n])
			sc.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return sc
}

func (sc *screen) String() string {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return sc.b.String()
}

// waitFor waits until the screen shows s n times, or kills cmd and fails.
func (sc *screen) waitFor(t *testing.T, cmd interface{ Kill() error }, s string, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if strings.Count(sc.String(), s) >= n {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	cmd.Kill()
	t.Fatalf("%q did not show; the screen:\n%s", s, sc.String())
}

//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal pair, so agentls can be driven as a
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

// terminal is agentls started on a pseudo-terminal.
type terminal struct {
	*screen
	t      *testing.T
	cmd    *exec.Cmd
	master *os.File
}

// onTerminal starts cmd with its stdin and stderr, and its stdout when
// stdout is true, on a new pseudo-terminal; the test is skipped where
// there is none.
func onTerminal(t *testing.T, cmd *exec.Cmd, stdout bool) *terminal {
	t.Helper()
	master, tty, err := openPTY()
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	t.Cleanup(func() { master.Close() })
	cmd.Stdin, cmd.Stderr = tty, tty
	if stdout {
		cmd.Stdout = tty
	}
	err = cmd.Start()
	tty.Close()
	if err != nil {
		t.Fatal(err)
	}
	return &terminal{screen: readScreen(master), t: t, cmd: cmd, master: master}
}

// waitFor waits until the screen shows s n times, or kills agentls and
// fails.
func (term *terminal) waitFor(s string, n int) {
	term.t.Helper()
	term.screen.waitFor(term.t, term.cmd.Process, s, n)
}

// answer types line and Enter.
func (term *terminal) answer(line string) { term.master.WriteString(line + "\n") }

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

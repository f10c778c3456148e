package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/agentls/agentls/internal/agent"
)

func newRunCommand(ws agent.Workspace, o Options) agent.Tool {
	maxSec := int(o.MaxCommandTimeout / time.Second)
	t := &tool{
		name:        "run_command",
		description: "Run a shell command (sh -c) in the workspace root once the user allows it. No stdin; output is capped; the exit code is reported.",
		params: []param{
			{Name: "command", Type: typeString, Required: true, Description: "The command line."},
			{Name: "timeout_seconds", Type: typeInteger, Min: intp(1), Max: intp(maxSec), Description: fmt.Sprintf("Seconds before it is killed (default %d).", int(o.CommandTimeout/time.Second))},
		},
	}
	t.run = func(ctx context.Context, raw json.RawMessage) (agent.ToolResult, error) {
		var a struct {
			Command        string `json:"command"`
			TimeoutSeconds int    `json:"timeout_seconds"`
		}
		if err := validate(t.name, t.params, raw, &a); err != nil {
			return agent.ToolResult{}, err
		}
		if strings.TrimSpace(a.Command) == "" {
			return agent.ToolResult{}, errors.New("command is empty")
		}
		ok, reason, err := o.Approver.Approve(ctx, a.Command)
		if err != nil {
			return agent.ToolResult{}, fmt.Errorf("approval of %q: %w", a.Command, err)
		}
		if !ok {
			if reason == "" {
				reason = "the user did not allow it"
			}
			return agent.ToolResult{}, fmt.Errorf("run_command refused: %s", reason)
		}
		timeout := o.CommandTimeout
		if a.TimeoutSeconds > 0 {
			timeout = time.Duration(a.TimeoutSeconds) * time.Second
		}
		out, err := runShell(ctx, ws.Root(), a.Command, timeout, commandEnv(o.Env), o.MaxCommandOutput)
		return agent.ToolResult{Output: out}, err
	}
	return t
}

// runShell runs command with sh -c in dir and returns its combined output
// (capped) followed by how it ended. The command gets its own session
// (setsid, which also makes it a process group leader): it has no
// controlling terminal, so a password prompt fails instead of hanging, and
// its whole group is killed on timeout, on cancellation, and after the
// shell exits, so nothing it started in the background outlives the call. The error is non-nil only when ctx was
// cancelled or the shell could not start; a failing command is a result.
func runShell(ctx context.Context, dir, command string, timeout time.Duration, env []string, maxOut int) (string, error) {
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(runCtx, "/bin/sh", "-c", command)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin = nil // /dev/null
	// Our own pipe rather than an io.Writer: with a writer, Wait also waits
	// for every background child that inherited the pipe, so "server &"
	// would hold the call until its timeout.
	pr, pw, err := os.Pipe()
	if err != nil {
		return "", fmt.Errorf("run %q: %w", command, err)
	}
	defer pr.Close()
	cmd.Stdout = pw
	cmd.Stderr = pw
	ownSession(cmd)
	cmd.Cancel = func() error { return killGroup(cmd) }

	start := time.Now()
	err = cmd.Start()
	pw.Close()
	if err != nil {
		return "", fmt.Errorf("start %q: %w", command, err)
	}
	out := newHeadTail(maxOut)
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		io.Copy(out, pr)
	}()
	err = cmd.Wait()
	killGroup(cmd)
	// A process that left the group (its own setsid) may still hold the
	// pipe; give it a moment, then stop reading.
	select {
	case <-copied:
	case <-time.After(time.Second):
		pr.Close()
		<-copied
	}
	elapsed := time.Since(start).Round(time.Millisecond)

	var sb strings.Builder
	body := out.String()
	if body == "" {
		body = "(no output)\n"
	} else if !strings.HasSuffix(body, "\n") {
		body += "\n"
	}
	sb.WriteString(body)
	switch {
	case ctx.Err() != nil:
		fmt.Fprintf(&sb, "[cancelled after %s; process group killed]\n", elapsed)
		return sb.String(), fmt.Errorf("run_command %q: %w", command, ctx.Err())
	case errors.Is(runCtx.Err(), context.DeadlineExceeded) && cmd.ProcessState.ExitCode() < 0:
		fmt.Fprintf(&sb, "[timed out after %s; process group killed]\n", timeout)
	default:
		if code := cmd.ProcessState.ExitCode(); code >= 0 {
			fmt.Fprintf(&sb, "[exit code %d]\n", code)
		} else { // killed by a signal that did not come from us
			fmt.Fprintf(&sb, "[exit: %v]\n", err)
		}
	}
	return sb.String(), nil
}

// commandEnv is the environment for a command: base (or the server's own)
// without credentials the model must never see, plus settings that make
// interactive tools fail fast instead of waiting for a person.
func commandEnv(base []string) []string {
	if base == nil {
		base = os.Environ()
	}
	env := make([]string, 0, len(base)+2)
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if isSecretEnv(name) || name == "GIT_TERMINAL_PROMPT" {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "GIT_TERMINAL_PROMPT=0")
}

func isSecretEnv(name string) bool {
	u := strings.ToUpper(name)
	return u == "AGENTLS_API_KEY" || u == "OPENAI_API_KEY" ||
		strings.HasSuffix(u, "_API_KEY") || strings.HasSuffix(u, "_TOKEN")
}

// headTail keeps the first and the last half of maxOut bytes of a stream,
// so both the command line's first errors and its final summary survive.
type headTail struct {
	mu    sync.Mutex
	half  int
	head  []byte
	tail  []byte // ring buffer of the last half bytes
	pos   int    // next write position in tail once it is full
	total int64
}

func newHeadTail(max int) *headTail {
	return &headTail{half: max / 2}
}

func (h *headTail) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := len(p)
	h.total += int64(n)
	if room := h.half - len(h.head); room > 0 {
		k := min(room, len(p))
		h.head = append(h.head, p[:k]...)
		p = p[k:]
	}
	if len(p) >= h.half {
		h.tail = append(h.tail[:0], p[len(p)-h.half:]...)
		h.pos = 0
		return n, nil
	}
	for len(p) > 0 {
		if len(h.tail) < h.half {
			k := min(h.half-len(h.tail), len(p))
			h.tail = append(h.tail, p[:k]...)
			p = p[k:]
			continue
		}
		k := copy(h.tail[h.pos:], p)
		h.pos = (h.pos + k) % h.half
		p = p[k:]
	}
	return n, nil
}

func (h *headTail) String() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	tail := append(append([]byte(nil), h.tail[h.pos:]...), h.tail[:h.pos]...)
	kept := int64(len(h.head) + len(tail))
	if kept == h.total {
		return strings.ToValidUTF8(string(h.head)+string(tail), "\uFFFD")
	}
	// Cut on rune boundaries so the marker never splits a character.
	head := h.head
	for i := 0; i < utf8.UTFMax-1 && len(head) > 0; i++ {
		if r, size := utf8.DecodeLastRune(head); r != utf8.RuneError || size > 1 {
			break
		}
		head = head[:len(head)-1]
	}
	for len(tail) > 0 && !isRuneStart(tail[0]) {
		tail = tail[1:]
	}
	cut := h.total - int64(len(head)+len(tail))
	return strings.ToValidUTF8(fmt.Sprintf("%s\n[... %d bytes cut ...]\n%s", head, cut, tail), "\uFFFD")
}

package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	sessionstore "github.com/agentls/agentls/internal/session"
)

// rawACP is `agentls acp` driven line by line, for what the Go SDK's
// client cannot send (session/delete) or decode (capabilities it lacks).
type rawACP struct {
	t    *testing.T
	in   interface{ Write([]byte) (int, error) }
	rd   *bufio.Reader
	next int
	// notes are the notifications seen while waiting for answers.
	notes []map[string]any
}

func startRawACP(t *testing.T, root, base, state string) *rawACP {
	t.Helper()
	cmd := exec.Command(binary, "acp", "--settings", `{"verify":{"enabled":false}}`)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "AGENTLS_BASE_URL="+base, "AGENTLS_API_KEY=sk-test-secret-key-123",
		"AGENTLS_MODEL=test-model", "XDG_STATE_HOME="+state)
	var stderr strings.Builder
	cmd.Stderr = &lockedBuilder{b: &stderr}
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		in.Close()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("agentls acp stderr:\n%s", stderr.String())
		}
	})
	return &rawACP{t: t, in: in, rd: bufio.NewReader(out)}
}

// call sends a request and returns its answer (result, or error object).
func (r *rawACP) call(method string, params any) (result map[string]any, rpcErr map[string]any) {
	r.t.Helper()
	r.next++
	id := r.next
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if _, err := r.in.Write(append(b, '\n')); err != nil {
		r.t.Fatal(err)
	}
	for {
		line, err := r.rd.ReadBytes('\n')
		if err != nil {
			r.t.Fatalf("%s: %v", method, err)
		}
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			r.t.Fatalf("%s: reply %s: %v", method, line, err)
		}
		if _, isCall := m["method"]; isCall {
			r.notes = append(r.notes, m)
			continue
		}
		if m["id"] != float64(id) {
			continue
		}
		res, _ := m["result"].(map[string]any)
		e, _ := m["error"].(map[string]any)
		return res, e
	}
}

func sessionIDs(res map[string]any) map[string]string {
	out := map[string]string{}
	list, _ := res["sessions"].([]any)
	for _, s := range list {
		m, _ := s.(map[string]any)
		id, _ := m["sessionId"].(string)
		cwd, _ := m["cwd"].(string)
		out[id] = cwd
	}
	return out
}

// What a conforming client calls only when it is advertised: session/list,
// resume, close and delete appear in initialize's sessionCapabilities;
// session/list without a cwd lists the workspace's sessions (it returned
// none), and session/delete removes one from the list (it was unknown).
func TestACPSessionCapabilitiesListDelete(t *testing.T) {
	root := copyWorkspace(t, "hello")
	_, base := startModel(t, `{"turns":[{"text":"first done"},{"text":"second done"}]}`)
	state := filepath.Join(t.TempDir(), "state")
	r := startRawACP(t, root, base, state)
	init, e := r.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})
	if e != nil {
		t.Fatalf("initialize: %v", e)
	}
	caps, _ := init["agentCapabilities"].(map[string]any)
	sc, _ := caps["sessionCapabilities"].(map[string]any)
	for _, c := range []string{"list", "resume", "close", "delete"} {
		if _, ok := sc[c].(map[string]any); !ok {
			t.Errorf("sessionCapabilities.%s is not advertised: %v", c, caps)
		}
	}
	var ids []string
	for i := range 2 {
		s, e := r.call("session/new", map[string]any{"cwd": root, "mcpServers": []any{}})
		if e != nil {
			t.Fatalf("session/new: %v", e)
		}
		id, _ := s["sessionId"].(string)
		ids = append(ids, id)
		res, e := r.call("session/prompt", map[string]any{"sessionId": id, "prompt": []any{map[string]any{"type": "text", "text": fmt.Sprintf("task %d", i)}}})
		if e != nil || res["stopReason"] != "end_turn" {
			t.Fatalf("session/prompt: %v %v", res, e)
		}
	}
	list, e := r.call("session/list", map[string]any{})
	if e != nil {
		t.Fatalf("session/list: %v", e)
	}
	got := sessionIDs(list)
	for _, id := range ids {
		if got[id] != root {
			t.Errorf("session/list without cwd: %s missing or with cwd %q; got %v", id, got[id], got)
		}
	}
	for _, e := range list["sessions"].([]any) {
		m := e.(map[string]any)
		if m["sessionId"] == ids[1] && m["title"] != "task 1" {
			t.Errorf("listed title %v, want the session's first prompt", m["title"])
		}
	}
	if _, e := r.call("session/delete", map[string]any{"sessionId": ids[0]}); e != nil {
		t.Fatalf("session/delete: %v", e)
	}
	list, _ = r.call("session/list", map[string]any{"cwd": root})
	got = sessionIDs(list)
	if _, ok := got[ids[0]]; ok {
		t.Errorf("the deleted session is still listed: %v", got)
	}
	if _, ok := got[ids[1]]; !ok {
		t.Errorf("the other session went too: %v", got)
	}
	if _, e := r.call("session/delete", map[string]any{"sessionId": "20990101-000000-abcdef"}); e != nil {
		t.Errorf("deleting an unknown session: %v, want success", e)
	}
	if _, e := r.call("session/resume", map[string]any{"sessionId": ids[0], "cwd": root, "mcpServers": []any{}}); e == nil {
		t.Errorf("the deleted session could still be resumed")
	}
}

const slowScript = `{"turns":[{"text":"%s","chunkSize":4,"chunkDelayMs":20}]}`

// startSlowPrompt starts a prompt that streams for seconds and returns
// once its first updates came, with the channel of its answer.
func startSlowPrompt(t *testing.T, r *acpRun, id sdk.SessionId) chan sdk.PromptResponse {
	t.Helper()
	done := make(chan sdk.PromptResponse, 1)
	go func() {
		res, err := r.Prompt(r.ctx, sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock("talk")}})
		if err != nil {
			t.Errorf("session/prompt: %v", err)
		}
		done <- res
	}()
	for len(r.client.snapshot()) < 3 {
		select {
		case <-r.client.notify:
		case <-r.ctx.Done():
			t.Fatal("no updates")
		}
	}
	return done
}

// lastTaskStatus is the stored status of the session's last task.
func lastTaskStatus(t *testing.T, r *acpRun, id sdk.SessionId) string {
	t.Helper()
	st, err := sessionstore.Open(r.root, sessionstore.Options{StateDir: filepath.Join(r.state, "agentls")})
	if err != nil {
		t.Fatal(err)
	}
	s, err := st.Load(string(id))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Tasks) == 0 {
		return "none"
	}
	return s.Tasks[len(s.Tasks)-1].Status()
}

// session/close cancels the running prompt and answers after it ended:
// the prompt answers "cancelled" and its task is saved as cancelled by the
// time the close returns. The old close left the prompt running to its end.
func TestACPCloseCancelsAndWaits(t *testing.T) {
	r := startACP(t, "hello", fmt.Sprintf(slowScript, strings.Repeat("slow words ", 200)), false, nil)
	id := r.newSession(t)
	done := startSlowPrompt(t, r, id)
	sent := time.Now()
	if _, err := r.CloseSession(r.ctx, sdk.CloseSessionRequest{SessionId: id}); err != nil {
		t.Fatalf("session/close: %v", err)
	}
	t.Logf("session/close answered %v after it was sent, the running prompt ended", time.Since(sent))
	if st := lastTaskStatus(t, r, id); st != "cancelled" {
		t.Errorf("when session/close answered, the task's status was %q, want cancelled", st)
	}
	if res := <-done; res.StopReason != sdk.StopReasonCancelled {
		t.Errorf("the prompt ended %q, want cancelled", res.StopReason)
	}
	if _, err := r.Prompt(r.ctx, sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock("again")}}); err == nil {
		t.Errorf("a prompt in the closed session was accepted")
	}
}

// SIGTERM cancels the running prompt and waits for it: the client gets
// its "cancelled" answer, the task is saved, and the process exits 0. The
// old agentls returned at once: the prompt got no answer and the task
// stayed "interrupted".
func TestACPSigtermCancelsAndWaits(t *testing.T) {
	r := startACP(t, "hello", fmt.Sprintf(slowScript, strings.Repeat("slow words ", 200)), false, nil)
	id := r.newSession(t)
	done := startSlowPrompt(t, r, id)
	sent := time.Now()
	if err := r.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case res := <-done:
		if res.StopReason != sdk.StopReasonCancelled {
			t.Errorf("the prompt ended %q, want cancelled", res.StopReason)
		}
	case <-r.ctx.Done():
		t.Fatal("no answer to the prompt")
	}
	select {
	case <-r.exited:
	case <-time.After(time.Minute):
		t.Fatal("agentls acp did not exit after SIGTERM")
	}
	t.Logf("SIGTERM → the prompt answered and agentls exited in %v", time.Since(sent))
	if code := r.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit code %d", code)
	}
	if st := lastTaskStatus(t, r, id); st != "cancelled" {
		t.Errorf("the task's stored status is %q, want cancelled", st)
	}
}

package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
)

// waitUpdate waits until an update satisfies ok.
func (r *acpRun) waitUpdate(t *testing.T, what string, ok func(sdk.SessionUpdate) bool) sdk.SessionUpdate {
	t.Helper()
	for {
		for _, u := range r.client.snapshot() {
			if ok(u) {
				return u
			}
		}
		select {
		case <-r.client.notify:
		case <-r.ctx.Done():
			t.Fatalf("no %s", what)
		}
	}
}

// agentText is the agent's text since update from.
func agentText(ups []sdk.SessionUpdate) string {
	var b strings.Builder
	for _, u := range ups {
		if u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil {
			b.WriteString(u.AgentMessageChunk.Content.Text.Text)
		}
	}
	return b.String()
}

// Slash commands, a title, usage with cost and message IDs: the session
// announces /verify, /undo, /review, /model and the project's
// .agentls/commands/*.md (available_commands_update); a project command
// runs its text as the task; the task's title and cost reach the client;
// the agent's messages carry messageIds that change at a tool call;
// /verify, /undo, /review and /model answer without the model.
func TestACPCommandsTitleUsage(t *testing.T) {
	r := startACP(t, "hello", `{"turns":[
	 {"text":"Greeting Ada.","toolCalls":[{"id":"call_editr","name":"read_file","arguments":"{\"path\":\"hello.txt\"}"},{"id":"call_edit","name":"edit_file","arguments":"{\"path\":\"hello.txt\",\"old_string\":\"hello\",\"new_string\":\"goodbye\"}"},
	  {"id":"call_new","name":"write_file","arguments":"{\"path\":\"new.txt\",\"content\":\"made by the task\\n\"}"}]},
	 {"text":"Done."}]}`, false, map[string]any{
		"verify": map[string]any{"enabled": false, "commands": []string{"grep -q goodbye hello.txt"}},
		"llm":    map[string]any{"prices": map[string]any{"test-model": map[string]any{"input": 1.0, "output": 2.0}}},
	})
	if err := os.MkdirAll(filepath.Join(r.root, ".agentls", "commands"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.root, ".agentls", "commands", "greet.md"), []byte("---\ndescription: x\n---\nSay hello to $ARGUMENTS\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	id := r.newSession(t)
	u := r.waitUpdate(t, "available_commands_update", func(u sdk.SessionUpdate) bool { return u.AvailableCommandsUpdate != nil })
	var names []string
	for _, c := range u.AvailableCommandsUpdate.AvailableCommands {
		names = append(names, c.Name)
	}
	for _, want := range []string{"verify", "undo", "review", "model", "greet"} {
		if !slices.Contains(names, want) {
			t.Errorf("available commands %v lack %s", names, want)
		}
	}

	res := r.prompt(t, id, "/greet Ada")
	if res.StopReason != sdk.StopReasonEndTurn || res.UserMessageId == nil || *res.UserMessageId == "" {
		t.Fatalf("prompt answer %+v", res)
	}
	reqs := r.llm.Requests()
	if len(reqs) == 0 || !strings.Contains(reqs[0].Body.Messages[len(reqs[0].Body.Messages)-1].Content, "Say hello to Ada") {
		t.Fatalf("the project command's text did not reach the model")
	}
	if b, _ := os.ReadFile(filepath.Join(r.root, "hello.txt")); !strings.HasPrefix(string(b), "goodbye") {
		t.Fatalf("hello.txt after the task: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(r.root, "new.txt")); string(b) != "made by the task\n" {
		t.Fatalf("new.txt after the task: %q", b)
	}
	ups := r.client.snapshot()
	var title string
	var cost *sdk.Cost
	var ids []string
	for _, u := range ups {
		switch {
		case u.SessionInfoUpdate != nil && u.SessionInfoUpdate.Title != nil:
			title = *u.SessionInfoUpdate.Title
		case u.UsageUpdate != nil && u.UsageUpdate.Cost != nil:
			cost = u.UsageUpdate.Cost
		case u.AgentMessageChunk != nil:
			if u.AgentMessageChunk.MessageId == nil {
				t.Errorf("an agent message chunk without messageId")
			} else if len(ids) == 0 || ids[len(ids)-1] != *u.AgentMessageChunk.MessageId {
				ids = append(ids, *u.AgentMessageChunk.MessageId)
			}
		}
	}
	if title != "Say hello to Ada" {
		t.Errorf("session title %q", title)
	}
	if cost == nil || cost.Amount <= 0 || cost.Currency != "USD" {
		t.Errorf("usage_update cost %+v", cost)
	}
	if len(ids) != 2 || len(ids[0]) != 36 {
		t.Errorf("agent message IDs %v: want two UUIDs, the text before the tool call and after it", ids)
	}

	n := len(r.client.snapshot())
	r.prompt(t, id, "/verify")
	after := r.client.snapshot()[n:]
	_, ends, _ := toolCalls(after)
	if e := ends["verify-1"]; e == nil || *e.Status != sdk.ToolCallStatusCompleted || !strings.Contains(agentText(after), "✓") {
		t.Errorf("/verify: %+v, text %q", e, agentText(after))
	}

	n = len(r.client.snapshot())
	r.prompt(t, id, "/undo")
	if b, _ := os.ReadFile(filepath.Join(r.root, "hello.txt")); !strings.HasPrefix(string(b), "hello world") {
		t.Errorf("hello.txt after /undo: %q; agent said %q", b, agentText(r.client.snapshot()[n:]))
	}
	if _, err := os.Stat(filepath.Join(r.root, "new.txt")); err == nil {
		t.Errorf("new.txt, created by the task, is still there after /undo; agent said %q", agentText(r.client.snapshot()[n:]))
	}

	n = len(r.client.snapshot())
	r.prompt(t, id, "/review on")
	after = r.client.snapshot()[n:]
	var mode string
	for _, u := range after {
		if u.CurrentModeUpdate != nil {
			mode = string(u.CurrentModeUpdate.CurrentModeId)
		}
	}
	if mode != "ask" {
		t.Errorf("/review on: mode update %q", mode)
	}
	n = len(r.client.snapshot())
	r.prompt(t, id, "/model")
	if txt := agentText(r.client.snapshot()[n:]); !strings.Contains(txt, "test-model") || !strings.Contains(txt, "fake-model") {
		t.Errorf("/model: %q", txt)
	}
	if got := len(r.llm.Requests()); got != 2 {
		t.Errorf("%d model requests; the built-in commands must not ask the model", got)
	}
}

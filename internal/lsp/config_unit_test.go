package lsp

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/agent"
)

func TestAgentlsSettings(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{``, ``},
		{`{"agentls": {"llm": {"model": "m"}}}`, `{"llm": {"model": "m"}}`},
		{`{"settings": {"agentls": {"a": 1}}}`, `{"a": 1}`},
		{`{"settings": {"llm": {}}}`, `{"llm": {}}`},
		{`{"llm": {"model": "m"}}`, `{"llm": {"model": "m"}}`}, // the agentls settings themselves
		{`[1]`, `[1]`},
	} {
		if got := string(agentlsSettings(protocol.LSPAny(c.in))); got != c.want {
			t.Errorf("agentlsSettings(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestSplitWorkspaceScope(t *testing.T) {
	for _, c := range []struct {
		in, user, ws string
		sent         bool
	}{
		{``, ``, ``, false},
		{`{"llm": {"model": "m"}}`, `{"llm": {"model": "m"}}`, ``, false},
		{`{"llm": {"model": "m"}, "workspaceSettings": {"tools": {"allow": ["x"]}}}`, `{"llm":{"model":"m"}}`, `{"tools": {"allow": ["x"]}}`, true},
		{`{"workspaceSettings": null}`, `{}`, ``, true}, // sent, and empty: clears an earlier scope
		{`{"workspaceSettings": {}}`, `{}`, ``, true},
		{`not json`, `not json`, ``, false},
	} {
		user, ws, sent := splitWorkspaceScope([]byte(c.in))
		if string(user) != c.user || string(ws) != c.ws || sent != c.sent {
			t.Errorf("splitWorkspaceScope(%s) = %s, %s, %v; want %s, %s, %v", c.in, user, ws, sent, c.user, c.ws, c.sent)
		}
	}
}

func TestReviewHint(t *testing.T) {
	for client, want := range map[string]string{
		"Neovim":             ":AgentAccept",
		"nvim":               ":AgentAccept",
		"Visual Studio Code": "agentls: Accept Changes",
		"vscode":             "agentls: Accept Changes",
		"Eglot":              "agentls-accept",
		"agentls.el":         "agentls-accept",
		"helix":              "space a",
		"":                   "code actions, or agentls.accept",
		"Zed":                "code actions, or agentls.accept",
	} {
		if got := reviewHint(client); !strings.Contains(got, want) {
			t.Errorf("reviewHint(%q) = %q, want it to say %q", client, got, want)
		}
	}
}

func TestStatusWord(t *testing.T) {
	for _, c := range []struct {
		res  agent.Result
		want string
	}{
		{agent.Result{Status: agent.StatusOK, Reason: "done"}, "ok"},
		{agent.Result{Status: agent.StatusOK, Reason: "verifyFailed"}, "done, checks failing"},
		{agent.Result{Status: agent.StatusOK, Outcome: "awaiting review"}, "awaiting review"},
		{agent.Result{Status: agent.StatusCancelled, Cancelled: true, Outcome: "undone"}, "cancelled by you"},
		{agent.Result{Status: agent.StatusError, Reason: "llm"}, "error (the model failed)"},
		{agent.Result{Status: agent.StatusOK, Reason: "maxSteps"}, "stopped: step limit"},
		{agent.Result{Status: agent.StatusOK, Reason: "done", FailedEdits: 3}, "edits failed (3), nothing changed"},
	} {
		if got := statusWord(c.res); got != c.want {
			t.Errorf("statusWord(%+v) = %q, want %q", c.res, got, c.want)
		}
	}
	// A graceful end at a limit warns, with what the model summed up.
	for _, reason := range []string{"maxSteps", "budget"} {
		typ, msg := endMessage(agent.Result{Status: agent.StatusError, Reason: reason, Error: "stopped at the limit", Summary: " did half "})
		if typ != protocol.MessageTypeWarning || msg != "stopped at the limit: did half" {
			t.Errorf("%s: endMessage = %v %q", reason, typ, msg)
		}
	}
	if typ, msg := endMessage(agent.Result{Status: agent.StatusError, Reason: "maxSteps", Error: "stopped"}); typ != protocol.MessageTypeWarning || msg != "stopped" {
		t.Errorf("no summary: endMessage = %v %q", typ, msg)
	}
}

// The configuration's sources in their order: the editor's workspace
// scope, the latest didChangeConfiguration, initializationOptions,
// .agentls.json, the environment; key by key, so an empty settings object
// loses nothing; what the workspace's files widen is held back until
// trusted, and each problem is shown once.
func TestConfigurePrecedence(t *testing.T) {
	root := tempRoot(t, map[string]string{".agentls.json": `{"agent": {"maxSteps": 7, "maxRetries": 4}, "tools": {"allow": ["curl *"]}}`})
	s, c := newUnitServer(t, root)
	ctx := context.Background()
	s.conf.initOpts = agentlsSettings(protocol.LSPAny(`{"llm": {"model": "init-m"}, "agent": {"maxSteps": 3}, "tools": {"deny": ["rm"]}}`))
	s.conf.configure(ctx, []byte(`{"llm": {"model": "changed-m"}}`))
	cfg := s.conf.config()
	if cfg.LLM.Model != "changed-m" || cfg.Agent.MaxSteps != 3 || cfg.Agent.MaxRetries != 4 {
		t.Errorf("model %q, maxSteps %d, maxRetries %d; want changed-m, 3 (initializationOptions over the file), 4 (the file)", cfg.LLM.Model, cfg.Agent.MaxSteps, cfg.Agent.MaxRetries)
	}
	if len(cfg.Tools.Allow) != 0 || !slices.Equal(s.trust.heldBack(), []string{"tools.allow"}) {
		t.Errorf("the untrusted file's tools.allow: allow %q, held back %q", cfg.Tools.Allow, s.trust.heldBack())
	}
	// An empty didChangeConfiguration (eglot sends one) loses nothing of
	// initializationOptions.
	s.conf.configure(ctx, []byte(`{}`))
	if cfg := s.conf.config(); cfg.LLM.Model != "init-m" || cfg.Agent.MaxSteps != 3 {
		t.Errorf("after an empty didChangeConfiguration: model %q, maxSteps %d", cfg.LLM.Model, cfg.Agent.MaxSteps)
	}
	// A marker after both: every message before it has arrived.
	s.ed.showMessage(ctx, protocol.MessageTypeInfo, "marker")
	c.waitFor(t, "the marker", func(m sent) bool { return strings.Contains(string(m.params), "marker") })
	held := 0
	for _, m := range c.messages() {
		if strings.Contains(m, "tools.allow") && strings.Contains(m, "not applied until you trust this file") {
			held++
		}
	}
	if held != 1 {
		t.Errorf("the held-back file was reported %d times: %q", held, c.messages())
	}

	// The editor's workspace scope ranks first, but cannot replace the
	// user's deny rules or name a command to start until trusted.
	s.conf.configure(ctx, []byte(`{"workspaceSettings": {"agent": {"maxSteps": 9, "backend": {"acp": {"command": "evil"}}}, "tools": {"deny": []}}}`))
	cfg = s.conf.config()
	if cfg.Agent.MaxSteps != 9 || !slices.Equal(cfg.Tools.Deny, []string{"rm"}) || cfg.Agent.Backend.ACP != nil {
		t.Errorf("workspace scope: maxSteps %d, deny %q, backend %+v", cfg.Agent.MaxSteps, cfg.Tools.Deny, cfg.Agent.Backend.ACP)
	}
	if hb := s.trust.heldBack(); !slices.Contains(hb, "tools.deny") || !slices.Contains(hb, "tools.allow") {
		t.Errorf("held back %q", hb)
	}
	c.waitFor(t, "the dropped agent.backend", func(m sent) bool {
		return strings.Contains(string(m.params), "agent.backend") && strings.Contains(string(m.params), "your user settings only")
	})
	// A bad value is a problem named by its key, and the rest applies.
	s.conf.configure(ctx, []byte(`{"agent": {"maxSteps": "many"}, "llm": {"model": "ok-m"}}`))
	if cfg := s.conf.config(); cfg.LLM.Model != "ok-m" {
		t.Errorf("a bad key stopped the rest: model %q", cfg.LLM.Model)
	}
	c.waitFor(t, "the bad agent.maxSteps", func(m sent) bool { return strings.Contains(string(m.params), "agent.maxSteps") })
}

// A project command typed in the editor expands to its prompt; anything
// else is left as typed.
func TestExpandProjectCommand(t *testing.T) {
	root := tempRoot(t, map[string]string{".agentls/commands/fix.md": "Fix issue $ARGUMENTS.\n"})
	for in, want := range map[string]string{
		"/fix 12":      "Fix issue 12.",
		"/nope 12":     "/nope 12",
		"/tmp is full": "/tmp is full",
		"fix 12":       "fix 12",
	} {
		if got := expandProjectCommand(root, in, nil); got != want {
			t.Errorf("expandProjectCommand(%q) = %q, want %q", in, got, want)
		}
	}
	s, _ := newUnitServer(t, root)
	res, err := s.about.cmdCommands(context.Background(), noArgs{})
	cr, _ := res.(commandsResult)
	if err != nil || len(cr.Commands) != 1 || cr.Commands[0].Name != "fix" || cr.Commands[0].Path != ".agentls/commands/fix.md" || cr.Error != "" {
		t.Errorf("agentls.commands = %+v, %v", res, err)
	}
	os.WriteFile(filepath.Join(root, ".agentls", "commands", "bad.md"), []byte("\xff\xfe"), 0o644)
	res, _ = s.about.cmdCommands(context.Background(), noArgs{})
	if cr, _ := res.(commandsResult); len(cr.Commands) != 1 || !strings.Contains(cr.Error, "bad.md") {
		t.Errorf("with a bad file: %+v", res)
	}
}

// The workspace scope sent in initializationOptions holds until a
// didChangeConfiguration sends its own.
func TestWorkspaceScopeFromInitializationOptions(t *testing.T) {
	s, _ := newUnitServer(t, tempRoot(t, nil))
	ctx := context.Background()
	s.conf.initOpts = []byte(`{"agent": {"maxSteps": 5}, "workspaceSettings": {"agent": {"maxSteps": 11}}}`)
	s.conf.configure(ctx, nil)
	if got := s.conf.config().Agent.MaxSteps; got != 11 {
		t.Errorf("maxSteps %d, want the workspace scope's 11", got)
	}
	s.conf.configure(ctx, []byte(`{"llm": {"model": "m"}}`))
	if got := s.conf.config().Agent.MaxSteps; got != 11 {
		t.Errorf("after a didChangeConfiguration without a scope: maxSteps %d, want 11", got)
	}
	s.conf.configure(ctx, []byte(`{"workspaceSettings": null}`))
	if got := s.conf.config().Agent.MaxSteps; got != 5 {
		t.Errorf("after the scope was cleared: maxSteps %d, want 5", got)
	}
}

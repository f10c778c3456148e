package approval

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/proc"
	"github.com/agentls/agentls/internal/tools"
)

// scriptedAsk answers every question with answer (and err), counting them.
type scriptedAsk struct {
	answer Answer
	err    error
	asked  []string // command: reason
}

func (s *scriptedAsk) ask(_ context.Context, command, why string) (Answer, error) {
	s.asked = append(s.asked, command+": "+why)
	return s.answer, s.err
}

// The approval policy as a table: the rules, tools.approval, the sandbox
// mode, the user's answer; what runs, what is asked, what is reported as
// refused for want of an answer.
func TestApprovalTable(t *testing.T) {
	confined, _ := proc.Available()
	type want struct {
		ok       bool
		asked    bool
		reported bool
		reason   string // a part of the reason given when not ok
		how      string // what the approver noted (tools.Granted) when ok
	}
	for _, c := range []struct {
		name    string
		allow   []string
		deny    []string
		mode    string // tools.approval
		sandbox string // sandbox.mode
		answer  Answer
		noAsk   bool // the front end cannot ask
		toolCtx *tools.ToolCall
		command string
		want    want
	}{
		{name: "deny wins over allow, unasked", allow: []string{"*"}, deny: []string{"rm"}, sandbox: proc.ModeOff, answer: AllowOnce,
			command: "rm -rf build", want: want{reason: "tools.deny"}},
		{name: "deny sees through a wrapper", deny: []string{"rm"}, sandbox: proc.ModeOff, answer: AllowOnce,
			command: "env FOO=1 /bin/rm -rf build", want: want{reason: "tools.deny"}},
		{name: "allow covers it, sandbox off by choice", allow: []string{"go test"}, sandbox: proc.ModeOff,
			command: "go test ./...", want: want{ok: true, how: agent.RanAllowed}},
		{name: "sandbox off: a plain command is asked", sandbox: proc.ModeOff, answer: AllowOnce,
			command: "ls", want: want{ok: true, asked: true, how: agent.RanApproved}},
		{name: "the user says no", sandbox: proc.ModeOff, answer: Deny,
			command: "ls", want: want{asked: true, reason: "the user denied running ls"}},
		{name: "no answer is reported", sandbox: proc.ModeOff, answer: NoAnswer,
			command: "ls", want: want{asked: true, reported: true, reason: "the user gave no answer about running ls; sandbox.mode is off"}},
		{name: "nobody to ask is reported", sandbox: proc.ModeOff, noAsk: true,
			command: "ls", want: want{reported: true, reason: "sandbox.mode is off, so only commands tools.allow covers run"}},
		{name: "never: refused, not asked", mode: config.ApprovalNever, sandbox: proc.ModeOff, answer: AllowOnce,
			command: "ls", want: want{reported: true, reason: `tools.approval is "never"`}},
		{name: "never still runs what allow covers", mode: config.ApprovalNever, allow: []string{"ls"}, sandbox: proc.ModeOff,
			command: "ls -l", want: want{ok: true, how: agent.RanAllowed}},
		{name: "always-ask asks about a plain command", mode: config.ApprovalAlwaysAsk, answer: AllowOnce,
			command: "ls", want: want{ok: true, asked: true, how: agent.RanApproved}},
		{name: "sandboxed: a plain command runs without a question when confined", answer: Deny,
			command: "ls -l", want: want{ok: confined, asked: !confined, reason: "the user denied", how: agent.RanUnasked}},
		{name: "sandboxed: a command the parser cannot see through is asked", answer: Deny,
			command: `eval "$X"`, want: want{asked: true, reason: "the user denied"}},
		{name: "an MCP call is asked even when sandboxed", answer: AllowOnce, toolCtx: &tools.ToolCall{},
			command: `mcp fs.read {"path":"a"}`, want: want{ok: true, asked: true, how: agent.RanApproved}},
		{name: "an MCP call its server allows runs unasked", toolCtx: &tools.ToolCall{ServerAllows: true}, answer: Deny,
			command: `mcp fs.read {"path":"a"}`, want: want{ok: true, how: agent.RanAllowed}},
		{name: "deny refuses an MCP call its server allows", deny: []string{"mcp fs"}, toolCtx: &tools.ToolCall{ServerAllows: true}, answer: AllowOnce,
			command: `mcp fs.read {"path":"a"}`, want: want{reason: "tools.deny"}},
		{name: "an MCP call nobody can approve is reported", toolCtx: &tools.ToolCall{}, noAsk: true, sandbox: proc.ModeOff,
			command: `mcp fs.write {}`, want: want{reported: true, reason: "no tools.allow rule covers mcp fs.write"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := config.Defaults()
			cfg.Tools.Allow, cfg.Tools.Deny, cfg.Tools.Approval = c.allow, c.deny, c.mode
			if c.sandbox != "" {
				cfg.Sandbox.Mode = c.sandbox
			}
			s := &scriptedAsk{answer: c.answer}
			var ask Ask = s.ask
			if c.noAsk {
				ask = nil
			}
			var reported []string
			a := Reporting(cfg, nil, ask, func(command, reason string) { reported = append(reported, command+": "+reason) })
			ctx := context.Background()
			if c.toolCtx != nil {
				ctx = tools.WithToolCall(ctx, *c.toolCtx)
			}
			var how string
			ok, reason, err := a.Approve(tools.WithGrant(ctx, &how), c.command)
			if err != nil {
				t.Fatal(err)
			}
			if ok != c.want.ok || (len(s.asked) > 0) != c.want.asked || (len(reported) > 0) != c.want.reported {
				t.Fatalf("ok %v (reason %q), asked %q, reported %q; want %+v", ok, reason, s.asked, reported, c.want)
			}
			if ok && how != c.want.how {
				// The editors show it beside the command.
				t.Errorf("allowed as %q, want %q", how, c.want.how)
			}
			if ok && reason != "" {
				t.Errorf("allowed with a reason %q", reason)
			}
			if !ok && !strings.Contains(reason, c.want.reason) {
				t.Errorf("reason %q does not say %q", reason, c.want.reason)
			}
			if len(reported) > 0 && reported[0] != c.command+": "+reason {
				t.Errorf("reported %q, refused with %q", reported, reason)
			}
		})
	}
}

// "Always" is remembered for the same command, in the Allowed shared by
// the tasks of a server, and for nothing else.
func TestApprovalRemembersAlways(t *testing.T) {
	cfg := config.Defaults()
	cfg.Sandbox.Mode = proc.ModeOff
	s := &scriptedAsk{answer: AllowAlways}
	var always Allowed
	ctx := context.Background()
	if ok, _, _ := New(cfg, &always, s.ask).Approve(ctx, "make build"); !ok {
		t.Fatal("not allowed")
	}
	// Another task's approver, the same list: not asked again.
	s2 := &scriptedAsk{answer: Deny}
	a2 := New(cfg, &always, s2.ask)
	if ok, _, _ := a2.Approve(ctx, "make build"); !ok || len(s2.asked) != 0 {
		t.Errorf("asked again: %v %q", ok, s2.asked)
	}
	if ok, _, _ := a2.Approve(ctx, "make clean"); ok || len(s2.asked) != 1 {
		t.Errorf("another command was not asked about: %v %q", ok, s2.asked)
	}
	// A deny rule added later still wins over "always".
	cfg.Tools.Deny = []string{"make"}
	if ok, reason, _ := New(cfg, &always, s2.ask).Approve(ctx, "make build"); ok || !strings.Contains(reason, "tools.deny") {
		t.Errorf("deny after always: %v %q", ok, reason)
	}
}

// An error asking (the editor went away, the task was cancelled) is the
// approver's error, and nothing runs.
func TestApprovalAskError(t *testing.T) {
	cfg := config.Defaults()
	cfg.Sandbox.Mode = proc.ModeOff
	boom := errors.New("client gone")
	s := &scriptedAsk{answer: AllowOnce, err: boom}
	refused := 0
	ok, _, err := Reporting(cfg, nil, s.ask, func(string, string) { refused++ }).Approve(context.Background(), "ls")
	if ok || !errors.Is(err, boom) || refused != 0 {
		t.Errorf("ok %v, err %v, refused %d", ok, err, refused)
	}
}

package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/proc"
	"github.com/agentls/agentls/internal/textcut"
)

// maxOutput caps what a hook's output may add to what the model reads.
const maxOutput = 10_000

// Runner runs a task's hooks. The zero Sources runs nothing.
type Runner struct {
	Sources []Source
	// Root is the workspace root: the hooks' directory, CLAUDE_PROJECT_DIR
	// and the base of the file paths they see.
	Root string
	// Session is the task's session ID (session_id); "" when it has none.
	Session string
	// Sandbox confines the hooks as run_command is confined; Env and
	// Secrets are the environment a command gets.
	Sandbox proc.Sandbox
	Env     []string
	Secrets []string
	// View, when set (the editor holds the files), shows hooks the
	// editor's texts instead of the disk, as the checks see them; what a
	// hook writes then stays in the view: the buffers are the truth, and
	// agentls the only writer of the user's tree.
	View func(ctx context.Context) map[string][]byte
	// AskNetwork asks the user whether a hook that failed for want of
	// network may run again with it, as a command would be asked about;
	// nil: never asked.
	AskNetwork func(ctx context.Context, command string) (bool, error)
	// Notice tells the user of a hook that failed without blocking; nil:
	// logged only.
	Notice func(msg string)
	Log    *zap.Logger
}

// Active reports whether any hook is set for event.
func (r *Runner) Active(event string) bool {
	if r == nil {
		return false
	}
	for _, s := range r.Sources {
		if len(s.Hooks[event]) > 0 {
			return true
		}
	}
	return false
}

// outcome is what one hook did.
type outcome struct {
	source string
	exit   int
	stdout string
	stderr string
	answer answer
	json   bool // stdout was a JSON answer
}

// answer is the JSON a hook may print on exit 0: the fields every event
// shares and those of hookSpecificOutput.
type answer struct {
	Continue           *bool  `json:"continue"`
	StopReason         string `json:"stopReason"`
	Decision           string `json:"decision"`
	Reason             string `json:"reason"`
	SystemMessage      string `json:"systemMessage"`
	HookSpecificOutput struct {
		HookEventName            string         `json:"hookEventName"`
		PermissionDecision       string         `json:"permissionDecision"`
		PermissionDecisionReason string         `json:"permissionDecisionReason"`
		UpdatedInput             map[string]any `json:"updatedInput"`
		AdditionalContext        string         `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// blocked is exit code 2: the format's "block", with stderr as the reason.
const blocked = 2

// run runs every hook of event that matches tool ("" for events without
// a tool), one after another in the order of their sources, with payload
// plus the fields every event has.
func (r *Runner) run(ctx context.Context, event, tool string, payload map[string]any) []outcome {
	if r == nil {
		return nil
	}
	payload["hook_event_name"] = event
	payload["session_id"] = r.Session
	payload["cwd"] = r.Root
	payload["transcript_path"] = ""
	payload["permission_mode"] = "default"
	in, err := json.Marshal(payload)
	if err != nil {
		return nil
	}
	var out []outcome
	for _, s := range r.Sources {
		for _, g := range s.Hooks[event] {
			if tool != "" && !matches(g.Matcher, tool) {
				continue
			}
			for _, h := range g.Hooks {
				o := r.one(ctx, s.Name, h, in)
				out = append(out, o)
				if ctx.Err() != nil {
					return out
				}
			}
		}
	}
	return out
}

func matches(matcher, tool string) bool {
	re, err := compile(matcher)
	if err != nil {
		return false
	}
	if re == nil {
		return true
	}
	for _, n := range names(tool) {
		if re.MatchString(n) {
			return true
		}
	}
	return false
}

// one runs a hook through proc in the sandbox: the payload on its stdin,
// its stderr apart from its stdout, killed with its children at the
// timeout.
func (r *Runner) one(ctx context.Context, source string, h Handler, payload []byte) outcome {
	o := outcome{source: source, exit: -1}
	dir, err := os.MkdirTemp("", "agentls-hook-")
	if err != nil {
		o.stderr = err.Error()
		return o
	}
	defer os.RemoveAll(dir)
	input, errFile := filepath.Join(dir, "input.json"), filepath.Join(dir, "stderr")
	if err := os.WriteFile(input, payload, 0o600); err != nil {
		o.stderr = err.Error()
		return o
	}
	timeout := DefaultTimeout
	if h.Timeout > 0 {
		timeout = time.Duration(h.Timeout * float64(time.Second))
	}
	env := append(append([]string(nil), r.env()...), "CLAUDE_PROJECT_DIR="+r.Root, "AGENTLS_HOOK_INPUT="+input, "AGENTLS_HOOK_STDERR="+errFile)
	spec := proc.Spec{
		Shell:       "{\n" + h.Command + "\n} < \"$AGENTLS_HOOK_INPUT\" 2> \"$AGENTLS_HOOK_STDERR\"",
		Dir:         r.Root,
		Env:         env,
		Secrets:     r.Secrets,
		Timeout:     timeout,
		OutputLimit: maxOutput,
		Sandbox:     r.Sandbox,
	}
	spec.Sandbox.Workspace = r.Root
	// The payload and the stderr file: agentls's own, for this hook alone
	// (a sandboxed process sees only what is declared).
	spec.Sandbox.Scratch = append(append([]string(nil), spec.Sandbox.Scratch...), dir)
	if r.View != nil && spec.Sandbox.Mode != proc.ModeOff {
		spec.Sandbox.View = r.View(ctx)
		if spec.Sandbox.View == nil {
			spec.Sandbox.View = map[string][]byte{}
		}
	}
	res, err := proc.Run(ctx, spec)
	if errors.Is(err, proc.ErrUnavailable) {
		o.stderr = "the sandbox is unavailable here, so workspace hooks do not run: " + err.Error()
		r.notice(fmt.Sprintf("hook %q (%s) did not run: %s", h.Command, source, o.stderr))
		return o
	}
	if err != nil {
		o.stderr = err.Error()
		r.notice(fmt.Sprintf("hook %q (%s) did not run: %v", h.Command, source, err))
		return o
	}
	stderr, _ := os.ReadFile(errFile)
	if offline := !spec.Sandbox.Network && spec.Sandbox.Mode != proc.ModeOff && res.ExitCode != 0 &&
		proc.NetworkFailure(res.Output+"\n"+string(stderr)); offline && r.AskNetwork != nil {
		// The hook failed for want of network: leaving the sandbox is asked
		// as it is for a command.
		if again, err := r.AskNetwork(ctx, h.Command); err == nil && again {
			spec.Sandbox.Network = true
			if res2, err := proc.Run(ctx, spec); err == nil {
				res = res2
				stderr, _ = os.ReadFile(errFile)
			}
		}
	}
	o.stdout, o.stderr = strings.TrimSpace(res.Output), strings.TrimSpace(string(stderr))
	if len(o.stderr) > maxOutput {
		o.stderr = textcut.Head(o.stderr, maxOutput)
	}
	switch {
	case res.TimedOut:
		r.notice(fmt.Sprintf("hook %q (%s) timed out after %s", h.Command, source, timeout))
		return o
	case res.ExitCode < 0:
		r.notice(fmt.Sprintf("hook %q (%s) was killed", h.Command, source))
		return o
	}
	o.exit = res.ExitCode
	if o.exit == 0 && strings.HasPrefix(o.stdout, "{") {
		if json.Unmarshal([]byte(o.stdout), &o.answer) == nil {
			o.json = true
		}
	}
	if o.exit != 0 && o.exit != blocked {
		msg := o.stderr
		if msg == "" {
			msg = o.stdout
		}
		r.notice(fmt.Sprintf("hook %q (%s) failed (exit %d): %s", h.Command, source, o.exit, firstLine(msg)))
	}
	if o.json && o.answer.SystemMessage != "" {
		r.notice(o.answer.SystemMessage)
	}
	return o
}

func (r *Runner) env() []string {
	if r.Env != nil {
		return r.Env
	}
	return os.Environ()
}

func (r *Runner) notice(msg string) {
	if r.Log != nil {
		r.Log.Info("hook", zap.String("msg", msg))
	}
	if r.Notice != nil {
		r.Notice(msg)
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// Pre is PreToolUse's verdict on a call.
type Pre struct {
	// Block is the reason the call does not run ("" : it runs).
	Block string
	// Args replaces the call's arguments when a hook rewrote them.
	Args json.RawMessage
	// Context is added to the call's result for the model.
	Context string
}

// PreToolUse runs the hooks before a call: exit code 2 blocks it with
// stderr as the reason; a JSON answer blocks it (permissionDecision
// "deny", or decision "block", or continue false), rewrites its input
// (hookSpecificOutput.updatedInput) or adds context. "allow" and "ask"
// leave the decision to agentls's own policy: a hook cannot let run what
// the policy refuses.
func (r *Runner) PreToolUse(ctx context.Context, call agent.ToolCall, args json.RawMessage) Pre {
	var p Pre
	if !r.Active(PreToolUse) {
		return p
	}
	tool := call.Name
	for _, o := range r.run(ctx, PreToolUse, tool, map[string]any{
		"tool_name": ToolName(tool), "tool_input": ToolInput(tool, r.Root, args), "tool_use_id": call.ID,
	}) {
		a := o.answer.HookSpecificOutput
		switch {
		case o.exit == blocked:
			p.Block = orDefault(o.stderr, "blocked by a PreToolUse hook")
		case !o.json:
			continue
		case a.PermissionDecision == "deny":
			p.Block = orDefault(a.PermissionDecisionReason, orDefault(o.answer.Reason, "denied by a PreToolUse hook"))
		case o.answer.Decision == "block":
			p.Block = orDefault(o.answer.Reason, "blocked by a PreToolUse hook")
		case o.answer.Continue != nil && !*o.answer.Continue:
			p.Block = orDefault(o.answer.StopReason, "stopped by a PreToolUse hook")
		}
		if p.Block != "" {
			p.Block = fmt.Sprintf("%s (PreToolUse hook of %s)", p.Block, o.source)
			return p
		}
		if a.UpdatedInput != nil {
			if b, err := AgentlsInput(tool, r.Root, a.UpdatedInput); err == nil {
				p.Args = b
				args = b
			}
		}
		p.Context = Join(p.Context, a.AdditionalContext)
	}
	return p
}

// PostToolUse runs the hooks after a call and returns what they add to
// its result: stderr of exit code 2, a JSON answer's reason when it
// blocks (decision "block"), its additionalContext.
func (r *Runner) PostToolUse(ctx context.Context, call agent.ToolCall, args json.RawMessage, output string, failed bool) string {
	if !r.Active(PostToolUse) {
		return ""
	}
	tool := call.Name
	add := ""
	for _, o := range r.run(ctx, PostToolUse, tool, map[string]any{
		"tool_name": ToolName(tool), "tool_input": ToolInput(tool, r.Root, args), "tool_use_id": call.ID,
		"tool_response": map[string]any{"output": output, "success": !failed},
	}) {
		switch {
		case o.exit == blocked:
			add = Join(add, o.stderr)
		case o.json:
			if o.answer.Decision == "block" {
				add = Join(add, o.answer.Reason)
			}
			add = Join(add, o.answer.HookSpecificOutput.AdditionalContext)
		}
	}
	return add
}

// StopVerdict is the Stop hooks' answer.
type StopVerdict struct {
	Continue bool
	Reason   string // for the model: what to do before it may stop
}

// Stop runs the hooks when the model answered without tools: exit code 2
// (stderr) or a JSON decision "block" (reason) sends it back to work.
// active is the format's stop_hook_active: the model is already working
// again because of a Stop hook.
func (r *Runner) Stop(ctx context.Context, active bool, last string) StopVerdict {
	var v StopVerdict
	if !r.Active(Stop) {
		return v
	}
	for _, o := range r.run(ctx, Stop, "", map[string]any{"stop_hook_active": active, "last_assistant_message": last}) {
		switch {
		case o.exit == blocked:
			v.Continue, v.Reason = true, Join(v.Reason, orDefault(o.stderr, "a Stop hook asks you to go on"))
		case o.json && o.answer.Decision == "block":
			v.Continue, v.Reason = true, Join(v.Reason, orDefault(o.answer.Reason, "a Stop hook asks you to go on"))
		}
	}
	return v
}

// UserPromptSubmit runs the hooks on the user's prompt before the task:
// block is why it does not run (exit code 2's stderr, a JSON decision
// "block"'s reason); context joins what the model is told (a JSON
// answer's additionalContext, or plain stdout).
func (r *Runner) UserPromptSubmit(ctx context.Context, prompt string) (block, context string) {
	if !r.Active(UserPromptSubmit) {
		return "", ""
	}
	for _, o := range r.run(ctx, UserPromptSubmit, "", map[string]any{"prompt": prompt}) {
		switch {
		case o.exit == blocked:
			return orDefault(o.stderr, "blocked by a UserPromptSubmit hook"), ""
		case o.json && (o.answer.Decision == "block" || o.answer.Continue != nil && !*o.answer.Continue):
			return orDefault(o.answer.Reason, orDefault(o.answer.StopReason, "blocked by a UserPromptSubmit hook")), ""
		case o.json:
			context = Join(context, o.answer.HookSpecificOutput.AdditionalContext)
		case o.exit == 0:
			context = Join(context, o.stdout)
		}
	}
	return "", context
}

// SessionStart runs the hooks as a task starts (source "startup", or
// "resume" for a continued session) and returns the context they add.
func (r *Runner) SessionStart(ctx context.Context, source string) string {
	if !r.Active(SessionStart) {
		return ""
	}
	context := ""
	for _, o := range r.run(ctx, SessionStart, "", map[string]any{"source": source}) {
		switch {
		case o.json:
			context = Join(context, o.answer.HookSpecificOutput.AdditionalContext)
		case o.exit == 0:
			context = Join(context, o.stdout)
		}
	}
	return context
}

func orDefault(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return strings.TrimSpace(s)
}

// Join puts b (trimmed) on a line after a; either may be empty. The
// hooks' context and reasons are joined with it, here and by the caller
// that adds one hook's output to another's.
func Join(a, b string) string {
	b = strings.TrimSpace(b)
	switch {
	case b == "":
		return a
	case a == "":
		return b
	}
	return a + "\n" + b
}

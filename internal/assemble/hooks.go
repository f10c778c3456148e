package assemble

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/driver"
	"github.com/agentls/agentls/internal/hooks"
	"github.com/agentls/agentls/internal/policy"
	"github.com/agentls/agentls/internal/proc"
)

// HookFiles are the workspace files of other agents whose hooks agentls
// runs, in order: Claude Code's project settings and Codex's hooks file
// (the same format).
var HookFiles = []string{".claude/settings.json", ".codex/hooks.json"}

// maxHookFile bounds a hook file read from the workspace.
const maxHookFile = 256 << 10

// HookFile is one workspace hook file: code the repository brings, run
// only once the user trusts this content.
type HookFile struct {
	Path    string // absolute
	Rel     string // workspace-relative, slash-separated
	Content []byte
	Hooks   hooks.Config
	Trusted bool
	Problem string // why the file's hooks cannot be used
}

// ReadHookFiles reads the workspace's hook files beneath root (a symbolic
// link out of it is not followed) and says which store trusts. A file
// without hooks is left out.
func ReadHookFiles(root string, store *policy.TrustStore) []HookFile {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil
	}
	defer r.Close()
	var out []HookFile
	for _, rel := range HookFiles {
		// Without blocking: a named pipe in its place must not hold the
		// open until a writer comes.
		f, err := r.OpenFile(filepath.FromSlash(rel), os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			continue
		}
		st, err := f.Stat()
		var data []byte
		if err == nil && st.Mode().IsRegular() {
			data, err = io.ReadAll(io.LimitReader(f, maxHookFile+1))
		} else if err == nil {
			err = errors.New("not a regular file")
		}
		f.Close()
		h := HookFile{Path: filepath.Join(root, filepath.FromSlash(rel)), Rel: rel, Content: data}
		switch {
		case err != nil:
			h.Problem = err.Error()
		case len(data) > maxHookFile:
			h.Problem = fmt.Sprintf("larger than %d KiB", maxHookFile>>10)
		default:
			h.Hooks, err = hooks.Parse(data)
			if err != nil {
				h.Problem = err.Error()
			}
		}
		if h.Problem == "" && len(h.Hooks) == 0 {
			continue
		}
		h.Trusted = h.Problem == "" && store != nil && store.Trusted(h.Path, data)
		out = append(out, h)
	}
	return out
}

// untrustedHooks are the hook files that wait for the user's trust, as
// entries of WorkspaceSettings.Untrusted: "hooks in .claude/settings.json".
func untrustedHooks(files []HookFile) []string {
	var out []string
	for _, h := range files {
		if h.Problem == "" && !h.Trusted {
			out = append(out, "hooks in "+h.Rel)
		}
	}
	return out
}

// hookQuestion names the commands of the untrusted hook files.
func hookQuestion(files []HookFile) string {
	var parts []string
	for _, h := range files {
		if h.Problem != "" || h.Trusted {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s runs these hooks on the agent's events: %s.", h.Rel, strings.Join(h.Hooks.Describe(), "; ")))
	}
	return strings.Join(parts, " ")
}

// HookRunner is the hooks of a task in root: the user's (the hooks
// setting, from the editor's settings or a trusted .agentls.json) and the
// trusted workspace hook files, run in the task's sandbox. nil when there
// are none. Problems (a bad file, a hook file not trusted) go to warn.
func HookRunner(cfg config.Config, root, session string, store *policy.TrustStore, warn func(string)) *hooks.Runner {
	var sources []hooks.Source
	if len(cfg.Hooks) > 0 {
		h, err := hooks.ParseHooks(cfg.Hooks)
		if err != nil {
			warn("setting hooks: " + err.Error())
		} else if len(h) > 0 {
			sources = append(sources, hooks.Source{Name: "agentls settings", Hooks: h})
		}
	}
	for _, f := range ReadHookFiles(root, store) {
		switch {
		case f.Problem != "":
			warn(fmt.Sprintf("the hooks of %s are not run: %s", f.Rel, f.Problem))
		case !f.Trusted:
			warn(fmt.Sprintf("the hooks of %s do not run until you trust the workspace's hooks (agentls trust, or the question when a task starts)", f.Rel))
		default:
			sources = append(sources, hooks.Source{Name: f.Rel, Hooks: f.Hooks})
		}
	}
	if len(sources) == 0 {
		return nil
	}
	sb, _, _ := Sandbox(cfg, root)
	if sb.Mode == proc.ModeOff && cfg.Sandbox.Mode != proc.ModeOff {
		// The sandbox cannot be had here: hooks run in it or not at all
		// (sb.Mode stays asked for, and proc.Run reports it unavailable).
		sb = configured(cfg, root)
	}
	return &hooks.Runner{Sources: sources, Root: root, Session: session, Sandbox: sb, Secrets: secrets(cfg), Notice: warn}
}

// hookedTool runs a tool's PreToolUse and PostToolUse hooks around it.
type hookedTool struct {
	agent.Tool
	r *hooks.Runner
}

func hooked(ts []agent.Tool, r *hooks.Runner) []agent.Tool {
	if !r.Active(hooks.PreToolUse) && !r.Active(hooks.PostToolUse) {
		return ts
	}
	out := make([]agent.Tool, len(ts))
	for i, t := range ts {
		out[i] = hookedTool{Tool: t, r: r}
	}
	return out
}

func (h hookedTool) Run(ctx context.Context, args json.RawMessage) (agent.ToolResult, error) {
	var call agent.ToolCall
	if p, ok := driver.ParentOf(ctx); ok {
		call = p.Call
	}
	call.Name = h.Spec().Name
	pre := h.r.PreToolUse(ctx, call, args)
	if pre.Block != "" {
		return agent.ToolResult{}, fmt.Errorf("blocked: %s", pre.Block)
	}
	if pre.Args != nil {
		args = pre.Args
	}
	res, err := h.Tool.Run(ctx, args)
	out := res.Output
	if err != nil {
		out = err.Error()
	}
	add := hooks.Join(pre.Context, h.r.PostToolUse(ctx, call, args, out, err != nil))
	if add == "" {
		return res, err
	}
	note := "\n\n[from the workspace's hooks]\n" + add
	if err != nil {
		return res, fmt.Errorf("%w%s", err, note)
	}
	res.Output += note
	return res, nil
}

// Timeout keeps a tool's own timeout rule (run_command's timeout_seconds).
func (h hookedTool) Timeout(args json.RawMessage, def time.Duration) time.Duration {
	if t, ok := h.Tool.(driver.Timeouter); ok {
		return t.Timeout(args, def)
	}
	return def
}

// stoppers asks each stop check in turn; the first that sends the model
// back wins.
type stoppers []driver.Stopper

func (s stoppers) CheckStop(ctx context.Context, c agent.CheckStop) agent.StopChecked {
	var notes []string
	for _, st := range s {
		v := st.CheckStop(ctx, c)
		if v.Note != "" {
			notes = append(notes, v.Note)
		}
		if v.Continue {
			v.Note = strings.Join(notes, "; ")
			return v
		}
	}
	return agent.StopChecked{Note: strings.Join(notes, "; ")}
}

// hookStop is the Stop hooks as a stop check.
type hookStop struct{ r *hooks.Runner }

func (h hookStop) CheckStop(ctx context.Context, c agent.CheckStop) agent.StopChecked {
	v := h.r.Stop(ctx, c.Again, c.Answer)
	if !v.Continue {
		return agent.StopChecked{}
	}
	return agent.StopChecked{Continue: true,
		Feedback: "A Stop hook of this workspace sends you back to work before you may stop:\n\n" + v.Reason,
		Unmet:    "a Stop hook still asked to go on: " + firstLine(v.Reason),
		Note:     "a Stop hook sent the model back to work: " + firstLine(v.Reason)}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

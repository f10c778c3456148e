package driver

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/agentls/agentls/internal/agent"
)

// SystemPrompt is the contract profile with edit_file, kept for callers
// that want a bare prompt.
var SystemPrompt = Profile(ProfileContract, false)

// CompactionPrompt asks for a summary of dropped turns.
const CompactionPrompt = `Summarize this earlier part of a coding agent's work for the agent itself, in at most 15 short lines: files read and what was learned, edits made (file and purpose), errors met, and what remains to do. No preamble.`

// ContextFiles are read from the workspace root, in order, into the prompt.
var ContextFiles = []string{"AGENTS.md", ".agentls/instructions.md"}

// maxContextFile caps each project instruction file.
const maxContextFile = 32 << 10

// WorkspacePlanner builds the prefix. Its order is what keeps providers'
// prompt caches warm: the system message starts with what is the same for
// every task of every workspace (the profile), then what is the same for
// every task of this workspace (project instructions, the environment
// without the date), then the day's date and the user's directory;
// recalled memory, the editor context and mentions, which change per
// task, come after it. The prefix is built once per task, so every turn's
// request starts with the same bytes.
type WorkspacePlanner struct {
	Root string
	// Profile is ProfileContract or ProfileTerse ("" or "auto": by Model).
	Profile string
	// Model chooses the profile under auto.
	Model string
	// Patch says the model edits with apply_patch rather than edit_file.
	Patch bool
	// Env is the environment the model is told about.
	Env Environment
	// Recall returns summaries of earlier tasks worth knowing, newest
	// first; nil for none.
	Recall func(ctx context.Context, task string) []string
	// Orientation returns what the model should know of the workspace
	// before its first step (the checks, git status, a repository map);
	// called once per task, so it stays the same for all its requests.
	// nil: none.
	Orientation func(ctx context.Context) string
	// Secret says whether a workspace-relative, '/'-separated path names a
	// secret file (tools.secretFiles): such a file is never put in the
	// prompt, as a context file or a mention. nil: the default secret
	// files (policy.DefaultSecretFiles).
	Secret func(rel string) bool
}

// Environment is what the model should know about where it runs.
type Environment struct {
	OS, Arch, Shell string
	// Date is today's date (YYYY-MM-DD); the day, not the time, so the
	// prompt stays the same all day.
	Date string
	// Sandbox describes what commands may do ("workspace-write", …) and
	// Network whether they may reach the network.
	Sandbox string
	Network bool
	// Approval says when commands need the user's approval.
	Approval string
}

// Plan implements Planner.
func (p WorkspacePlanner) Plan(ctx context.Context, t Assignment) (agent.Planned, error) {
	var b strings.Builder
	b.WriteString(Profile(SelectProfile(p.Profile, p.Model), p.Patch))
	// The workspace is untrusted: its instruction files are read as
	// mentions are, through the one reader (internal/wsread): confined to
	// it (a symlink to ~/.ssh stays out of the prompt), regular (a named
	// pipe would hang the task for good) and not secret (AGENTS.md -> .env).
	if p.Root != "" {
		for _, name := range ContextFiles {
			text, more, err := readConfined(p.Root, filepath.FromSlash(name), maxContextFile, p.Secret)
			if err != nil {
				continue
			}
			if more {
				text += "…"
			}
			fmt.Fprintf(&b, "\n\n## Project instructions (%s)\n%s", name, text)
		}
	}
	// Skills: their names and descriptions, in the stable part.
	b.WriteString(skillsSection(Skills(p.Root, p.Secret)))
	b.WriteString("\n\n")
	b.WriteString(p.environment(t))
	if p.Orientation != nil {
		if o := p.Orientation(ctx); o != "" {
			b.WriteString("\n\n" + o)
		}
	}
	if p.Recall != nil {
		if mem := p.Recall(ctx, t.Prompt); len(mem) > 0 {
			b.WriteString("\n\n## Earlier tasks in this workspace\n")
			for _, m := range mem {
				fmt.Fprintf(&b, "- %s\n", m)
			}
		}
	}
	prefix := []agent.Message{{Role: agent.RoleSystem, Content: b.String()}}
	if t.Editor != "" {
		prefix = append(prefix, agent.Message{Role: agent.RoleUser, Content: "Editor context:\n" + t.Editor})
	}
	if t.HookContext != "" {
		prefix = append(prefix, agent.Message{Role: agent.RoleUser, Content: "Context from the workspace's hooks:\n" + t.HookContext})
	}
	ms, misses := MentionsAndMisses(p.Root, t.Prompt, p.Secret)
	if m := MentionsMessage(ms); m != "" {
		prefix = append(prefix, agent.Message{Role: agent.RoleUser, Content: m})
	}
	return agent.Planned{Prefix: prefix, History: t.History, Notices: misses}, nil
}

// environment renders the environment block: the workspace's facts
// first, the date and the user's directory last.
func (p WorkspacePlanner) environment(t Assignment) string {
	e := p.Env
	var b strings.Builder
	b.WriteString("## Environment\n")
	fmt.Fprintf(&b, "- OS: %s", orUnknown(e.OS))
	if e.Arch != "" {
		fmt.Fprintf(&b, " (%s)", e.Arch)
	}
	if e.Shell != "" {
		fmt.Fprintf(&b, "; run_command runs commands with %s -c", e.Shell)
	}
	fmt.Fprintf(&b, "\n- Workspace root: %s (tool paths are relative to it; every run_command starts there)\n", p.Root)
	if branch := gitBranch(p.Root); branch != "" {
		fmt.Fprintf(&b, "- Git branch: %s (run git status to see uncommitted changes)\n", branch)
	}
	switch e.Sandbox {
	case "", "workspace-write":
		b.WriteString("- Sandbox: commands may write only inside the workspace and temporary directories")
	case "read-only":
		b.WriteString("- Sandbox: commands may not write files; change files with the edit tools")
	case "off":
		b.WriteString("- Sandbox: off; commands run with the user's own permissions")
	default:
		fmt.Fprintf(&b, "- Sandbox: %s", e.Sandbox)
	}
	if e.Network {
		b.WriteString("; network access is allowed\n")
	} else if e.Sandbox == "off" {
		b.WriteString("\n")
	} else {
		b.WriteString("; no network access (downloads, package installs and remote git fail)\n")
	}
	if e.Approval != "" {
		fmt.Fprintf(&b, "- Commands: %s\n", e.Approval)
	}
	if e.Date != "" {
		fmt.Fprintf(&b, "- Date: %s\n", e.Date)
	}
	dir := t.Dir
	if dir == "" || dir == "." {
		b.WriteString("- The user is at the workspace root")
	} else {
		fmt.Fprintf(&b, "- The user is in %s/", strings.TrimSuffix(dir, "/"))
	}
	return b.String()
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// gitBranch reads the checked-out branch from .git/HEAD (following a
// worktree's "gitdir:" file), without running git: git in an untrusted
// workspace runs what its config says (fsmonitor, filters).
func gitBranch(root string) string {
	head, _, err := readConfined(root, filepath.Join(".git", "HEAD"), 512, nil)
	if err != nil {
		// A worktree or submodule: .git is a file naming the git dir,
		// which lies outside the workspace; read only its HEAD.
		link, _, err := readConfined(root, ".git", 4096, nil)
		if err != nil || !strings.HasPrefix(link, "gitdir: ") {
			return ""
		}
		dir := strings.TrimSpace(strings.TrimPrefix(link, "gitdir: "))
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(root, dir)
		}
		if head, _, err = readConfined(dir, "HEAD", 512, nil); err != nil {
			return ""
		}
	}
	head = strings.TrimSpace(head)
	if ref, ok := strings.CutPrefix(head, "ref: refs/heads/"); ok {
		return ref
	}
	if len(head) >= 12 {
		return "detached at " + head[:12]
	}
	return ""
}

// scoped adds nested AGENTS.md files to tool results: the first time a
// task reads, edits or lists a path under a directory (below the root)
// that has an AGENTS.md, that file's text follows the tool's result, so
// its instructions apply to its subtree without walking the workspace
// up front. Results are history, so the cached prefix is untouched.
type scoped struct {
	root string
	// secret is the task's secret-file rule (Driver.Secret; nil: the
	// defaults): sub/AGENTS.md -> ../.env is never shown.
	secret func(rel string) bool
	mu     sync.Mutex
	seen   map[string]bool // directories already looked at
}

// maxScopedDepth bounds how many directories up from a path are looked at.
const maxScopedDepth = 8

// For returns the instructions newly in scope for paths ("" if none).
func (s *scoped) For(paths []string) string {
	if s == nil || s.root == "" {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	var dirs []string
	for _, p := range paths {
		p = filepath.ToSlash(p)
		if filepath.IsAbs(p) {
			rel, err := filepath.Rel(s.root, filepath.FromSlash(p))
			if err != nil || !filepath.IsLocal(rel) {
				continue
			}
			p = filepath.ToSlash(rel)
		}
		p = path.Clean(p)
		if !filepath.IsLocal(p) {
			continue
		}
		for d, n := path.Dir(p), 0; d != "." && d != "/" && n < maxScopedDepth; d, n = path.Dir(d), n+1 {
			if s.seen[d] {
				break // its ancestors were looked at with it
			}
			s.seen[d] = true
			dirs = append(dirs, d)
		}
		// A directory listed or searched is itself in scope.
		if !s.seen[p] && p != "." {
			s.seen[p] = true
			dirs = append(dirs, p)
		}
	}
	if len(dirs) == 0 {
		return ""
	}
	var b strings.Builder
	for i := len(dirs) - 1; i >= 0; i-- { // outermost first
		name := path.Join(dirs[i], "AGENTS.md")
		text, more, err := readConfined(s.root, filepath.FromSlash(name), maxContextFile, s.secret)
		if err != nil {
			continue
		}
		if more {
			text += "…"
		}
		fmt.Fprintf(&b, "\n\n## Instructions for %s/ (%s), which apply to files under it\n%s", dirs[i], name, text)
	}
	return b.String()
}

// The prompt profiles.
const (
	ProfileContract = "contract"
	ProfileTerse    = "terse"
)

// SelectProfile resolves a profile setting: "auto" or "" picks terse for
// the models tuned for agentic coding (the Codex family), whose vendor
// advises fewer instructions, and contract for every other model.
func SelectProfile(setting, model string) string {
	switch setting {
	case ProfileContract, ProfileTerse:
		return setting
	}
	if strings.Contains(strings.ToLower(model), "codex") {
		return ProfileTerse
	}
	return ProfileContract
}

// Profile is a profile's system prompt. Its text depends only on the
// profile and the edit tool, so it is byte-identical for every task.
func Profile(name string, patch bool) string {
	edit := "- Read before you edit. Change files with edit_file (exact, unique old_string, copied without read_file's line numbers; several edits of one file in one call with edits); use write_file for new files, delete_file and move_file to remove or rename."
	if patch {
		edit = "- Read before you edit. Change files with apply_patch: add, update (with enough context lines to be unique), move and delete files in one patch."
	}
	if name == ProfileTerse {
		return "You are agentls, a coding agent in the user's workspace, inside their editor or terminal.\n" +
			edit + "\n" +
			"- Minimal changes in the style of the code around them. If an edit fails because the text changed (the user types too), read the file again.\n" +
			"- Run the relevant tests before you finish; after your edits the project's checks run and you get their errors.\n" +
			"- When done, stop calling tools and answer with a short summary."
	}
	return "You are agentls, a coding agent working in the user's workspace, inside their editor or terminal.\n" +
		"Keep going until the task is completely done and verified, then answer. Do not stop at a plan or a partial fix, and do not hand the task back while something you can check is unchecked.\n" +
		"Use the tools to find out what you need: never guess file contents, names, APIs or command results. If you are unsure, read or search.\n" +
		"Before you change anything, plan briefly: what to change and how you will check it. Then act on the plan step by step, and revise it when you learn something new.\n" +
		edit + "\n" +
		"- Keep changes minimal and in the style of the surrounding code. Do not reformat unrelated code.\n" +
		"- The user may be typing in the same files: if an edit fails because the text changed, read the file again.\n" +
		"- Run the relevant tests with run_command before you finish, and fix what fails. After your edits the project's checks also run; if they fail you get the errors to fix.\n" +
		"- When done, stop calling tools and answer with a short summary of what you changed and how you verified it."
}

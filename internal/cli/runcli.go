package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// runOptions are the flags of `agentls run`.
type runOptions struct {
	trust     bool // --trust: trust the workspace settings file as it is
	workspace string
	model     string
	baseURL   string
	maxSteps  int
	noVerify  bool
	json      bool
	dryRun    bool
	review    bool
	reviewSet bool // --review given, so it overrides agent.review
	record    string
	replay    string
	session   string
	logFile   string
	allow     []string // --allow, added to tools.allow
	isolation string   // --isolation: agent.isolation for this task
	until     string   // --until: the task's stop condition
	result    string   // --result: write the run's whole outcome to this file
	approval  string   // --approval: tools.approval for this task
	settings  string   // --settings: a JSON file of the user's settings, over .agentls.json
	task      string
}

// patterns is a repeatable string flag.
type patterns []string

func (p *patterns) String() string { return strings.Join(*p, ", ") }
func (p *patterns) Set(v string) error {
	if strings.TrimSpace(v) == "" {
		return errors.New("empty pattern")
	}
	*p = append(*p, v)
	return nil
}

// errUsage marks errors that exit 2.
var errUsage = errors.New("usage")

const runUsage = `usage: agentls run [flags] "task"

Runs the agent on the workspace (the nearest directory up from the current
one with .git, go.mod, package.json, Cargo.toml or pyproject.toml, else the
current directory; --workspace overrides),
streams what it does to stderr, and writes its edits to disk.

Exit status: 0 done and verified, or done with nothing to verify (no file
changed, verification disabled, or no checks found); 1 failed, the checks
still fail, the task stopped at its limit (agent.maxSteps, agent.maxCostUSD),
or a command was refused because nobody could approve it; 2 bad usage;
130 cancelled (Ctrl-C).

Flags:
`

// parseRunArgs reads flags and the task; flags may come before or after
// the task words, which are joined with spaces.
func parseRunArgs(args []string, stderr io.Writer) (runOptions, error) {
	var o runOptions
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, runUsage)
		fs.PrintDefaults()
	}
	fs.StringVar(&o.workspace, "workspace", "", "workspace directory (default: the project around the current directory: the nearest directory up with .git, go.mod, package.json, Cargo.toml or pyproject.toml)")
	fs.StringVar(&o.model, "model", "", "model name (overrides llm.model and AGENTLS_MODEL)")
	fs.StringVar(&o.baseURL, "base-url", "", "OpenAI-compatible API root, e.g. http://localhost:11434/v1 (overrides llm.baseURL)")
	fs.IntVar(&o.maxSteps, "max-steps", 0, "model turns at most (overrides agent.maxSteps)")
	fs.BoolVar(&o.noVerify, "no-verify", false, "do not run the project's checks after the edits")
	fs.BoolVar(&o.json, "json", false, "events as JSON lines on stderr instead of text")
	fs.BoolVar(&o.dryRun, "dry-run", false, "write nothing; print the edits as a unified diff on stdout")
	fs.BoolVar(&o.review, "review", false, "ask before writing each changed file (needs a terminal)")
	fs.StringVar(&o.record, "record", "", "write every model exchange to this file (JSON lines, API key redacted)")
	fs.StringVar(&o.replay, "replay", "", "serve the model from a recording made with --record; no network")
	fs.StringVar(&o.session, "session", "", "continue this session with its history (see agentls sessions)")
	fs.StringVar(&o.logFile, "log-file", "", "write debug logs to this file")
	fs.BoolVar(&o.trust, "trust", false, "trust the workspace's .agentls.json as it is now, including settings that widen what agentls may run (remembered until the file changes)")
	fs.StringVar(&o.isolation, "isolation", "", "where the task works, `MODE`: none (the workspace) or worktree (a git worktree of its own; its change waits for agentls worktrees merge) (overrides agent.isolation)")
	fs.StringVar(&o.until, "until", "", "keep the task going after the model stops until `CMD` succeeds in the sandbox, or the budget ends (exit 1)")
	fs.StringVar(&o.result, "result", "", "write the run's outcome to this JSON file when it ends: the result, a patch of every change against the starting commit (new, deleted and binary files too), the transcript, the events and the session (for CI runners and delegated jobs)")
	fs.StringVar(&o.settings, "settings", "", "a JSON file of settings (as an editor sends them) that win over .agentls.json and the environment")
	fs.StringVar(&o.approval, "approval", "", "tools.approval for this task: sandboxed, always-ask or never (overrides the settings)")
	fs.Var((*patterns)(&o.allow), "allow", "let run_command and MCP tools run what `PATTERN` matches without asking, as tools.allow does (repeatable; tools.deny still wins)")

	var words []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return o, err
			}
			return o, fmt.Errorf("%w: %v", errUsage, err)
		}
		rest := fs.Args()
		// The flag package drops a "--" that ends the flags, so it is
		// found where the parse stopped: everything after it is words.
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" && (n < 2 || !takesValue(fs, args[n-2])) {
			words = append(words, rest...)
			break
		}
		args = rest
		if len(args) == 0 {
			break
		}
		words = append(words, args[0])
		args = args[1:]
	}
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "review" {
			o.reviewSet = true
		}
	})
	o.task = strings.TrimSpace(strings.Join(words, " "))
	switch {
	case o.task == "":
		return o, fmt.Errorf("%w: no task given; agentls run \"describe the change\"", errUsage)
	case o.maxSteps < 0:
		return o, fmt.Errorf("%w: --max-steps must be positive", errUsage)
	case o.record != "" && o.replay != "":
		return o, fmt.Errorf("%w: --record and --replay exclude each other", errUsage)
	case o.dryRun && o.review:
		return o, fmt.Errorf("%w: --dry-run and --review exclude each other", errUsage)
	case o.isolation != "" && o.isolation != "none" && o.isolation != "worktree":
		return o, fmt.Errorf("%w: --isolation is none or worktree", errUsage)
	case o.approval != "" && o.approval != "sandboxed" && o.approval != "always-ask" && o.approval != "never":
		return o, fmt.Errorf("%w: --approval is sandboxed, always-ask or never", errUsage)
	}
	return o, nil
}

// takesValue reports whether arg is a flag that takes the next argument
// as its value (--model, not --json or --model=x).
func takesValue(fs *flag.FlagSet, arg string) bool {
	name, ok := strings.CutPrefix(arg, "-")
	if !ok || strings.Contains(name, "=") {
		return false
	}
	f := fs.Lookup(strings.TrimPrefix(name, "-"))
	if f == nil {
		return false
	}
	b, isBool := f.Value.(interface{ IsBoolFlag() bool })
	return !isBool || !b.IsBoolFlag()
}

// IsTerminal reports whether v is an *os.File on a terminal. A character
// device is not enough: /dev/null is one too.
func IsTerminal(v any) bool { return isTerminal(v) }

func isTerminal(v any) bool {
	f, ok := v.(*os.File)
	return ok && f != nil && isTTY(f.Fd())
}

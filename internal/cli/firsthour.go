package cli

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/assemble"
	projcmd "github.com/agentls/agentls/internal/commands"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/session"
)

// expandCommand turns a task typed as "/name args" into the project
// command's prompt (.agentls/commands/name.md) or a skill's. A task that names none is
// left as typed, unless the project has commands, the name is not a path
// that exists ("/tmp is full" stays a sentence) and so is a mistyped
// command: that is a usage error naming the commands there are.
func expandCommand(root, task string, warn func(string)) (string, error) {
	name, args, ok := projcmd.Split(task)
	if !ok {
		return task, nil
	}
	cmds, err := assemble.Commands(root, nil) // commands and skills; the default secret files: the settings are read after
	if err != nil && warn != nil {
		warn(err.Error())
	}
	if c, ok := projcmd.Find(cmds, name); ok {
		return c.Expand(args), nil
	}
	if len(cmds) == 0 {
		return task, nil
	}
	if _, err := os.Lstat("/" + name); err == nil {
		return task, nil
	}
	msg := fmt.Sprintf("no project command /%s in %s; there are: %s", name, projcmd.Dir, strings.Join(projcmd.Names(cmds), ", "))
	if err != nil {
		msg += " (left out: " + err.Error() + ")"
	}
	return "", errors.New(msg)
}

// checkEndpoint refuses a run that cannot reach any model before it
// starts: no key for the default endpoint (OpenAI's) means the user has
// set nothing yet, and the network error that would follow (a DNS failure
// offline, a 401 online) does not say what to set.
func checkEndpoint(cfg config.Config) error {
	u, err := url.Parse(cfg.LLM.BaseURL)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return fmt.Errorf("llm.baseURL %q is not a URL; set --base-url or AGENTLS_BASE_URL to an OpenAI-compatible API root, e.g. http://localhost:11434/v1 (Ollama)", cfg.LLM.BaseURL)
	}
	if cfg.LLM.APIKey != "" || !strings.EqualFold(u.Hostname(), "api.openai.com") {
		return nil
	}
	return errors.New(`no model is set up: set AGENTLS_API_KEY (or OPENAI_API_KEY) for OpenAI, ` +
		`or point --base-url / AGENTLS_BASE_URL at a local OpenAI-compatible server ` +
		`(e.g. http://localhost:11434/v1 for Ollama; no key needed). ` +
		`To try agentls without either: make demo-cli, which replays a recorded conversation (agentls run --replay)`)
}

// checkWorkspace stops agentls from silently making a whole home
// directory, or /, the workspace it reads and edits: that happens when
// `agentls run` starts outside any project. On a terminal it asks; without
// one it refuses and says how to mean it (--workspace). A folder with no
// project marker is only said on the start line: it may be a new project.
func (c *cliRun) checkWorkspace(root string) (code int, stop bool) {
	if c.o.workspace != "" {
		return 0, false // the user named it
	}
	home, _ := os.UserHomeDir()
	clean := filepath.Clean(root)
	whole := clean == string(filepath.Separator) || (home != "" && clean == filepath.Clean(home))
	if !whole {
		c.noProject = !hasMarker(root) // said on the start line
		return 0, false
	}
	what := "your home directory " + clean
	if clean == string(filepath.Separator) {
		what = "the whole file system (/)"
	}
	if isTerminal(c.stdin) && isTerminal(c.stderr) {
		ok, err := askYesNo(context.Background(), c.in(), c.stderr,
			fmt.Sprintf("agentls would work on %s: there is no project here (%s). Continue?", what, strings.Join(rootMarkers, ", ")))
		if err == nil && ok {
			return 0, false
		}
		return c.usage("not run: cd into a project, or pass --workspace DIR"), true
	}
	return c.usage("refusing to make %s the workspace (there is no project here: %s); cd into a project, or pass --workspace %s to mean it",
		what, strings.Join(rootMarkers, ", "), clean), true
}

// hasMarker: root holds a project marker (findRoot stops at the first
// directory that does, and returns where it started when none does).
func hasMarker(d string) bool {
	for _, m := range rootMarkers {
		if _, err := os.Lstat(filepath.Join(d, m)); err == nil {
			return true
		}
	}
	return false
}

// endSetupFailure handles a task that never reached the model (connection
// refused, a bad URL, a refused key): it is no work to continue or
// remember, so its session (when the task started it) and transcript are
// removed, and the user reads what to fix instead of a "continue it with"
// hint. It reports whether it did.
func endSetupFailure(st *session.Recorder, res agent.Result, warn func(string), note func(string)) bool {
	if st == nil || !session.NeverReachedModel(res) {
		return false
	}
	if _, err := st.Forget(); err != nil {
		warn(err.Error())
	}
	note("nothing was recorded: the task never reached the model. Check llm.baseURL (--base-url), the key (AGENTLS_API_KEY) and that the server runs; `agentls run --help` lists the flags")
	return true
}

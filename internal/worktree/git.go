package worktree

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/agentls/agentls/internal/proc"
)

// gitTimeout bounds one git command: a snapshot of a large tree copies
// it, which takes seconds, not minutes.
const gitTimeout = 5 * time.Minute

// safety are the settings every git command agentls runs carries: none
// of the repository's hooks or its file-system monitor runs (they are
// programs the workspace names, and agentls runs git outside the
// sandbox), nothing is signed, and the snapshot commits have an author.
var safety = []string{
	"-c", "core.hooksPath=/dev/null",
	"-c", "core.fsmonitor=false",
	"-c", "commit.gpgsign=false",
	"-c", "user.name=agentls",
	"-c", "user.email=agentls@localhost",
	"-c", "core.quotePath=false",
}

// gitEnv is the environment of git: the server's, less what would point
// git at another repository or ask a question.
func gitEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY", "GIT_CEILING_DIRECTORIES", "GIT_EXTERNAL_DIFF":
			continue
		}
		env = append(env, kv)
	}
	// GIT_LFS_SKIP_SMUDGE: making a worktree never downloads large files
	// (they stay pointers there), so a task's start sends nothing anywhere.
	return append(env, "GIT_TERMINAL_PROMPT=0", "LC_ALL=C", "GIT_OPTIONAL_LOCKS=0", "GIT_LFS_SKIP_SMUDGE=1")
}

// runGit runs git in dir through internal/proc (process group, kill on
// cancellation, no secret in its environment), outside the sandbox: it
// writes the repository's own .git, which no sandboxed process may. With
// quiet, stderr is dropped, so the output is git's stdout alone (for
// parsing); otherwise it is both, for the error message.
func runGit(ctx context.Context, dir string, quiet bool, args ...string) (string, error) {
	return runGitEnv(ctx, dir, quiet, nil, args...)
}

// runGitEnv is runGit with more variables in git's environment.
func runGitEnv(ctx context.Context, dir string, quiet bool, env []string, args ...string) (string, error) {
	git, err := exec.LookPath("git")
	if err != nil {
		return "", fmt.Errorf("%w: git is not installed (or not in PATH)", ErrNoGit)
	}
	argv := append([]string{git}, safety...)
	argv = append(argv, args...)
	if quiet {
		argv = append([]string{"/bin/sh", "-c", `exec "$@" 2>/dev/null`, "sh"}, argv...)
	}
	res, err := proc.Run(ctx, proc.Spec{Argv: argv, Dir: dir, Env: append(gitEnv(), env...), Timeout: gitTimeout,
		OutputLimit: 64 << 20, Sandbox: proc.Sandbox{Mode: proc.ModeOff}})
	if err != nil {
		return "", fmt.Errorf("git %s: %w", args[0], err)
	}
	if res.ExitCode != 0 || res.TimedOut || res.Cancelled {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		msg := strings.TrimSpace(res.Output)
		if quiet || msg == "" {
			msg = fmt.Sprintf("exit %d", res.ExitCode)
		}
		return res.Output, &gitError{args: args, msg: msg}
	}
	return res.Output, nil
}

type gitError struct {
	args []string
	msg  string
}

func (e *gitError) Error() string {
	return fmt.Sprintf("git %s: %s", strings.Join(e.args, " "), e.msg)
}

// ErrNoGit is returned when the workspace cannot have a worktree: git is
// missing, the workspace is not in a git repository, or the repository
// has no commit yet. The task then runs without isolation.
var ErrNoGit = errors.New("no git worktree")

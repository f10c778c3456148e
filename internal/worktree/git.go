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

// safety are the settings every git command agentls runs carries, as
// command-line configuration (GIT_CONFIG_COUNT, which outranks every
// configuration file): git here runs outside the sandbox, so it must run
// no program the repository, the worktree (the model's pen) or a
// configuration file names. No hook (core.hooksPath), no file-system
// monitor, no pager, editor, ssh or credential program, no external diff,
// no transport at all (protocol.allow), no automatic gc or maintenance,
// no submodule recursion, no signing, and no attributes from the user's
// global file (core.attributesFile; GIT_ATTR_NOSYSTEM drops the system
// one). The filter, diff and merge drivers the configuration defines,
// which the worktree's .gitattributes can turn on for any file, are
// neutralised one by one (drivers). The snapshot commits have an author.
var safety = [][2]string{
	{"core.hooksPath", "/dev/null"},
	{"core.fsmonitor", "false"},
	{"core.pager", "cat"},
	{"core.editor", "false"},
	{"sequence.editor", "false"},
	{"core.sshCommand", "false"},
	{"core.askPass", ""},
	{"credential.helper", ""},
	{"protocol.allow", "never"},
	{"diff.external", ""},
	{"core.attributesFile", "/dev/null"},
	{"core.alternateRefsCommand", ""},
	{"submodule.recurse", "false"},
	{"gc.auto", "0"},
	{"maintenance.auto", "false"},
	{"commit.gpgsign", "false"},
	{"tag.gpgSign", "false"},
	{"user.name", "agentls"},
	{"user.email", "agentls@localhost"},
	{"core.quotePath", "false"},
}

// driverKeys are what turns a defined filter, diff or merge driver into a
// program: each is set empty (or false) for every driver defined.
var driverKeys = map[string][][2]string{
	"filter": {{"clean", ""}, {"smudge", ""}, {"process", ""}, {"required", "false"}},
	"diff":   {{"textconv", ""}, {"command", ""}, {"cachetextconv", "false"}},
	"merge":  {{"driver", ""}},
}

// drivers lists the filter, diff and merge drivers git's configuration
// defines for the repository that gitDirArgs (leading --git-dir= and
// --work-tree= arguments, or none) name from dir, in every scope (system,
// global, the repository's, includes), as settings that neutralise them.
// Reading the configuration runs nothing.
func drivers(ctx context.Context, git, dir string, gitDirArgs []string, env []string) ([][2]string, error) {
	argv := []string{"/bin/sh", "-c", `exec "$@" 2>/dev/null`, "sh", git}
	argv = append(append(argv, gitDirArgs...), "config", "--null", "--get-regexp", `^(filter|diff|merge)\.`)
	const limit = 4 << 20
	res, err := proc.Run(ctx, proc.Spec{Argv: argv, Dir: dir, Env: withConfig(env, safety), Timeout: gitTimeout,
		OutputLimit: limit, Sandbox: proc.Sandbox{Mode: proc.ModeOff}})
	if err != nil {
		return nil, fmt.Errorf("git config: %w", err)
	}
	switch {
	case res.ExitCode == 1 && strings.TrimSpace(res.Output) == "": // none defined
		return nil, nil
	case res.ExitCode != 0 || res.TimedOut || res.Cancelled || len(res.Output) >= limit-4096:
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &gitError{args: []string{"config", "--get-regexp"}, msg: fmt.Sprintf("could not list the filter, diff and merge drivers to turn them off (exit %d)", res.ExitCode)}
	}
	seen := map[string]bool{}
	var out [][2]string
	for _, e := range strings.Split(res.Output, "\x00") {
		key, _, _ := strings.Cut(e, "\n")
		section, rest, ok := strings.Cut(key, ".")
		i := strings.LastIndexByte(rest, '.')
		if !ok || i <= 0 {
			continue
		}
		name := rest[:i]
		if seen[section+"."+name] {
			continue
		}
		seen[section+"."+name] = true
		for _, kv := range driverKeys[section] {
			out = append(out, [2]string{section + "." + name + "." + kv[0], kv[1]})
		}
	}
	return out, nil
}

// withConfig is env with settings as command-line configuration
// (GIT_CONFIG_COUNT, GIT_CONFIG_KEY_n, GIT_CONFIG_VALUE_n): unlike -c, a
// key may hold any character (a driver's name may hold '=').
func withConfig(env []string, settings [][2]string) []string {
	out := append([]string(nil), env...)
	out = append(out, fmt.Sprintf("GIT_CONFIG_COUNT=%d", len(settings)))
	for i, kv := range settings {
		out = append(out, fmt.Sprintf("GIT_CONFIG_KEY_%d=%s", i, kv[0]), fmt.Sprintf("GIT_CONFIG_VALUE_%d=%s", i, kv[1]))
	}
	return out
}

// gitEnv is the environment of git: the server's without any GIT_
// variable (which could point git at another repository, configure it or
// name a program), and with those that keep git from asking, paging,
// reading the system's attributes or locking the user's index.
func gitEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "GIT_") {
			continue
		}
		env = append(env, kv)
	}
	// GIT_LFS_SKIP_SMUDGE: making a worktree never downloads large files
	// (they stay pointers there), so a task's start sends nothing anywhere.
	return append(env, "GIT_TERMINAL_PROMPT=0", "LC_ALL=C", "GIT_OPTIONAL_LOCKS=0", "GIT_LFS_SKIP_SMUDGE=1",
		"GIT_ATTR_NOSYSTEM=1", "GIT_PAGER=cat", "GIT_EDITOR=false")
}

// readsNoContent are the commands agentls runs that never pass a file's
// content through a filter or diff driver: rev-parse and branch read refs,
// cat-file blob (without --filters or --textconv) prints the object as
// stored. They skip listing the drivers (one process fewer each; a task's
// change reads one blob per file).
var readsNoContent = map[string]bool{"rev-parse": true, "branch": true, "cat-file": true}

// runGit runs git in dir through internal/proc (process group, kill on
// cancellation, no secret in its environment), outside the sandbox: it
// writes the repository's own .git, which no sandboxed process may, and so
// runs with every setting that would start a program neutralised (safety,
// drivers). With quiet, stderr is dropped, so the output is git's stdout
// alone (for parsing); otherwise it is both, for the error message.
func runGit(ctx context.Context, dir string, quiet bool, args ...string) (string, error) {
	return runGitEnv(ctx, dir, quiet, nil, args...)
}

// runGitEnv is runGit with more variables in git's environment.
func runGitEnv(ctx context.Context, dir string, quiet bool, extra []string, args ...string) (string, error) {
	return runGitWith(ctx, dir, quiet, extra, safety, args...)
}

// cloneSafety are the settings of a delegated job's clone (Clone): the
// worker's operator, not the model, names the repository, and reaching it
// needs a transport and the operator's own ssh and credentials; still, no
// hook, no ext:: transport (a command line as a URL), no submodule and no
// file-system monitor.
var cloneSafety = [][2]string{
	{"core.hooksPath", "/dev/null"},
	{"core.fsmonitor", "false"},
	{"protocol.ext.allow", "never"},
	{"submodule.recurse", "false"},
	{"core.pager", "cat"},
}

// runGitWith is runGitEnv with base as the settings every command carries.
func runGitWith(ctx context.Context, dir string, quiet bool, extra []string, base [][2]string, args ...string) (string, error) {
	git, err := exec.LookPath("git")
	if err != nil {
		return "", fmt.Errorf("%w: git is not installed (or not in PATH)", ErrNoGit)
	}
	var gitDirArgs []string
	for _, a := range args {
		if !strings.HasPrefix(a, "--git-dir=") && !strings.HasPrefix(a, "--work-tree=") {
			break
		}
		gitDirArgs = append(gitDirArgs, a)
	}
	env := append(gitEnv(), extra...)
	settings := base
	if len(args) > len(gitDirArgs) && !readsNoContent[args[len(gitDirArgs)]] {
		// Every other command may read or write a file's content (status,
		// add, diff, worktree add's checkout) and so could run a driver.
		more, err := drivers(ctx, git, dir, gitDirArgs, env)
		if err != nil {
			return "", err
		}
		settings = append(append([][2]string(nil), base...), more...)
	}
	argv := append([]string{git}, args...)
	if quiet {
		argv = append([]string{"/bin/sh", "-c", `exec "$@" 2>/dev/null`, "sh"}, argv...)
	}
	res, err := proc.Run(ctx, proc.Spec{Argv: argv, Dir: dir, Env: withConfig(env, settings), Timeout: gitTimeout,
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

package worktree

import (
	"context"
	"fmt"
	"os"
	"strings"
)

// Git runs git in dir (through internal/proc, hooks off, as every git
// command here) and returns its standard output.
func Git(ctx context.Context, dir string, args ...string) (string, error) {
	return runGit(ctx, dir, true, args...)
}

// GitVerbose is Git with the standard error in the output and in the
// error, for commands whose failure a person reads (clone, fetch).
func GitVerbose(ctx context.Context, dir string, args ...string) (string, error) {
	return runGit(ctx, dir, false, args...)
}

// Clone clones repo into dest without a checkout, for a delegated job
// (cloneSafety: the transports and the operator's credentials, no hook).
// What runs in the clone afterwards is GitVerbose's, with every safety.
func Clone(ctx context.Context, dir, repo, dest string) error {
	_, err := runGitWith(ctx, dir, false, nil, cloneSafety, "clone", "--quiet", "--no-checkout", "--", repo, dest)
	return err
}

// Top is the top directory of the repository around dir.
func Top(ctx context.Context, dir string) (string, error) {
	out, err := runGit(ctx, dir, true, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", fmt.Errorf("%w: %s is not in a git repository", ErrNoGit, dir)
	}
	return strings.TrimSpace(out), nil
}

// Head is the commit checked out in the repository around dir.
func Head(ctx context.Context, dir string) (string, error) {
	out, err := runGit(ctx, dir, true, "rev-parse", "--verify", "-q", "HEAD^{commit}")
	if err != nil {
		return "", fmt.Errorf("%w: the repository has no commit yet", ErrNoGit)
	}
	return strings.TrimSpace(out), nil
}

// PatchSince is everything in the working tree of the repository around
// dir against commit, as `git diff --binary`: changed, new (not ignored)
// and deleted files, binary ones included. It stages into a temporary
// index, so the repository's own index is left as it was.
func PatchSince(ctx context.Context, dir, commit string) (string, error) {
	top, err := Top(ctx, dir)
	if err != nil {
		return "", err
	}
	idx, err := os.CreateTemp("", "agentls-index-*")
	if err != nil {
		return "", err
	}
	idx.Close()
	defer os.Remove(idx.Name())
	env := []string{"GIT_INDEX_FILE=" + idx.Name()}
	if _, err := runGitEnv(ctx, top, false, env, "read-tree", commit); err != nil {
		return "", err
	}
	if _, err := runGitEnv(ctx, top, false, env, "add", "--all", "--", "."); err != nil {
		return "", err
	}
	return runGitEnv(ctx, top, true, env, "diff", "--cached", "--binary", "--no-ext-diff", "--no-textconv", "--no-renames", "--no-color", commit)
}

// FromPatch makes the worktree of a change made elsewhere (a delegated
// job): a branch agentls/<id> at commit, the patch applied and committed,
// the task ended. Its change then waits for review, merge or discard like
// a worktree task's.
func FromPatch(ctx context.Context, o Options, commit, patch string) (*Tree, error) {
	top, prefix, err := locate(ctx, o)
	if err != nil {
		return nil, err
	}
	if _, err := runGit(ctx, top, true, "cat-file", "-e", commit+"^{commit}"); err != nil {
		return nil, fmt.Errorf("commit %s is not in %s: fetch it first (git fetch)", commit, top)
	}
	t, err := newTree(o, top, prefix)
	if err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			_ = t.Discard(context.WithoutCancel(ctx))
		}
	}()
	if err := t.add(ctx, commit); err != nil {
		return nil, err
	}
	t.Base = commit
	if err := t.save(); err != nil {
		return nil, err
	}
	if strings.TrimSpace(patch) != "" {
		pf, err := os.CreateTemp("", "agentls-patch-*")
		if err != nil {
			return nil, err
		}
		defer os.Remove(pf.Name())
		_, err = pf.WriteString(patch)
		if cerr := pf.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, err
		}
		if _, err := t.git(ctx, false, "apply", "--binary", "--index", "--whitespace=nowarn", pf.Name()); err != nil {
			return nil, fmt.Errorf("the job's patch does not apply at %s: %w", commit, err)
		}
	}
	head, err := t.commit(ctx, "agentls: delegated job "+o.ID)
	if err != nil {
		return nil, err
	}
	t.Head = head
	if err := t.SetState(StateEnded); err != nil {
		return nil, err
	}
	ok = true
	return t, nil
}

package assemble

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/agentls/agentls/internal/session"
	"github.com/agentls/agentls/internal/tools"
	"github.com/agentls/agentls/internal/worktree"
)

// Isolation values (agent.isolation).
const (
	IsolationNone     = "none"
	IsolationWorktree = "worktree"
)

// isolate gives a worktree task its worktree (a new one, or tc.Worktree to
// continue in) and turns spec to it: the root, the files, the sandbox.
// nil with no error: the task runs in the user's tree (isolation none, or
// no git, which warn reports).
func isolate(ctx context.Context, tc TaskConfig, spec *Spec, id string, warn func(string)) (*worktree.Tree, error) {
	iso := tc.Isolation
	if iso == "" {
		iso = spec.Config.Agent.Isolation
	}
	if iso != IsolationWorktree && tc.Worktree == nil {
		return nil, nil
	}
	if tc.Hooks.Backend != nil {
		warn("agent.isolation \"worktree\" does not apply to an external agent (agent.backend.acp), which works in the editor's tree; the task runs without isolation")
		return nil, nil
	}
	stateDir := tc.StateDir
	if stateDir == "" {
		d, err := session.StateDir()
		if err != nil {
			return nil, fmt.Errorf("%w: no state directory for the worktree: %v", ErrWontRun, err)
		}
		stateDir = d
	}
	wt := tc.Worktree
	if wt == nil {
		var buffers map[string][]byte
		if tc.Buffers != nil {
			buffers = tc.Buffers()
		}
		var err error
		wt, err = worktree.Create(ctx, worktree.Options{Root: spec.Root, StateDir: stateDir, ID: id, Task: tc.Prompt, Buffers: buffers})
		switch {
		case errors.Is(err, worktree.ErrNoGit):
			warn(fmt.Sprintf("agent.isolation is \"worktree\" but %v; the task runs in your tree without isolation (agent.isolation \"none\")", err))
			return nil, nil
		case err != nil:
			return nil, fmt.Errorf("%w: the task's worktree could not be made: %v", ErrWontRun, err)
		}
		for _, n := range wt.Notes {
			warn("worktree: " + n)
		}
	} else if err := wt.SetState(worktree.StateRunning); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrWontRun, err)
	}
	disk, err := tools.NewDiskWorkspace(wt.Dir())
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrWontRun, err)
	}
	// What runs in the worktree sees neither the user's tree nor another
	// task's worktree, nor the rest of the state directory (the worktrees'
	// own directory is masked around this one, see proc's DenyRead).
	userRoot := spec.Root
	spec.Config.Sandbox.DenyRead = append(append([]string(nil), spec.Config.Sandbox.DenyRead...), userRoot, worktree.Dir(stateDir), stateDir)
	if top := wt.Top; top != userRoot && !isUnder(wt.Path, top) {
		spec.Config.Sandbox.DenyRead = append(spec.Config.Sandbox.DenyRead, top)
	}
	spec.Root = wt.Dir()
	spec.Workspace = disk
	return wt, nil
}

func isUnder(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && filepath.IsLocal(rel)
}

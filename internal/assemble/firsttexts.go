package assemble

import (
	"context"
	"sync"

	"github.com/agentls/agentls/internal/agent"
)

// firstTexts is a task's workspace that keeps each file's text as the
// task's first edit of it found it: the baseline the verify gate compares
// a failure with (gate.Before), whatever the front end.
type firstTexts struct {
	agent.Workspace

	mu    sync.Mutex
	first map[string]firstText
}

type firstText struct {
	text    []byte
	existed bool
}

func recordFirstTexts(w agent.Workspace) *firstTexts {
	return &firstTexts{Workspace: w, first: map[string]firstText{}}
}

// Unwrap is the workspace wrapped, for the optional interfaces the tools
// look for (tools.As).
func (f *firstTexts) Unwrap() agent.Workspace { return f.Workspace }

// Edit implements agent.Workspace. The workspace may call transform again
// on a newer text (the user typed); the last call's is the text the edit
// landed on.
func (f *firstTexts) Edit(ctx context.Context, rel string, transform func(old []byte, exists bool) ([]byte, error)) error {
	var seen firstText
	err := f.Workspace.Edit(ctx, rel, func(old []byte, exists bool) ([]byte, error) {
		next, err := transform(old, exists)
		if err == nil {
			seen = firstText{text: append([]byte(nil), old...), existed: exists}
		}
		return next, err
	})
	if err == nil {
		f.mu.Lock()
		if _, ok := f.first[rel]; !ok {
			f.first[rel] = seen
		}
		f.mu.Unlock()
	}
	return err
}

// before is gate.Before: known only for files the task edited through
// the workspace (not those a command wrote).
func (f *firstTexts) before(rel string) ([]byte, bool, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	t, ok := f.first[rel]
	return t.text, t.existed, ok
}

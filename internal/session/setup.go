package session

import (
	"errors"
	"io/fs"
	"os"

	"github.com/agentls/agentls/internal/agent"
)

// NeverReachedModel reports whether a task ended on a model error before
// any answer came: the endpoint refused the connection, its URL or host
// was wrong, the key was refused. Such a task is a set-up failure, not
// work: it is not remembered for later tasks (End), and a front end may
// Forget it altogether.
func NeverReachedModel(res agent.Result) bool {
	return res.Reason == "llm" && res.Steps == 0 && res.Usage.InputTokens == 0 && res.Usage.OutputTokens == 0
}

// Forget removes what Begin wrote for a task that never reached the model,
// after End: the transcript, and the session's file when the task started
// that session (a session with earlier tasks keeps them, and this one).
// It reports whether the session is gone.
func (t *Recorder) Forget() (bool, error) {
	if t == nil {
		return false, nil
	}
	var errs []error
	if p := t.TranscriptPath(); p != "" {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	if !t.fresh {
		return false, errors.Join(errs...)
	}
	if err := os.Remove(t.store.sessionPath(t.session)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		errs = append(errs, err)
	}
	return len(errs) == 0, errors.Join(errs...)
}

package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// Delete removes a session from the store, so that List no longer shows it
// and Load no longer finds it. Deleting a session that is not there is no
// error. The transcripts of its tasks stay: they are the user's record.
func (s *Store) Delete(id string) error {
	if !ValidID(id) {
		return fmt.Errorf("%q is not a session ID", id)
	}
	if err := os.Remove(s.sessionPath(id)); err != nil && !isNotExist(err) {
		return fmt.Errorf("delete session %s: %w", id, err)
	}
	return nil
}

// Create records a new session with no task yet, so that it can be loaded
// or resumed (by a client in another process) before its first task. An
// existing session is left as it is.
func (s *Store) Create(id string) error {
	if !ValidID(id) {
		return fmt.Errorf("%q is not a session ID", id)
	}
	f, err := os.OpenFile(s.sessionPath(id), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("create session %s: %w", id, err)
	}
	b, err := json.Marshal(record{Type: "session", Time: s.opts.Now(), ID: id, Workspace: s.root})
	if err == nil {
		_, err = f.Write(append(b, '\n'))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(s.sessionPath(id))
		return fmt.Errorf("create session %s: %w", id, err)
	}
	return nil
}

package session

import (
	"fmt"
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

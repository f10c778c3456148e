package verify

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// The sandboxed checks' cache layers go to a state directory of the tests'
// own, not the user's.
func TestMain(m *testing.M) {
	state, err := os.MkdirTemp("", "verify-test-state-")
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	os.Setenv("XDG_STATE_HOME", state)
	code := m.Run()
	_ = filepath.Walk(state, func(p string, _ os.FileInfo, _ error) error { _ = os.Chmod(p, 0o700); return nil })
	os.RemoveAll(state)
	os.Exit(code)
}

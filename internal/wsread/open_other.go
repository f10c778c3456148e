//go:build !linux

package wsread

import (
	"errors"
	"os"
	"syscall"
)

// openBeneath opens rel below root through os.Root (links that lead out
// fail), without blocking where the system has O_NONBLOCK.
func openBeneath(root, rel string) (*os.File, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return r.OpenFile(rel, os.O_RDONLY|oNonblock, 0)
}

// fdPath is not known here; openedRel then resolves the name.
func fdPath(*os.File) (string, error) { return "", errors.New("no /proc") }

const oNonblock = syscall.O_NONBLOCK

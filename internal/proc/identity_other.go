//go:build !linux

package proc

import (
	"fmt"
	"os"
)

// workspaceIdentity tells a directory from another made later at the same
// path, as far as os.Stat can: its inode.
func workspaceIdentity(ws string) string {
	fi, err := os.Stat(ws)
	if err != nil {
		return ""
	}
	return fmt.Sprint(fi.Sys())
}

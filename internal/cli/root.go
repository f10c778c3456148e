package cli

import (
	"os"
	"path/filepath"
)

// rootMarkers mark a project's root, as git and gopls find it.
var rootMarkers = []string{".git", "go.mod", "package.json", "Cargo.toml", "pyproject.toml"}

// findRoot walks up from dir to the nearest directory holding one of
// rootMarkers, so that agentls run in a subdirectory works on the whole
// project; dir itself when none is found.
func findRoot(dir string) string {
	for d := dir; ; {
		for _, m := range rootMarkers {
			if _, err := os.Lstat(filepath.Join(d, m)); err == nil {
				return d
			}
		}
		up := filepath.Dir(d)
		if up == d {
			return dir
		}
		d = up
	}
}

// WorkspaceRoot is the workspace a command works in: dir when given, else
// the project around the current directory (as agentls run finds it).
func WorkspaceRoot(dir string) (string, error) { return workspaceRoot(dir) }

// workspaceRoot is --workspace when given, else the project around the
// current directory.
func workspaceRoot(flag string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	return findRoot(wd), nil
}

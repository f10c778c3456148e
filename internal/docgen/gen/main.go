// Command gen writes docgen's pages under the repository root given as
// its argument: `go generate ./internal/docgen` (make docs) runs it.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentls/agentls/internal/docgen"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gen REPOSITORY-ROOT")
		os.Exit(2)
	}
	root := os.Args[1]
	if err := os.MkdirAll(filepath.Join(root, docgen.Dir), 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for rel, content := range docgen.Pages() {
		if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(rel)), content, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}

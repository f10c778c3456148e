package main

import (
	"fmt"
	"io"
)

// runTask is the headless `agentls run`; see runcli.go.
func runTask(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "agentls run: not available in this build yet")
	return 2
}

// Command fakeacp is the project's scripted ACP agent (internal/testkit/fakeacp)
// on stdin/stdout, for tests of agentls's bridge.
package main

import (
	"os"

	"github.com/agentls/agentls/internal/testkit/fakeacp"
)

func main() { fakeacp.Serve(os.Stdin, os.Stdout) }

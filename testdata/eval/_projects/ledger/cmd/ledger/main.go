// Command ledger reports on a plain-text accounting journal.
package main

import (
	"os"

	"example.com/ledger/cli"
)

func main() {
	os.Exit(cli.Run(os.Args[1:], os.Stdout, os.Stderr))
}

// Package cli is the ledger command: flags, subcommands and output.
package cli

import (
	"fmt"
	"io"
	"os"
)

// Run runs the ledger command with args (without the program name) and
// returns its exit code.
func Run(args []string, stdout, stderr io.Writer) int {
	g, rest, err := parseGlobal(args)
	if err != nil {
		fmt.Fprintln(stderr, "ledger:", err)
		return 2
	}
	if len(rest) == 0 {
		fmt.Fprintln(stderr, usage)
		return 2
	}
	cmd, ok := commands[rest[0]]
	if !ok {
		fmt.Fprintf(stderr, "ledger: unknown command %q\n%s\n", rest[0], usage)
		return 2
	}
	if err := cmd(g, rest[1:], stdout); err != nil {
		fmt.Fprintln(stderr, "ledger:", err)
		return 1
	}
	return 0
}

const usage = `usage: ledger [-f FILE] COMMAND [ARGS]
commands:
  bal [--depth N] [--flat] [--empty] [-M|-Q|-Y] [--csv] [QUERY]   balances by account
  reg [--csv] [QUERY]                                              postings with a running total
  budget -b FILE [-p PERIOD]                                       spending against a budget
  import CSV --rules FILE [--bank ACCOUNT]                         transactions from a bank export
  accounts                                                         the accounts used
  stats                                                            a summary of the journal
  check                                                            parse and check the journal`

var commands = map[string]func(g global, args []string, w io.Writer) error{
	"bal":      balance,
	"balance":  balance,
	"reg":      register,
	"register": register,
	"budget":   budgetCmd,
	"import":   importCmd,
	"accounts": accounts,
	"stats":    stats,
	"check":    check,
}

func init() {
	if f := os.Getenv("LEDGER_FILE"); f != "" {
		defaultFile = f
	}
}

var defaultFile = "ledger.journal"

package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// subcommand is the command line of `agentls NAME [SUB] [flags] [ARGS]`
// (sessions, worktrees): a sub-command word, then flags and positional
// arguments in any order.
type subcommand struct {
	fs        *flag.FlagSet
	workspace *string
	asJSON    *bool
}

func newSubcommand(name, usage string, stderr io.Writer) *subcommand {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	return &subcommand{
		fs:        fs,
		workspace: fs.String("workspace", "", "workspace directory (default: the project around the current directory: the nearest directory up with .git, go.mod, package.json, Cargo.toml or pyproject.toml)"),
		asJSON:    fs.Bool("json", false, "print JSON"),
	}
}

// parse splits args into the sub-command (def when the first word is a
// flag or missing) and the positional arguments, with the flags read
// wherever they stand. done is set when parsing ended the command: -h
// (exit 0) or a bad flag (the usage is printed).
func (c *subcommand) parse(args []string, def string) (sub string, pos []string, code int, done bool) {
	sub = def
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		sub, args = args[0], args[1:]
	}
	for {
		if err := c.fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return sub, nil, exitOK, true
			}
			return sub, nil, exitUsage, true
		}
		if c.fs.NArg() == 0 {
			return sub, pos, 0, false
		}
		pos, args = append(pos, c.fs.Arg(0)), c.fs.Args()[1:]
	}
}

package cli

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

// global are the flags before the command.
type global struct {
	file string
}

func parseGlobal(args []string) (global, []string, error) {
	g := global{file: defaultFile}
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		switch {
		case args[0] == "-f" && len(args) > 1:
			g.file, args = args[1], args[2:]
		case strings.HasPrefix(args[0], "--file="):
			g.file, args = strings.TrimPrefix(args[0], "--file="), args[1:]
		default:
			return g, nil, fmt.Errorf("unknown flag %s", args[0])
		}
	}
	return g, args, nil
}

// newFlags is a flag set for a command, flags allowed among the query
// words.
func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parseInterleaved parses flags that may come before, between or after
// the positional words, which it returns.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var words []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return words, nil
		}
		words = append(words, args[0])
		args = args[1:]
	}
}

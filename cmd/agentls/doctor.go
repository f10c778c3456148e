package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/agentls/agentls/internal/cli"
	"github.com/agentls/agentls/internal/doctor"
)

// runDoctor is `agentls doctor`: the checks of internal/doctor on the
// workspace around the current directory, printed as one screen or JSON;
// its exit status is doctor's (0 a task can run, 1 it could not, 3 it runs
// unconfined, 2 bad usage).
func runDoctor(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	fs.SetOutput(stderr)
	ws := fs.String("workspace", "", "workspace directory (default: the project around the current directory)")
	asJSON := fs.Bool("json", false, "print the report as JSON (for bug reports and editors)")
	settings := fs.String("settings", "", "the editor's settings as JSON (as initializationOptions), checked with the rest")
	timeout := fs.Duration("timeout", 60*time.Second, "how long the model may take to answer the one-token request")
	if err := fs.Parse(args); err != nil {
		return doctor.ExitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "agentls doctor: unexpected argument %q\n", fs.Arg(0))
		return doctor.ExitUsage
	}
	root, err := cli.WorkspaceRoot(*ws)
	if err == nil {
		root, err = filepath.Abs(root)
	}
	if err != nil {
		fmt.Fprintln(stderr, "agentls doctor:", err)
		return doctor.ExitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	r := doctor.Run(ctx, doctor.Options{Root: root, Settings: []byte(*settings), Version: versionString(), Timeout: *timeout})
	if err := doctor.Write(stdout, r, *asJSON); err != nil {
		fmt.Fprintln(stderr, "agentls doctor:", err)
	}
	return r.Exit
}

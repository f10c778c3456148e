package acp

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/agentls/agentls/internal/logging"
)

// Command is `agentls acp`: agentls as an ACP agent on stdin/stdout.
func Command(args []string, stdin io.Reader, stdout, stderr io.Writer, version string) int {
	fs := flag.NewFlagSet("acp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	logFile := fs.String("log-file", "", "write logs to this file instead of stderr")
	logLevel := fs.String("log-level", "info", "debug, info, warn or error")
	settings := fs.String("settings", "", `settings as JSON, as an editor's initializationOptions (e.g. '{"agent":{"review":true}}')`)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "agentls acp: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	log, closeLog, err := logging.New(*logFile, *logLevel, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "agentls acp:", err)
		return 2
	}
	defer closeLog()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	var raw []byte
	if *settings != "" {
		raw = []byte(*settings)
	}
	if err := Serve(ctx, stdin, stdout, Options{Log: log, Version: version, Settings: raw}); err != nil {
		fmt.Fprintln(stderr, "agentls acp:", err)
		return 1
	}
	return 0
}

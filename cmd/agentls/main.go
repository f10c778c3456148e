// Command agentls is a language server that runs a coding agent inside any
// editor, and the same agent headless from a terminal.
//
//	agentls [serve] [--log-file F] [--log-level L]   LSP on stdin/stdout
//	agentls run [flags] "task"                         headless run
//	agentls version
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/internal/proc"
	"github.com/agentls/agentls/lsp"
)

// version is set with -ldflags "-X main.version=…" by release builds.
var version = "dev"

func main() {
	proc.Init() // a sandbox launcher does its work here and never returns
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd := "serve"
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return serve(args, stdin, stdout, stderr)
	case "run":
		return runTask(args, stdin, stdout, stderr)
	case "sessions":
		return sessionsCmd(args, stdout, stderr)
	case "version":
		fmt.Fprintln(stdout, versionString())
		return 0
	case "help":
		usage(stdout)
		return 0
	default:
		fmt.Fprintf(stderr, "agentls: unknown command %q\n", cmd)
		usage(stderr)
		return 2
	}
}

func usage(w io.Writer) {
	fmt.Fprint(w, `usage:
  agentls [serve] [--log-file FILE] [--log-level debug|info|warn|error]
        language server on stdin/stdout
  agentls run [flags] "task"
        the agent headless in the current directory (agentls run -h for flags)
  agentls sessions [list | show ID]
        the sessions of the current directory's workspace
  agentls version
`)
}

func versionString() string {
	v := version
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v == "dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				v += " (" + s.Value[:12] + ")"
			}
		}
		return fmt.Sprintf("agentls %s %s", v, bi.GoVersion)
	}
	return "agentls " + v
}

// newLogger logs to stderr or a file, never stdout (the LSP stream).
func newLogger(file, level string, stderr io.Writer) (*zap.Logger, func(), error) {
	lvl, err := zapcore.ParseLevel(level)
	if err != nil {
		return nil, nil, fmt.Errorf("--log-level: %w", err)
	}
	var ws zapcore.WriteSyncer = zapcore.AddSync(stderr)
	closeFn := func() {}
	if file != "" {
		f, err := os.OpenFile(file, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return nil, nil, fmt.Errorf("--log-file: %w", err)
		}
		ws = zapcore.AddSync(f)
		closeFn = func() { _ = f.Close() }
	}
	enc := zap.NewProductionEncoderConfig()
	enc.EncodeTime = zapcore.ISO8601TimeEncoder
	core := zapcore.NewCore(zapcore.NewJSONEncoder(enc), ws, lvl)
	return zap.New(core), closeFn, nil
}

type stdio struct {
	io.Reader
	io.Writer
}

func (stdio) Close() error { return nil }

func serve(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	logFile := fs.String("log-file", "", "write logs to this file instead of stderr")
	logLevel := fs.String("log-level", "info", "debug, info, warn or error")
	fs.Bool("stdio", true, "serve on stdin/stdout (the default; accepted for clients that pass it)")
	record := fs.String("record", "", "write every model exchange of every task to this file (JSON lines, API key redacted)")
	replay := fs.String("replay", "", "serve the model from a recording made with --record; no network")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *record != "" && *replay != "" {
		fmt.Fprintln(stderr, "agentls serve: --record and --replay exclude each other")
		return 2
	}
	log, closeLog, err := newLogger(*logFile, *logLevel, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "agentls:", err)
		return 2
	}
	defer closeLog()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	opts := lsp.Options{Logger: log, Version: version, NewLLM: lsp.DefaultLLM}
	switch {
	case *replay != "":
		f, err := os.Open(*replay)
		if err != nil {
			fmt.Fprintln(stderr, "agentls serve: --replay:", err)
			return 2
		}
		defer f.Close()
		rp, err := agent.NewReplayer(f)
		if err != nil {
			fmt.Fprintf(stderr, "agentls serve: --replay %s: %v\n", *replay, err)
			return 2
		}
		// One recording serves the tasks of this server in order.
		opts.NewLLM = func(config.Config) agent.LLM { return rp }
	case *record != "":
		f, err := os.OpenFile(*record, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
		if err != nil {
			fmt.Fprintln(stderr, "agentls serve: --record:", err)
			return 2
		}
		defer f.Close()
		var rec *agent.Recorder
		opts.NewLLM = func(cfg config.Config) agent.LLM {
			if rec == nil {
				rec = agent.NewRecorder(lsp.DefaultLLM(cfg), f, cfg.Redact)
			}
			return rec
		}
	}
	return lsp.Serve(ctx, stdio{stdin, stdout}, opts)
}

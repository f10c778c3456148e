// Command agentls is a language server that runs a coding agent inside any
// editor, and the same agent headless from a terminal.
//
//	agentls [serve] [--log-file F] [--log-level L]   LSP on stdin/stdout
//	agentls run [flags] "task"                         headless run
//	agentls acp [--settings JSON] [--log-file F]       ACP agent on stdin/stdout
//	agentls sessions [list | show ID]
//	agentls trust [--yes] [--workspace DIR]
//	agentls sandbox [show | caches | prune]
//	agentls submit "task" | jobs [list | show ID | fetch ID] | worker
//	agentls doctor [--json] [--workspace DIR] [--settings JSON]
//	agentls version | help
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/agentls/agentls/internal/acp"
	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/assemble"
	"github.com/agentls/agentls/internal/cli"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/llm/record"
	"github.com/agentls/agentls/internal/logging"
	"github.com/agentls/agentls/internal/lsp"
	"github.com/agentls/agentls/internal/proc"
)

// version is set with -ldflags "-X main.version=…" by release builds.
var version = "dev"

func main() {
	proc.Init() // a sandbox launcher does its work here and never returns
	proc.EnableWarm()
	stopProfiles := startProfiles()
	code := run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stopProfiles()
	proc.Shutdown()
	os.Exit(code)
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 && cli.IsTerminal(stdin) {
		// A person typed "agentls": an editor starts it with pipes.
		usage(stdout)
		fmt.Fprint(stdout, "\nagentls with no command serves LSP on stdin/stdout, for an editor to start;\nto talk LSP on this terminal anyway, run: agentls serve\n")
		return 0
	}
	cmd := "serve"
	if len(args) > 0 {
		switch args[0] {
		case "-h", "-help", "--help":
			args[0] = "help"
		case "-version", "--version":
			args[0] = "version"
		}
	}
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve", "run", "acp":
		// A carry of a command's writes that a killed agentls left half
		// done is finished whole, or reported, before anything else runs.
		for _, m := range assemble.RecoverCarries() {
			fmt.Fprintln(stderr, m)
		}
	}
	switch cmd {
	case "serve":
		return serve(args, stdin, stdout, stderr)
	case "run":
		return cli.Run(args, stdin, stdout, stderr)
	case "acp":
		return acp.Command(args, stdin, stdout, stderr, version)
	case "sessions":
		return cli.Sessions(args, stdout, stderr)
	case "worktrees":
		return cli.Worktrees(args, stdout, stderr)
	case "trust":
		return cli.Trust(args, stdin, stdout, stderr)
	case "sandbox":
		return cli.Sandbox(args, stdout, stderr)
	case "submit":
		return cli.Submit(args, stdout, stderr)
	case "jobs":
		return cli.Jobs(args, stdout, stderr)
	case "worker":
		return cli.Worker(args, stdout, stderr)
	case "doctor":
		return runDoctor(args, stdout, stderr)
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
	fmt.Fprint(w, `agentls runs a coding agent inside any editor (a language server), and headless.

usage: agentls <command> [flags]

commands:
  serve      the language server on stdin/stdout, for an editor (the default when stdin is not a terminal)
  run        run a task headless in the current workspace: agentls run [flags] "task"
  acp        agentls as an Agent Client Protocol agent on stdin/stdout (Zed, JetBrains, CodeCompanion, …)
  sessions   the workspace's sessions: agentls sessions [list | show ID | rewind ID STEP | export ID | import FILE]
  worktrees  the workspace's worktree tasks: agentls worktrees [list | merge ID | discard ID]
  trust      trust the workspace's .agentls.json as it is now: agentls trust [--yes]
  sandbox    what sandboxed commands see, and the cache layers: agentls sandbox [show | caches | prune]
  submit     delegate a task to a worker on another machine: agentls submit "task"
  jobs       delegated jobs: agentls jobs [list | show ID | fetch ID]
  worker     run delegated jobs from the NATS JetStream queue: agentls worker --repo PATTERN
  doctor     check the key, the endpoint and model, the sandbox, trust and the editors: agentls doctor [--json]
  version    print the version (also --version)
  help       print this help (also -h, --help)

"agentls <command> -h" lists a command's flags.
`)
}

// moduleVersion is the version to report: the one set at link time, else
// the module's from the build info (a "go install …@v1.2.3" build), else
// "dev".
func moduleVersion(linked string, bi *debug.BuildInfo) string {
	if linked != "dev" || bi == nil {
		return linked
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	return linked
}

func versionString() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "agentls " + version
	}
	v := moduleVersion(version, bi)
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			v += " (" + s.Value[:12] + ")"
		}
	}
	return fmt.Sprintf("agentls %s %s", v, bi.GoVersion)
}

// serverVersion is what initialize reports as serverInfo.version.
func serverVersion() string {
	bi, _ := debug.ReadBuildInfo()
	return moduleVersion(version, bi)
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
	recordFile := fs.String("record", "", "write every model exchange of every task to this file (JSON lines, API key redacted)")
	replay := fs.String("replay", "", "serve the model from a recording made with --record; no network")
	fs.Usage = func() {
		fmt.Fprint(stderr, "usage: agentls serve [flags]\n\nServes LSP on stdin/stdout, for an editor to start.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *recordFile != "" && *replay != "" {
		fmt.Fprintln(stderr, "agentls serve: --record and --replay exclude each other")
		return 2
	}
	log, closeLog, err := logging.New(*logFile, *logLevel, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "agentls:", err)
		return 2
	}
	defer closeLog()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	opts := lsp.Options{Logger: log, Version: serverVersion(), NewLLM: assemble.DefaultLLM}
	switch {
	case *replay != "":
		f, err := os.Open(*replay)
		if err != nil {
			fmt.Fprintln(stderr, "agentls serve: --replay:", err)
			return 2
		}
		defer f.Close()
		rp, err := record.NewReplayer(f)
		if err != nil {
			fmt.Fprintf(stderr, "agentls serve: --replay %s: %v\n", *replay, err)
			return 2
		}
		// One recording serves the tasks of this server in order.
		opts.NewLLM = func(config.Config) agent.LLM { return rp }
	case *recordFile != "":
		f, err := os.OpenFile(*recordFile, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
		if err != nil {
			fmt.Fprintln(stderr, "agentls serve: --record:", err)
			return 2
		}
		defer f.Close()
		var rec *record.Recorder
		opts.NewLLM = func(cfg config.Config) agent.LLM {
			if rec == nil {
				rec = record.NewRecorder(assemble.DefaultLLM(cfg), f, cfg.Redact)
			}
			return rec
		}
	}
	return lsp.Serve(ctx, stdio{stdin, stdout}, opts)
}

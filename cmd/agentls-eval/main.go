// Command agentls-eval runs the evaluation suite (testdata/eval) with an
// agentls binary against the configured model, or the scripted one:
//
//	agentls-eval [--scripted] [--task T,…] [--json F] [--set key=value]…
//
// It is a binary of its own so that agentls does not carry the harness
// (the scripted model, esbuild for the TypeScript tasks).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/eval"
)

// setFlags collects --set key=value into nested settings.
type setFlags map[string]any

func (s setFlags) String() string { return "" }

func (s setFlags) Set(v string) error {
	key, val, ok := strings.Cut(v, "=")
	if !ok || key == "" {
		return fmt.Errorf("want key=value, e.g. agent.promptProfile=terse")
	}
	var parsed any
	if json.Unmarshal([]byte(val), &parsed) != nil {
		parsed = val
	}
	m := map[string]any(s)
	parts := strings.Split(key, ".")
	for _, p := range parts[:len(parts)-1] {
		next, _ := m[p].(map[string]any)
		if next == nil {
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	m[parts[len(parts)-1]] = parsed
	return nil
}

func main() {
	os.Exit(evalCommand(os.Args[1:], os.Stdout, os.Stderr))
}

// evalCommand is the task suite against the configured model (or the
// scripted one), as a table and JSON.
func evalCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("agentls-eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	suite := fs.String("suite", "testdata/eval", "directory of tasks")
	scripted := fs.Bool("scripted", false, "play each task's recorded solution on the scripted model (tests the harness; no endpoint needed)")
	only := fs.String("task", "", "comma-separated task names to run (default: all)")
	jsonOut := fs.String("json", "", "also write the report as JSON to this file (- for stdout, instead of the table)")
	model := fs.String("model", "", "model (default: llm.model / AGENTLS_MODEL)")
	baseURL := fs.String("base-url", "", "endpoint (default: llm.baseURL / AGENTLS_BASE_URL)")
	noVerify := fs.Bool("no-verify", false, "turn agentls's verify gate off (it is on, as users run agentls)")
	api := fs.String("api", "", "wire API: chat or responses (scripted: default chat; endpoint: what llm.api picks)")
	repeat := fs.Int("repeat", 1, "run every task N times (pass rates then come with confidence intervals)")
	keep := fs.Bool("keep", false, "keep each task's directory and say where")
	agentls := fs.String("agentls", "", "the agentls binary to evaluate (default: agentls beside this program, else on PATH)")
	sets := setFlags{}
	fs.Var(sets, "set", "a setting for every task, key=value (repeatable), e.g. --set agent.promptProfile=terse")
	fs.Usage = func() {
		fmt.Fprint(stderr, "usage: agentls-eval [flags]\n\nRuns each task of the suite with agentls run against the configured model, then its hidden tests; prints pass rate, turns, tokens, cost and time per task.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	var names []string
	if *only != "" {
		names = strings.Split(*only, ",")
	}
	tasks, err := eval.Load(*suite, names)
	if err != nil {
		fmt.Fprintf(stderr, "agentls-eval: %v\n", err)
		return 2
	}
	if *api != "" && *api != "chat" && *api != "responses" {
		fmt.Fprintln(stderr, "agentls-eval: --api is chat or responses")
		return 2
	}
	suiteAbs, err := filepath.Abs(*suite)
	if err != nil {
		fmt.Fprintf(stderr, "agentls-eval: %v\n", err)
		return 2
	}
	cfg, _ := config.Resolve(config.FromEnv(os.Getenv))
	if *model != "" {
		cfg.LLM.Model = *model
	}
	if *baseURL != "" {
		cfg.LLM.BaseURL = *baseURL
	}
	if !*scripted && cfg.LLM.APIKey == "" && strings.Contains(cfg.LLM.BaseURL, "api.openai.com") {
		fmt.Fprintln(stderr, "agentls-eval: no API key (set AGENTLS_API_KEY or OPENAI_API_KEY), or run --scripted")
		return 2
	}
	bin, err := agentlsBinary(*agentls)
	if err != nil {
		fmt.Fprintf(stderr, "agentls-eval: %v\n", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var log io.Writer = stderr
	rep := eval.Run(ctx, tasks, eval.Options{Binary: bin, Config: cfg, Scripted: *scripted, Settings: sets, NoVerify: *noVerify, API: *api, Suite: suiteAbs, Repeat: *repeat, Keep: *keep, Log: log})
	if *jsonOut != "" {
		b, _ := json.MarshalIndent(rep, "", "  ")
		b = append(b, '\n')
		if *jsonOut == "-" {
			stdout.Write(b)
		} else if err := os.WriteFile(*jsonOut, b, 0o644); err != nil {
			fmt.Fprintf(stderr, "agentls-eval: %v\n", err)
			return 1
		}
	}
	if *jsonOut != "-" {
		eval.WriteTable(stdout, rep)
	}
	if ctx.Err() != nil {
		return 130
	}
	return 0
}

// agentlsBinary finds the agentls to evaluate: the flag, else the one
// beside this program, else the one on PATH.
func agentlsBinary(flagged string) (string, error) {
	if flagged != "" {
		return filepath.Abs(flagged)
	}
	if self, err := os.Executable(); err == nil {
		beside := filepath.Join(filepath.Dir(self), "agentls")
		if fi, err := os.Stat(beside); err == nil && fi.Mode().IsRegular() {
			return beside, nil
		}
	}
	p, err := exec.LookPath("agentls")
	if err != nil {
		return "", fmt.Errorf("no agentls binary beside agentls-eval or on PATH; give one with --agentls")
	}
	return filepath.Abs(p)
}

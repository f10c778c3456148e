// Command agentls-eval evaluates agentls with a model:
//
//	agentls-eval [flags]                  the task suite (testdata/eval)
//	agentls-eval polyglot [flags] DIR     a checkout of Aider's polyglot benchmark
//	agentls-eval compare A.json B.json    two recorded runs side by side
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
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "polyglot":
			return runCommand(args[1:], true, stdout, stderr)
		case "compare":
			return compareCommand(args[1:], stdout, stderr)
		}
	}
	return runCommand(args, false, stdout, stderr)
}

// runCommand is the task suite, or with polyglot a polyglot checkout,
// against the configured model (or the scripted one), as a table and JSON.
func runCommand(args []string, polyglot bool, stdout, stderr io.Writer) int {
	name := "agentls-eval"
	if polyglot {
		name += " polyglot"
	}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	suite := fs.String("suite", "testdata/eval", "directory of tasks")
	scripted := fs.Bool("scripted", false, "play each task's recorded solution on the scripted model (tests the harness; no endpoint needed)")
	only := fs.String("task", "", "comma-separated tasks to run (polyglot: LANG, NAME or LANG/NAME; default: all)")
	jsonOut := fs.String("json", "", "also write the report as JSON to this file (- for stdout, instead of the table)")
	model := fs.String("model", "", "model (default: llm.model / AGENTLS_MODEL)")
	baseURL := fs.String("base-url", "", "endpoint (default: llm.baseURL / AGENTLS_BASE_URL)")
	noVerify := fs.Bool("no-verify", false, "turn agentls's verify gate off (it is on, as users run agentls)")
	api := fs.String("api", "", "wire API: chat or responses (scripted: default chat; endpoint: what llm.api picks)")
	repeat := fs.Int("repeat", 1, "run every task N times (compare then gives confidence intervals)")
	keep := fs.Bool("keep", false, "keep each task's directory and say where")
	agentls := fs.String("agentls", "", "the agentls binary to evaluate (default: agentls beside this program, else on PATH)")
	testsVisible := fs.Bool("tests-visible", false, "polyglot: leave the exercise's tests in the model's workspace (agent harnesses do; Aider's runs do not); the originals are restored before grading either way")
	tries := fs.Int("tries", 2, "polyglot: tries per exercise; the test output goes back to the model after a failed one")
	sets := setFlags{}
	fs.Var(sets, "set", "a setting for every task, key=value (repeatable), e.g. --set agent.promptProfile=terse")
	fs.Usage = func() {
		if polyglot {
			fmt.Fprint(stderr, "usage: agentls-eval polyglot [flags] DIR\n\nRuns each exercise of DIR, a checkout of Aider-AI/polyglot-benchmark (LANG/exercises/practice/NAME/), with Aider's protocol: the instructions and the stub files, the test output given back once after a failure; prints the pass rate after each try per language and overall.\n\n")
		} else {
			fmt.Fprint(stderr, "usage: agentls-eval [flags]\n\nRuns each task of the suite with agentls run against the configured model, then grades its hidden tests; prints pass rate, turns, tokens, cost and time per task.\n\n")
		}
		fs.PrintDefaults()
	}
	if err := parseInterleaved(fs, args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "agentls-eval: "+format+"\n", a...)
		return 2
	}
	if *api != "" && *api != "chat" && *api != "responses" {
		return fail("--api is chat or responses")
	}
	if *repeat < 1 || *tries < 1 {
		return fail("--repeat and --tries are at least 1")
	}
	var names []string
	if *only != "" {
		names = strings.Split(*only, ",")
	}
	dir := *suite
	if polyglot {
		if fs.NArg() != 1 {
			return fail("polyglot wants the checkout's directory: agentls-eval polyglot DIR")
		}
		dir = fs.Arg(0)
	} else if fs.NArg() > 0 {
		return fail("unexpected %q (the suite is --suite DIR)", fs.Arg(0))
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fail("%v", err)
	}
	var tasks []eval.Task
	var exercises []eval.Exercise
	if polyglot {
		exercises, err = eval.LoadPolyglot(abs, names)
	} else {
		tasks, err = eval.Load(abs, names)
	}
	if err != nil {
		return fail("%v", err)
	}
	cfg, _ := config.Resolve(config.FromEnv(os.Getenv))
	if *model != "" {
		cfg.LLM.Model = *model
	}
	if *baseURL != "" {
		cfg.LLM.BaseURL = *baseURL
	}
	if !*scripted && cfg.LLM.APIKey == "" && strings.Contains(cfg.LLM.BaseURL, "api.openai.com") {
		return fail("no API key (set AGENTLS_API_KEY or OPENAI_API_KEY), or run --scripted")
	}
	bin, err := agentlsBinary(*agentls)
	if err != nil {
		return fail("%v", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	o := eval.Options{Binary: bin, Config: cfg, Scripted: *scripted, Settings: sets, NoVerify: *noVerify, API: *api, Suite: abs, Repeat: *repeat, Keep: *keep, Log: stderr}
	var rep eval.Report
	if polyglot {
		rep = eval.RunPolyglot(ctx, exercises, o, eval.Polyglot{TestsVisible: *testsVisible, Tries: *tries})
	} else {
		rep = eval.Run(ctx, tasks, o)
	}
	if *jsonOut != "" {
		b, _ := json.MarshalIndent(rep, "", "  ")
		b = append(b, '\n')
		if *jsonOut == "-" {
			_, _ = stdout.Write(b)
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

// parseInterleaved parses flags that may stand before or after the
// positional arguments.
func parseInterleaved(fs *flag.FlagSet, args []string) error {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return err
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
	return fs.Parse(append([]string{"--"}, pos...))
}

// compareCommand prints two recorded runs side by side.
func compareCommand(args []string, stdout, stderr io.Writer) int {
	if len(args) != 2 || strings.HasPrefix(args[0], "-") {
		fmt.Fprintln(stderr, "usage: agentls-eval compare A.json B.json\n\nPer task and overall pass rates with 95% Wilson intervals, tokens (cached and not), cost, time, and the tasks that flipped, for two reports written with --json.")
		if len(args) == 1 && (args[0] == "-h" || args[0] == "--help") {
			return 0
		}
		return 2
	}
	var reps [2]eval.Report
	for i, p := range args {
		b, err := os.ReadFile(p)
		if err != nil {
			fmt.Fprintf(stderr, "agentls-eval compare: %v\n", err)
			return 2
		}
		if err := json.Unmarshal(b, &reps[i]); err != nil {
			fmt.Fprintf(stderr, "agentls-eval compare: %s is not a report written with --json: %v\n", p, err)
			return 2
		}
	}
	eval.WriteComparison(stdout, eval.Compare(reps[0], reps[1], args[0], args[1]))
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

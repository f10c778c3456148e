// Command demo shows agentls at work with no API key: it starts the real
// agentls binary as a language server replaying a recorded conversation
// (agentls serve --replay), drives it like an editor on a copy of a
// testdata workspace, prints the streamed events, and ends with the diff
// of what the agent changed.
//
//	go run ./cmd/demo [-agentls PATH] [-workspace DIR] [-replay FILE] [-task TEXT]
//	go run ./cmd/demo -record FILE [-script FILE]   # make the recording anew
//
// With -record the model is the project's fake OpenAI-compatible server
// serving a scripted conversation on loopback, and the server records the
// exchanges.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/edits"
	"github.com/agentls/agentls/internal/render"
	"github.com/agentls/agentls/internal/testkit/fakellm"
	"github.com/agentls/agentls/internal/testkit/lspclient"
)

func main() {
	bin := flag.String("agentls", "", "agentls binary (default: build ./cmd/agentls)")
	ws := flag.String("workspace", "testdata/workspaces/demo", "workspace to copy and work on")
	script := flag.String("script", "testdata/conversations/demo.json", "scripted model conversation (with -record)")
	replay := flag.String("replay", "testdata/recordings/demo.jsonl", "recorded conversation to replay")
	record := flag.String("record", "", "record a new conversation from -script into this file instead of replaying")
	task := flag.String("task", "Make greet_test.go pass", "the task")
	open := flag.String("open", "greet.go", "file to open in the editor first")
	flag.Parse()
	if err := run(*bin, *ws, *script, *replay, *record, *task, *open); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

func run(bin, wsDir, scriptPath, replay, record, task, open string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tmp, err := os.MkdirTemp("", "agentls-demo")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if bin == "" {
		fmt.Println("▸ building agentls (the first build on a fresh machine takes a minute or two)…")
		bin = filepath.Join(tmp, "agentls")
		if out, err := exec.Command("go", "build", "-o", bin, "./cmd/agentls").CombinedOutput(); err != nil {
			return fmt.Errorf("build agentls: %v\n%s", err, out)
		}
	}
	if abs, err := filepath.Abs(bin); err == nil {
		bin = abs
	}
	root := filepath.Join(tmp, "workspace")
	before, err := lspclient.CopyTree(wsDir, root)
	if err != nil {
		return err
	}
	env := []string{"AGENTLS_MODEL=demo-model", "XDG_STATE_HOME=" + filepath.Join(tmp, "state")}
	var args []string
	if record != "" {
		script, err := fakellm.Load(scriptPath)
		if err != nil {
			return err
		}
		llm := fakellm.New(script)
		base, err := llm.Start()
		if err != nil {
			return err
		}
		defer llm.Close()
		abs, _ := filepath.Abs(record)
		env = append(env, "AGENTLS_BASE_URL="+base)
		args = []string{"--record", abs}
		fmt.Printf("▸ recording into %s from the fake model at %s (script %s)\n", record, base, scriptPath)
	} else {
		abs, err := filepath.Abs(replay)
		if err != nil {
			return err
		}
		args = []string{"--replay", abs}
		fmt.Printf("▸ agentls serve --replay %s (a recorded conversation; no network, no API key)\n", replay)
	}
	fmt.Printf("▸ workspace: a copy of %s\n", wsDir)

	ed, err := lspclient.Start(ctx, lspclient.StartOptions{
		Binary: bin, Root: root, Caps: lspclient.VSCodeCaps(), Env: env, Args: args,
		Settings: map[string]any{"verify": map[string]any{"commands": []string{"go vet ./...", "go test ./..."}}},
	})
	if err != nil {
		return err
	}
	defer ed.Close(context.Background())
	if open != "" {
		if err := ed.Open(ctx, open); err != nil {
			return err
		}
	}
	fmt.Printf("▸ agentls.run %q\n", task)
	id, err := ed.Run(ctx, map[string]any{"task": task, "uri": ed.URI(open)})
	if err != nil {
		return err
	}
	printed := 0
	var res lspclient.TaskResult
	var p printer
	for {
		evs := ed.Events(id)
		for _, ev := range evs[printed:] {
			p.event(ev)
		}
		printed = len(evs)
		if len(evs) > 0 && evs[len(evs)-1]["kind"] == "end" {
			break
		}
		ed.WaitFor(time.Second, func() bool { return len(ed.Events(id)) > printed })
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	if res, err = ed.Wait(ctx, id, 10*time.Second); err != nil {
		return err
	}
	fmt.Printf("\n▸ task %s: status %s, verified %v, %d file(s) changed, %d in / %d out tokens\n",
		res.TaskID, res.Status, res.Verified, len(res.FilesChanged), res.Usage.InputTokens, res.Usage.OutputTokens)
	fmt.Println("\n▸ diff of the editor's buffers against the files as they were:")
	names := make([]string, 0, len(before))
	for n := range before {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if now, ok := ed.Text(n); ok && now != before[n] {
			fmt.Print(edits.Unified("a/"+n, "b/"+n, before[n], now, 3))
		}
	}
	if res.Status != "ok" {
		return fmt.Errorf("task ended %s: %s", res.Status, res.Error)
	}
	return nil
}

// printer prints events one line each; the model's streamed text runs on
// until an event line needs a line of its own.
type printer struct{ midLine bool }

func (p *printer) line(format string, args ...any) {
	if p.midLine {
		fmt.Println()
		p.midLine = false
	}
	fmt.Printf(format+"\n", args...)
}

func (p *printer) event(ev lspclient.Event) {
	switch ev["kind"] {
	case "state":
		p.line("[state] %v → %v", ev["from"], ev["to"])
	case "text":
		text, _ := ev["text"].(string)
		fmt.Print(text)
		if text != "" {
			p.midLine = !strings.HasSuffix(text, "\n")
		}
	case "toolCall":
		c, _ := ev["call"].(map[string]any)
		p.line("[tool] %v %v", c["name"], c["arguments"])
	case "toolResult":
		c, _ := ev["call"].(map[string]any)
		out, _ := ev["output"].(string)
		status := "ok"
		if ev["isError"] == true {
			status = "error"
		}
		p.line("[result] %v: %s: %s", c["name"], status, outputSize(out))
	case "verify":
		var v agent.VerifyReport
		if convert(ev["verify"], &v) != nil {
			return
		}
		mark := "failed"
		if v.Passed {
			mark = "passed"
		}
		p.line("[verify] %s: %s", mark, v.Summary)
		for _, l := range v.Located {
			p.line("    %s", l)
		}
	case "usage":
		u, _ := ev["usage"].(map[string]any)
		p.line("[usage] +%v in / +%v out tokens", u["inputTokens"], u["outputTokens"])
	case "retry", "compaction":
		p.line("[%v] %v", ev["kind"], ev["text"])
	case "end":
		var r agent.Result
		if convert(ev["result"], &r) != nil {
			return
		}
		p.line("[end] %s", render.ResultLine(r))
	}
}

// outputSize is a one-line output itself (edit_file's "edited greet.go: 1
// replacement, lines 3–6"), else how many lines it has.
func outputSize(out string) string {
	out = strings.TrimRight(out, "\n")
	switch n := strings.Count(out, "\n") + 1; {
	case out == "":
		return "(no output)"
	case n == 1 && len(out) <= 100:
		return out
	case n == 1:
		return out[:strings.LastIndex(out[:100], " ")+1] + "…"
	default:
		return fmt.Sprintf("%d lines", n)
	}
}

// convert decodes a generic JSON value into v.
func convert(from any, v any) error {
	b, err := json.Marshal(from)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

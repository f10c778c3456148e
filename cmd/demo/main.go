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
	"github.com/agentls/agentls/internal/testkit/lspclient"

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

	"github.com/agentls/agentls/internal/edits"
	"github.com/agentls/agentls/internal/testkit/fakellm"
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
	fmt.Printf("▸ agentls.run %q\n\n", task)
	id, err := ed.Run(ctx, map[string]any{"task": task, "uri": ed.URI(open)})
	if err != nil {
		return err
	}
	printed := 0
	var res lspclient.TaskResult
	for {
		evs := ed.Events(id)
		for _, ev := range evs[printed:] {
			printEvent(ev)
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

func printEvent(ev lspclient.Event) {
	switch ev["kind"] {
	case "state":
		fmt.Printf("\n[state] %v → %v\n", ev["from"], ev["to"])
	case "text":
		fmt.Print(ev["text"])
	case "toolCall":
		c, _ := ev["call"].(map[string]any)
		fmt.Printf("\n[tool] %v %v\n", c["name"], c["arguments"])
	case "toolResult":
		c, _ := ev["call"].(map[string]any)
		out, _ := ev["output"].(string)
		lines := strings.Count(out, "\n")
		status := "ok"
		if ev["isError"] == true {
			status = "error: " + out
		}
		fmt.Printf("[result] %v: %s (%d lines)\n", c["name"], status, lines)
	case "verify":
		v, _ := json.Marshal(ev["verify"])
		fmt.Printf("\n[verify] %s\n", v)
	case "usage":
		u, _ := ev["usage"].(map[string]any)
		fmt.Printf("\n[usage] +%v in / +%v out tokens\n", u["inputTokens"], u["outputTokens"])
	case "retry", "compaction":
		fmt.Printf("\n[%v] %v\n", ev["kind"], ev["text"])
	case "end":
		r, _ := json.Marshal(ev["result"])
		fmt.Printf("\n[end] %s\n", r)
	}
}

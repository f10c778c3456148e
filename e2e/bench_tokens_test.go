package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/testkit/fakellm"
	"github.com/agentls/agentls/internal/testkit/lspclient"
)

// inputEstimate is fakellm's estimate of a request's input tokens (four
// bytes a token over the instructions, messages, tool calls and tool
// definitions, as the scripted eval reports them), and those bytes.
func inputEstimate(r fakellm.RecordedRequest) (tokens, bytes int) {
	for _, m := range r.Body.Messages {
		bytes += len(m.Content) + 4
		for _, c := range m.ToolCalls {
			bytes += len(c.Name) + len(c.Arguments)
		}
	}
	for _, t := range r.Body.Tools {
		bytes += len(t.Name) + len(t.Description) + len(t.Parameters)
	}
	return bytes/4 + 1, bytes
}

// BenchmarkTokensBesideCodex plays the old scripted eval task go-lru-get (read
// lru/lru.go, apply the recorded patch, say it is done) through agentls
// run and through the real Codex (codex-acp from npm, e2e/codex/install.sh,
// behind agentls's ACP bridge, its model the same fake over the Responses
// API, reading with `cat` and patching with apply_patch through its
// exec_command tool), and reports each side's input: the tokens of all
// requests and of the first (instructions and tool definitions), as the
// scripted eval estimates them. Without codex-acp, agentls's side only.
func BenchmarkTokensBesideCodex(b *testing.B) {
	task := filepath.Join("testdata", "tokens", "go-lru-get")
	patch, err := os.ReadFile(filepath.Join(task, "solution.patch"))
	if err != nil {
		b.Fatal(err)
	}
	var meta struct {
		Prompt string   `json:"prompt"`
		Read   []string `json:"read"`
	}
	if data, err := os.ReadFile(filepath.Join(task, "task.json")); err != nil || json.Unmarshal(data, &meta) != nil {
		b.Fatalf("task.json: %v", err)
	}
	report := func(side string, reqs []fakellm.RecordedRequest) {
		total, totalBytes := 0, 0
		for _, r := range reqs {
			t, n := inputEstimate(r)
			total, totalBytes = total+t, totalBytes+n
		}
		first, _ := inputEstimate(reqs[0])
		b.ReportMetric(float64(total), side+"-in-tok")
		b.ReportMetric(float64(first), side+"-first-tok")
		b.ReportMetric(float64(len(reqs)), side+"-requests")
		b.ReportMetric(float64(totalBytes), side+"-in-bytes")
	}
	copyRepo := func() string {
		root := b.TempDir()
		if _, err := lspclient.CopyTree(filepath.Join(task, "repo"), root); err != nil {
			b.Fatal(err)
		}
		return root
	}
	for i := 0; i < b.N; i++ {
		// agentls: the script the old eval played (read, patch, done).
		var calls []fakellm.ToolCall
		for j, p := range meta.Read {
			a, _ := json.Marshal(map[string]string{"path": p})
			calls = append(calls, fakellm.ToolCall{ID: "call_read_" + strconv.Itoa(j), Name: "read_file", Arguments: string(a)})
		}
		a, _ := json.Marshal(map[string]string{"input": string(patch)})
		sc, _ := json.Marshal(fakellm.Script{Turns: []fakellm.Turn{
			{ToolCalls: calls},
			{ToolCalls: []fakellm.ToolCall{{ID: "call_patch", Name: "apply_patch", Arguments: string(a)}}},
			{Text: "Done: applied the fix and checked it."},
		}})
		llm, base := startModel(b, string(sc))
		root := copyRepo()
		cmd := exec.Command(binary, "run", "--no-verify", "--allow", "*", meta.Prompt)
		cmd.Dir = root
		cmd.Env = []string{"HOME=" + filepath.Dir(root), "PATH=" + os.Getenv("PATH"), "XDG_STATE_HOME=" + filepath.Join(b.TempDir(), "state"),
			"AGENTLS_BASE_URL=" + base, "AGENTLS_MODEL=gpt-5", "AGENTLS_API_KEY=sk-bench"}
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("agentls run: %v\n%s", err, out)
		}
		report("agentls", llm.Requests())

		// Codex: the same reads and patch through its shell tool.
		if _, err := os.Stat(filepath.Join("codex", "node_modules", ".bin", "codex-acp")); err != nil {
			b.Log("codex-acp is not installed (e2e/codex/install.sh): agentls's side only")
			continue
		}
		bin, _ := codexACP(b)
		var reads []string
		for _, p := range meta.Read {
			reads = append(reads, "cat "+p)
		}
		readArgs, _ := json.Marshal(map[string]string{"cmd": strings.Join(reads, " && ")})
		patchArgs, _ := json.Marshal(map[string]string{"cmd": "apply_patch <<'PATCH'\n" + string(patch) + "PATCH\n"})
		sc, _ = json.Marshal(fakellm.Script{Turns: []fakellm.Turn{
			{ToolCalls: []fakellm.ToolCall{{ID: "call_read", Name: "exec_command", Arguments: string(readArgs)}}},
			{Expect: &fakellm.Expect{LastToolContains: "package lru"}, ToolCalls: []fakellm.ToolCall{{ID: "call_patch", Name: "exec_command", Arguments: string(patchArgs)}}},
			{Expect: &fakellm.Expect{LastToolContains: "Updated the following files"}, Text: "Done: applied the fix and checked it."},
		}})
		cllm, cbase := startModel(b, string(sc))
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		ed, err := lspclient.Start(ctx, lspclient.StartOptions{
			Binary: binary,
			Root:   copyRepo(),
			Caps:   lspclient.VSCodeCaps(),
			Settings: map[string]any{
				"verify": map[string]any{"enabled": false},
				"agent": map[string]any{"backend": map[string]any{"acp": map[string]any{
					"command": bin,
					"args":    []string{"-c", `approval_policy="never"`, "-c", `sandbox_mode="danger-full-access"`},
					"env": map[string]any{
						"CODEX_HOME":             codexHome(b, cbase),
						"HOME":                   b.TempDir(),
						"AGENTLS_CODEX_FAKE_KEY": "sk-codex-fake-key",
					},
				}}},
			},
			Env: []string{"AGENTLS_BASE_URL=" + base, "AGENTLS_API_KEY=sk-bench", "AGENTLS_MODEL=gpt-5",
				"XDG_STATE_HOME=" + filepath.Join(b.TempDir(), "state")},
		})
		if err != nil {
			cancel()
			b.Fatal(err)
		}
		id, err := ed.Run(ctx, map[string]any{"task": meta.Prompt})
		if err == nil {
			var r lspclient.TaskResult
			if r, err = ed.Wait(ctx, id, 2*time.Minute); err == nil && r.Status != "ok" {
				b.Errorf("codex task: %+v\n%s", r, llmLog(cllm))
			}
		}
		_ = ed.Close(ctx)
		cancel()
		if err != nil {
			b.Fatalf("codex task: %v\n%s", err, llmLog(cllm))
		}
		report("codex", cllm.Requests())
	}
}

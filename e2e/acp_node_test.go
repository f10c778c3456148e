package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The official ACP TypeScript SDK's client side (e2e/acp/client.mjs)
// drives the real binary against the fake model, one scenario each.
func TestACPNodeClient(t *testing.T) {
	dir, _ := filepath.Abs(filepath.Join("acp"))
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@agentclientprotocol", "sdk")); err != nil {
		t.Skip("skipped: e2e/acp/node_modules is missing; run e2e/acp/install.sh (npm ci) to test with @agentclientprotocol/sdk")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("skipped: node is not installed")
	}
	cases := []struct {
		name, script, settings string
		git                    bool // the workspace is a committed git repository
	}{
		{"task", readEditScript, `{"verify":{"enabled":true,"commands":["grep -q goodbye hello.txt"]}}`, false},
		{"disk", readEditScript, "", false},
		{"deny", `{"turns":[
		 {"toolCalls":[{"id":"call_cmd","name":"run_command","arguments":"{\"command\":\"touch pwned\"}"}]},
		 {"expect":{"lastToolContains":"denied"},"text":"Not allowed."}]}`, `{"tools":{"approval":"always-ask"}}`, false},
		{"cancel", `{"turns":[{"text":"` + strings.Repeat("slow words ", 200) + `","chunkSize":4,"chunkDelayMs":20}]}`, "", false},
		{"load", readEditScript, "", false},
		{"malformed", `{"turns":[]}`, "", false},
		{"worktree", `{"turns":[
		 {"toolCalls":[{"id":"r1","name":"read_file","arguments":"{\"path\":\"hello.txt\"}"}]},
		 {"toolCalls":[{"id":"e1","name":"edit_file","arguments":"{\"path\":\"hello.txt\",\"old_string\":\"hello\",\"new_string\":\"goodbye\"}"}]},
		 {"text":"Said goodbye."},
		 {"toolCalls":[{"id":"r2","name":"read_file","arguments":"{\"path\":\"hello.txt\"}"}]},
		 {"toolCalls":[{"id":"e2","name":"edit_file","arguments":"{\"path\":\"hello.txt\",\"old_string\":\"goodbye\",\"new_string\":\"GOODBYE\"}"}]},
		 {"text":"Shouted."}]}`, `{"verify":{"enabled":false},"agent":{"isolation":"worktree"}}`, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			_, base := startModel(t, c.script)
			root := copyWorkspace(t, "hello")
			if c.git {
				commitAll(t, root)
			}
			cmd := exec.CommandContext(ctx, node, filepath.Join(dir, "client.mjs"), c.name)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "AGENTLS_BIN="+binary, "WORKSPACE="+root,
				"AGENTLS_BASE_URL="+base, "AGENTLS_API_KEY=sk-test-secret-key-123", "AGENTLS_MODEL=test-model",
				"XDG_STATE_HOME="+filepath.Join(t.TempDir(), "state"))
			if c.settings != "" {
				cmd.Env = append(cmd.Env, "AGENTLS_SETTINGS="+c.settings)
			}
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("node client: %v\n%s", err, stderr.String())
			}
			lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
			var out map[string]any
			if err := json.Unmarshal([]byte(lines[len(lines)-1]), &out); err != nil {
				t.Fatalf("node client printed %q: %v", stdout.String(), err)
			}
			t.Logf("%s: %v", c.name, out)
		})
	}
}

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

	"github.com/agentls/agentls/internal/testkit/fakellm"
	"github.com/agentls/agentls/internal/testkit/need"
)

// The official ACP TypeScript SDK's client side (e2e/acp/client.mjs)
// drives the real binary against the fake model, one scenario each.
func TestACPNodeClient(t *testing.T) {
	dir, _ := filepath.Abs(filepath.Join("acp"))
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@agentclientprotocol", "sdk")); err != nil {
		need.Missing(t, "skipped: e2e/acp/node_modules is missing; run e2e/acp/install.sh (npm ci) to test with @agentclientprotocol/sdk")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		need.Missing(t, "skipped: node is not installed")
	}
	// The workspace's .agentls.json widens power (held back until the
	// user trusts it); the trust scenarios answer yes, the cancel one
	// never does.
	trustFile := map[string]string{".agentls.json": `{"tools": {"allow": ["*"]}}`}
	trustScript := `{"turns":[
	 {"toolCalls":[{"id":"call_cmd","name":"run_command","arguments":"{\"command\":\"touch made\"}"}]},
	 {"text":"made"}]}`
	trustSettings := `{"verify":{"enabled":false},"tools":{"approval":"always-ask"}}`
	cases := []struct {
		name, script, settings string
		git                    bool              // the workspace is a committed git repository
		files                  map[string]string // written into the workspace
		check                  func(t *testing.T, llm *fakellm.Server)
	}{
		{"task", readEditScript, `{"verify":{"enabled":true,"commands":["grep -q goodbye hello.txt"]}}`, false, nil, nil},
		{"disk", readEditScript, "", false, nil, nil},
		{"deny", `{"turns":[
		 {"toolCalls":[{"id":"call_cmd","name":"run_command","arguments":"{\"command\":\"touch pwned\"}"}]},
		 {"expect":{"lastToolContains":"denied"},"text":"Not allowed."}]}`, `{"tools":{"approval":"always-ask"}}`, false, nil, nil},
		{"cancel", `{"turns":[{"text":"` + strings.Repeat("slow words ", 200) + `","chunkSize":4,"chunkDelayMs":20}]}`, "", false, nil, nil},
		{"load", readEditScript, "", false, nil, nil},
		{"malformed", `{"turns":[]}`, "", false, nil, nil},
		{"worktree", `{"turns":[
		 {"toolCalls":[{"id":"r1","name":"read_file","arguments":"{\"path\":\"hello.txt\"}"}]},
		 {"toolCalls":[{"id":"e1","name":"edit_file","arguments":"{\"path\":\"hello.txt\",\"old_string\":\"hello\",\"new_string\":\"goodbye\"}"}]},
		 {"text":"Said goodbye."},
		 {"toolCalls":[{"id":"r2","name":"read_file","arguments":"{\"path\":\"hello.txt\"}"}]},
		 {"toolCalls":[{"id":"e2","name":"edit_file","arguments":"{\"path\":\"hello.txt\",\"old_string\":\"goodbye\",\"new_string\":\"GOODBYE\"}"}]},
		 {"text":"Shouted."}]}`, `{"verify":{"enabled":false},"agent":{"isolation":"worktree"}}`, true, nil, nil},
		{"trust-elicit", trustScript, trustSettings, false, trustFile, nil},
		{"trust-decline", `{"turns":[
		 {"toolCalls":[{"id":"call_cmd","name":"run_command","arguments":"{\"command\":\"touch made\"}"}]},
		 {"expect":{"lastToolContains":"denied"},"text":"Not allowed."}]}`, trustSettings, false, trustFile, nil},
		{"trust-permission", trustScript, trustSettings, false, trustFile, nil},
		{"cancel-request", trustScript, trustSettings, false, trustFile, nil},
		{"cancel-permission", trustScript, trustSettings, false, trustFile, nil},
		{"mcp", `{"turns":[
		 {"toolCalls":[{"id":"c1","name":"mcp__loud__shout","arguments":"{\"text\":\"hello mcp\"}"}]},
		 {"expect":{"lastToolContains":"HELLO MCP"},"text":"it shouted"}]}`, "", false, nil, nil},
		{"fork", `{"turns":[{"text":"one"},{"text":"two"},{"text":"three"}]}`, "", false, nil, func(t *testing.T, llm *fakellm.Server) {
			reqs := llm.Requests()
			if len(reqs) != 3 {
				t.Fatalf("%d model requests, want 3", len(reqs))
			}
			// The conversation, without the system prompt (whose workspace
			// memory lists every session's tasks).
			body := func(i int) string {
				var conv []string
				for _, m := range reqs[i].Body.Messages {
					if m.Role != "system" {
						b, _ := json.Marshal(m)
						conv = append(conv, string(b))
					}
				}
				return strings.Join(conv, "\n")
			}
			// The fork's task had the conversation it was forked from; the
			// parent's next task did not see the fork's.
			if fork := body(1); !strings.Contains(fork, "first question") || !strings.Contains(fork, "fork question") {
				t.Errorf("the fork's task saw %s", fork)
			}
			if parent := body(2); !strings.Contains(parent, "first question") || strings.Contains(parent, "fork question") {
				t.Errorf("the parent's next task saw %s", parent)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			llm, base := startModel(t, c.script)
			root := copyWorkspace(t, "hello")
			for name, text := range c.files {
				if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if c.git {
				commitAll(t, root)
			}
			// The MCP server the mcp scenario's client passes in session/new.
			mcpServer := filepath.Join(t.TempDir(), "mcpserver")
			if c.name == "mcp" {
				if out, err := exec.Command("go", "build", "-o", mcpServer, "./testdata/mcpserver").CombinedOutput(); err != nil {
					t.Fatalf("build: %v\n%s", err, out)
				}
			}
			cmd := exec.CommandContext(ctx, node, filepath.Join(dir, "client.mjs"), c.name)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "AGENTLS_BIN="+binary, "WORKSPACE="+root,
				"AGENTLS_BASE_URL="+base, "AGENTLS_API_KEY=sk-test-secret-key-123", "AGENTLS_MODEL=test-model",
				"XDG_STATE_HOME="+filepath.Join(t.TempDir(), "state"), "MCP_SERVER_BIN="+mcpServer)
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
			if c.check != nil {
				c.check(t, llm)
			}
		})
	}
}

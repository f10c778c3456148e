package e2e

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Nothing sent to the model holds the API key or the value of a secret
// variable of agentls's environment, whatever carried it: a command's
// output (a file of keys printed; .env itself reads as empty in the
// sandbox, TestSandboxMasksSecrets), read_file of a file that holds it, a check's
// failure output, an MCP tool's result and a context file. Before the
// scrubber all of them sent the values raw, and the checks' environment
// held the key under another name (LLM_KEY), which run_command's did not.
func TestSecretValuesNeverReachTheModel(t *testing.T) {
	const token = "ghp_e2eTokenValue0123456789"
	bin := filepath.Join(t.TempDir(), "mcpserver")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/mcpserver").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	root := copyWorkspace(t, "")
	secretText := "OPENAI_API_KEY=" + testKey + "\nGITHUB_TOKEN=" + token + "\n"
	var calls []string
	call := func(name string, args map[string]string) {
		a, _ := json.Marshal(args)
		c, _ := json.Marshal(map[string]any{"id": fmt.Sprintf("c%d", len(calls)), "name": name, "arguments": string(a)})
		calls = append(calls, `{"toolCalls":[`+string(c)+`]}`)
	}
	call("run_command", map[string]string{"command": "cat dump.txt"})
	call("read_file", map[string]string{"path": "notes/keys.txt"})
	call("mcp__box__cat", map[string]string{"path": filepath.Join(root, "dump.txt")})
	call("write_file", map[string]string{"path": "main.txt", "content": "edit to start the checks\n"})
	s := start(t, setup{root: root,
		files: map[string]string{"dump.txt": secretText, "notes/keys.txt": "the key is " + testKey + "\n",
			"AGENTS.md": "Use the token " + token + " for the API.\n"},
		env: []string{"LLM_KEY=" + testKey, "GITHUB_TOKEN=" + token},
		settings: map[string]any{
			"tools":      map[string]any{"allow": []string{"*"}},
			"mcpServers": map[string]any{"box": map[string]any{"command": bin, "allow": []string{"cat"}}},
			"verify": map[string]any{"enabled": true, "commands": []string{
				`echo "key=$LLM_KEY token=$GITHUB_TOKEN"; echo "env file: $(cat dump.txt)"; exit 1`}},
			"agent": map[string]any{"maxRetries": 1},
		},
		script: `{"turns":[` + strings.Join(calls, ",") + `,{"text":"done"},{"text":"done"},{"text":"done"}]}`})
	r := s.run(t, map[string]any{"task": "show me the configuration"})
	if r.Status == "" {
		t.Fatalf("task: %+v", r)
	}
	reqs := s.LLM.Requests()
	all, _ := json.Marshal(reqs)
	body := string(all)
	for _, want := range []string{"cat dump.txt", "keys.txt", "the key is", "key=", "GITHUB_TOKEN=", "Use the token"} {
		if !strings.Contains(body, want) {
			t.Errorf("the model was not sent %q (the scenario did not run as meant):\n%s", want, body)
		}
	}
	for _, secret := range []string{testKey, token} {
		if strings.Contains(body, secret) {
			t.Errorf("a request to the model holds %q:\n%s", secret, body)
		}
	}
	if !strings.Contains(body, "[redacted]") {
		t.Error("nothing was redacted")
	}
	// The check's environment is filtered like run_command's: LLM_KEY
	// holds the key, so the check never had it (the server logs the line).
	if log := s.Stderr(); !strings.Contains(log, "key= token=") || strings.Contains(log, "key="+testKey) {
		t.Errorf("the check saw LLM_KEY:\n%s", log)
	}
}

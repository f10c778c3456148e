package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestBinary runs the command the way editor tests do: read the URL from
// the first stdout line, talk to it, close stdin, expect a clean exit.
func TestBinary(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "fakellm")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	requests := filepath.Join(dir, "requests.jsonl")
	cmd := exec.Command(bin, "-script", "../../testdata/conversations/hello.json",
		"-requests", requests, "-log", filepath.Join(dir, "log"), "-api-key", "sk-cmd-test")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	url, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	url = strings.TrimSpace(url)
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/v1") {
		t.Fatalf("first line %q is not a base URL", url)
	}

	req, _ := http.NewRequest(http.MethodPost, url+"/chat/completions",
		strings.NewReader(`{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	req.Header.Set("Authorization", "Bearer sk-cmd-test")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"content":"Hello! I"`) || !strings.HasSuffix(string(body), "data: [DONE]\n\n") {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}

	_ = stdin.Close()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("exit: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("still running after stdin closed")
	}

	data, err := os.ReadFile(requests)
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Turn          int    `json:"turn"`
		Authorization string `json:"authorization"`
		Body          struct {
			Messages []struct{ Content string } `json:"messages"`
		} `json:"body"`
	}
	if err := json.Unmarshal(data, &rec); err != nil || rec.Body.Messages[0].Content != "hi" || rec.Authorization != "Bearer [redacted]" {
		t.Errorf("requests file %q: %v", data, err)
	}
	if strings.Contains(string(data), "sk-cmd-test") {
		t.Error("requests file holds the API key")
	}
}

package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// userConfig hands back the settings file's bytes it parsed, which the
// worker passes on to its jobs: one read, so the jobs get the settings
// the worker checked.
func TestUserConfigReturnsTheBytesItParsed(t *testing.T) {
	p := filepath.Join(t.TempDir(), "settings.json")
	data := []byte(`{"agent":{"maxSteps":7}}`)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cfg, got, code := userConfig(p, &stderr, "worker")
	if code != 0 || !bytes.Equal(got, data) || cfg.Agent.MaxSteps != 7 {
		t.Fatalf("code %d, bytes %q, maxSteps %d, stderr %q", code, got, cfg.Agent.MaxSteps, stderr.String())
	}
	if _, got, code := userConfig("", &stderr, "worker"); code != 0 || got != nil {
		t.Fatalf("no file: code %d, bytes %q", code, got)
	}
	if _, _, code := userConfig(filepath.Join(t.TempDir(), "missing.json"), &stderr, "worker"); code != exitUsage {
		t.Fatalf("a missing file: code %d, want %d", code, exitUsage)
	}
}

package acpclient

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
)

// diskWorkspace reads and writes under its root with no confinement of
// its own, so only the bridge's check stands between the agent and the
// rest of the disk.
type diskWorkspace struct{ root string }

func (w diskWorkspace) Root() string { return w.root }
func (w diskWorkspace) ReadFile(_ context.Context, rel string) ([]byte, error) {
	return os.ReadFile(filepath.Join(w.root, rel))
}
func (w diskWorkspace) Edit(_ context.Context, rel string, f func([]byte, bool) ([]byte, error)) error {
	b, err := f(nil, false)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(w.root, rel), b, 0o644)
}

// The external agent's fs/read_text_file and fs/write_text_file are
// refused outside the workspace (docs/acp.md, "The bridge"), relative or
// absolute.
func TestBridgeRefusesPathsOutsideTheWorkspace(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "ws")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(dir, "secret.txt")
	if err := os.WriteFile(secret, []byte("secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := &bridgeClient{r: &bridgeRun{b: Bridge{Root: root, Workspace: diskWorkspace{root}}, changed: map[string]bool{}}}
	ctx := context.Background()
	for _, p := range []string{"../secret.txt", secret, filepath.Join(root, "..", "secret.txt")} {
		if res, err := c.ReadTextFile(ctx, sdk.ReadTextFileRequest{SessionId: "s", Path: p}); err == nil {
			t.Errorf("read %s: %q, want refused", p, res.Content)
		}
		if _, err := c.WriteTextFile(ctx, sdk.WriteTextFileRequest{SessionId: "s", Path: p, Content: "owned\n"}); err == nil {
			t.Errorf("write %s: not refused", p)
		}
	}
	if b, _ := os.ReadFile(secret); string(b) != "secret\n" {
		t.Errorf("the file outside was written: %q", b)
	}
	if len(c.r.files()) != 0 {
		t.Errorf("files counted as changed: %q", c.r.files())
	}
	// Inside, both work.
	if _, err := c.WriteTextFile(ctx, sdk.WriteTextFileRequest{SessionId: "s", Path: filepath.Join(root, "a.txt"), Content: "a\n"}); err != nil {
		t.Fatal(err)
	}
	if res, err := c.ReadTextFile(ctx, sdk.ReadTextFileRequest{SessionId: "s", Path: "a.txt"}); err != nil || res.Content != "a\n" {
		t.Errorf("read inside: %q, %v", res.Content, err)
	}
}

package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentls/agentls/internal/agent"
)

// newDisk writes files (relative path → content) under a fresh root.
func newDisk(t testing.TB, files map[string]string) *DiskWorkspace {
	t.Helper()
	root := t.TempDir()
	writeFiles(t, root, files)
	ws, err := NewDiskWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

func writeFiles(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func readDisk(t testing.TB, ws agent.Workspace, rel string) (string, bool) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(ws.Root(), filepath.FromSlash(rel)))
	if os.IsNotExist(err) {
		return "", false
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b), true
}

// toolNamed returns the named tool from Default.
func toolNamed(t testing.TB, ws agent.Workspace, opts Options, name string) agent.Tool {
	t.Helper()
	for _, tl := range Default(ws, opts) {
		if tl.Spec().Name == name {
			return tl
		}
	}
	t.Fatalf("no tool %s", name)
	return nil
}

func call(t testing.TB, tl agent.Tool, args any) (agent.ToolResult, error) {
	t.Helper()
	var raw json.RawMessage
	switch a := args.(type) {
	case string:
		raw = json.RawMessage(a)
	default:
		b, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		raw = b
	}
	return tl.Run(context.Background(), raw)
}

// bufferWS is an editor in miniature: open buffers over a DiskWorkspace.
// Reads of an open file see the buffer; edits of an open file change the
// buffer only, as an editor's applyEdit does before the user saves. typeOnce,
// when set, plays the user typing into a buffer while the first transform of
// an edit runs, so Edit must notice and run the transform again.
type bufferWS struct {
	*DiskWorkspace
	mu       sync.Mutex
	bufs     map[string]string
	typeOnce func(text string) string
	calls    int // transform calls, to see the retry happen
}

func (b *bufferWS) OpenFiles() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for k := range b.bufs {
		out = append(out, k)
	}
	return out
}

func (b *bufferWS) ReadFile(ctx context.Context, rel string) ([]byte, error) {
	b.mu.Lock()
	text, ok := b.bufs[rel]
	b.mu.Unlock()
	if ok {
		return []byte(text), nil
	}
	return b.DiskWorkspace.ReadFile(ctx, rel)
}

func (b *bufferWS) Edit(ctx context.Context, rel string, transform func([]byte, bool) ([]byte, error)) error {
	b.mu.Lock()
	text, ok := b.bufs[rel]
	b.mu.Unlock()
	if !ok {
		return b.DiskWorkspace.Edit(ctx, rel, transform)
	}
	for {
		b.calls++
		out, err := transform([]byte(text), true)
		if err != nil {
			return err
		}
		b.mu.Lock()
		if b.typeOnce != nil {
			b.bufs[rel] = b.typeOnce(b.bufs[rel])
			b.typeOnce = nil
		}
		if b.bufs[rel] != text { // the user typed: start over on the new text
			text = b.bufs[rel]
			b.mu.Unlock()
			continue
		}
		b.bufs[rel] = string(out)
		b.mu.Unlock()
		return nil
	}
}

func wantContains(t *testing.T, what, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			if len(got) > 3000 {
				got = got[:3000] + "…"
			}
			t.Errorf("%s = %q\nwant it to contain %q", what, got, w)
		}
	}
}

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
)

// A prompt's file:// links are read like @ mentions: a file of the
// workspace or of an additional directory is attached; a secret file, a
// link in the workspace that points at one, and a file outside are not
// (the client is told why); an image is refused with a clear error. Before,
// every link went to the model as a bare URI.
func TestACPPromptResourceLinks(t *testing.T) {
	r := startACP(t, "hello", `{"turns":[{"text":"read"}]}`, false, nil)
	write := func(p, text string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(r.root, "notes.md"), "workspace notes content\n")
	write(filepath.Join(r.root, ".env"), "API_KEY=sk-live-dotenv-secret\n")
	if err := os.Symlink(".env", filepath.Join(r.root, "innocent.md")); err != nil {
		t.Fatal(err)
	}
	outside, extra := t.TempDir(), t.TempDir()
	write(filepath.Join(outside, "other.txt"), "outside content\n")
	write(filepath.Join(extra, "extra.txt"), "additional directory content\n")
	s, err := r.NewSession(r.ctx, sdk.NewSessionRequest{Cwd: r.root, McpServers: []sdk.McpServer{}, AdditionalDirectories: []string{extra}})
	if err != nil {
		t.Fatal(err)
	}
	link := func(p string) sdk.ContentBlock { return sdk.ResourceLinkBlock(filepath.Base(p), "file://"+p) }
	res, err := r.Prompt(r.ctx, sdk.PromptRequest{SessionId: s.SessionId, Prompt: []sdk.ContentBlock{
		sdk.TextBlock("Read these:"),
		link(filepath.Join(r.root, "notes.md")),
		link(filepath.Join(r.root, ".env")),
		link(filepath.Join(r.root, "innocent.md")),
		link(filepath.Join(outside, "other.txt")),
		link(filepath.Join(extra, "extra.txt")),
	}})
	if err != nil || res.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %v %+v", err, res)
	}
	reqs := r.llm.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model requests", len(reqs))
	}
	var sent strings.Builder
	for _, m := range reqs[0].Body.Messages {
		sent.WriteString(m.Content)
	}
	for _, want := range []string{"workspace notes content", "additional directory content"} {
		if !strings.Contains(sent.String(), want) {
			t.Errorf("the model was not sent %q", want)
		}
	}
	for _, never := range []string{"sk-live-dotenv-secret", "outside content"} {
		if strings.Contains(sent.String(), never) {
			t.Errorf("the model was sent %q", never)
		}
	}
	told := agentText(r.client.snapshot())
	if strings.Count(told, "was not attached") != 3 || !strings.Contains(told, "secret file") {
		t.Errorf("the client was told %q; want three links not attached, .env as a secret", told)
	}
	_, err = r.Prompt(r.ctx, sdk.PromptRequest{SessionId: s.SessionId, Prompt: []sdk.ContentBlock{
		sdk.TextBlock("what is this?"), sdk.ImageBlock("iVBORw0KGgo=", "image/png")}})
	if err == nil || !strings.Contains(err.Error(), "cannot send an image") {
		t.Errorf("an image: %v, want a clear refusal", err)
	}
}

package e2e

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
)

// testPNG is a small real PNG, base64.
func testPNG(t *testing.T) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 3, 2))
	img.Set(1, 1, color.RGBA{R: 200, A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b.Bytes())
}

// Images in a prompt reach a model that takes them (issue 24: "images
// where the model takes them"): initialize advertises
// promptCapabilities.image for gpt-4o, a text and PNG prompt reaches the
// model as an image part of the task's message, and the session's files
// keep a note, not the data. An image of a type the APIs do not take, one
// too big, too many, and any image once the session picked a model that
// takes none are refused with the reason and never reach the model.
// Before, every image was refused and the capability was false.
func TestACPPromptImages(t *testing.T) {
	r := startACP(t, "hello", `{"turns":[{"text":"a red dot"},{"text":"still a red dot"},{"text":"unused"}]}`, false,
		map[string]any{"llm": map[string]any{"model": "gpt-4o"}})
	init, err := r.Initialize(r.ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber})
	if err != nil || !init.AgentCapabilities.PromptCapabilities.Image {
		t.Fatalf("initialize with gpt-4o: %v, promptCapabilities %+v; want image true", err, init.AgentCapabilities.PromptCapabilities)
	}
	s, err := r.NewSession(r.ctx, sdk.NewSessionRequest{Cwd: r.root, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	data := testPNG(t)
	// A file:// link to an image in the workspace is attached as one; a
	// .png that holds text is not.
	raw, _ := base64.StdEncoding.DecodeString(data)
	if err := os.WriteFile(filepath.Join(r.root, "dot.png"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.root, "fake.png"), []byte("not a picture\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// … nor one outside the workspace, directly or through a link.
	outside := filepath.Join(t.TempDir(), "outside.png")
	if err := os.WriteFile(outside, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(r.root, "via.png")); err != nil {
		t.Fatal(err)
	}
	link := func(name string) sdk.ContentBlock {
		if !filepath.IsAbs(name) {
			name = filepath.Join(r.root, name)
		}
		return sdk.ResourceLinkBlock(filepath.Base(name), "file://"+name)
	}
	res, err := r.Prompt(r.ctx, sdk.PromptRequest{SessionId: s.SessionId, Prompt: []sdk.ContentBlock{
		sdk.TextBlock("what is in this picture?"), sdk.ImageBlock(data, "image/png"), link("dot.png"), link("fake.png"), link(outside), link("via.png")}})
	if err != nil || res.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt with an image: %v %+v", err, res)
	}
	reqs := r.llm.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model requests", len(reqs))
	}
	var task *struct{ content string }
	for _, m := range reqs[0].Body.Messages {
		if m.Role == "user" && strings.Contains(m.Content, "what is in this picture?") {
			if len(m.Images) != 2 || m.Images[0] != "data:image/png;base64,"+data || m.Images[1] != "data:image/png;base64,"+data {
				t.Errorf("the task's message carried images %q, want the linked PNG and the block's as data: URLs", m.Images)
			}
			if !strings.Contains(m.Content, "@dot.png") || strings.Contains(m.Content, "not a picture") {
				t.Errorf("the task's text: %q", m.Content)
			}
			task = &struct{ content string }{m.Content}
		} else if len(m.Images) > 0 {
			t.Errorf("a %s message carried images", m.Role)
		}
	}
	if told := agentText(r.client.snapshot()); !strings.Contains(told, "fake.png was not attached: its content is text/plain") {
		t.Errorf("the client was told %q; want fake.png not attached as no image", told)
	} else if strings.Count(told, "was not attached") != 3 || !strings.Contains(told, "outside.png was not attached: it is outside the workspace") ||
		!strings.Contains(told, "via.png was not attached: it leads outside the workspace") {
		t.Errorf("the client was told %q; want outside.png and via.png not attached", told)
	}
	if task == nil {
		t.Fatalf("no user message with the prompt's text: %+v", reqs[0].Body.Messages)
	}
	// The session files hold a note, never the image's data.
	var files, noted int
	_ = filepath.Walk(r.state, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return nil
		}
		b, _ := os.ReadFile(p)
		files++
		if bytes.Contains(b, []byte(data)) {
			t.Errorf("%s holds the image's data", p)
		}
		if bytes.Contains(b, []byte("[image: dot.png, 1 KB]")) {
			noted++
		}
		return nil
	})
	if files == 0 || noted == 0 {
		t.Errorf("%d state files, %d with the image's note; want the session recorded with the note", files, noted)
	}

	// A follow-up sees the earlier image as its note, as the session file
	// has it; the image is not sent again.
	if res, err := r.Prompt(r.ctx, sdk.PromptRequest{SessionId: s.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("and now?")}}); err != nil || res.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("follow-up: %v %+v", err, res)
	}
	var sawNote bool
	for _, m := range r.llm.Requests()[1].Body.Messages {
		if len(m.Images) > 0 {
			t.Errorf("the follow-up sent images again in a %s message", m.Role)
		}
		sawNote = sawNote || strings.Contains(m.Content, "[image: dot.png, 1 KB]")
	}
	if !sawNote {
		t.Error("the follow-up's history has no note of the earlier image")
	}

	refused := func(what string, blocks []sdk.ContentBlock, want ...string) {
		t.Helper()
		_, err := r.Prompt(r.ctx, sdk.PromptRequest{SessionId: s.SessionId,
			Prompt: append([]sdk.ContentBlock{sdk.TextBlock("look")}, blocks...)})
		for _, w := range want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v, want a refusal saying %q", what, err, w)
			}
		}
	}
	refused("an SVG", []sdk.ContentBlock{sdk.ImageBlock(base64.StdEncoding.EncodeToString([]byte("<svg/>")), "image/svg+xml")},
		"image/svg+xml", "agentls sends images of type image/png, image/jpeg, image/gif, image/webp")
	big := base64.StdEncoding.EncodeToString(make([]byte, 5<<20+1024))
	refused("a 5 MB + 1 KB image", []sdk.ContentBlock{sdk.ImageBlock(big, "image/png")}, "agentls sends images of at most 5120 KB")
	five := []sdk.ContentBlock{}
	for range 5 {
		five = append(five, sdk.ImageBlock(data, "image/png"))
	}
	refused("five images", five, "more than 4 images")
	refused("not base64", []sdk.ContentBlock{sdk.ImageBlock("%%%not base64", "image/png")}, "not base64")
	// A model picked later that takes no images: the image is refused,
	// naming it.
	if _, err := r.SetSessionConfigOption(r.ctx, sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{
		SessionId: s.SessionId, ConfigId: "model", Value: "fake-model"}}); err != nil {
		t.Fatalf("set model: %v", err)
	}
	refused("an image for fake-model", []sdk.ContentBlock{sdk.ImageBlock(data, "image/png")},
		"agentls cannot send an image to the model", "fake-model", "takes no images")
	if n := len(r.llm.Requests()); n != 2 {
		t.Errorf("%d model requests; the refused prompts reached the model", n)
	}
}

// A model the table does not know takes no images: initialize says so and
// an image is refused naming the model; llm.images true decides otherwise
// for a local model.
func TestACPImagesFollowTheModel(t *testing.T) {
	for _, c := range []struct {
		settings map[string]any
		want     bool
	}{
		{nil, false}, // test-model
		{map[string]any{"llm": map[string]any{"images": true}}, true},
		{map[string]any{"llm": map[string]any{"model": "gpt-4o", "images": false}}, false},
	} {
		r := startACP(t, "hello", `{"turns":[{"text":"seen"}]}`, false, c.settings)
		init, err := r.Initialize(r.ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber})
		if err != nil || init.AgentCapabilities.PromptCapabilities.Image != c.want {
			t.Errorf("settings %v: initialize %v, image %v, want %v", c.settings, err, init.AgentCapabilities.PromptCapabilities.Image, c.want)
		}
		s, err := r.NewSession(r.ctx, sdk.NewSessionRequest{Cwd: r.root, McpServers: []sdk.McpServer{}})
		if err != nil {
			t.Fatal(err)
		}
		_, err = r.Prompt(r.ctx, sdk.PromptRequest{SessionId: s.SessionId, Prompt: []sdk.ContentBlock{
			sdk.TextBlock("what is this?"), sdk.ImageBlock(testPNG(t), "image/png")}})
		if c.want {
			if err != nil || len(r.llm.Requests()) != 1 {
				t.Errorf("settings %v: %v, %d requests; want the image sent", c.settings, err, len(r.llm.Requests()))
			}
		} else if err == nil || !strings.Contains(err.Error(), "takes no images") || len(r.llm.Requests()) != 0 {
			t.Errorf("settings %v: %v; want a refusal naming the model, no request", c.settings, err)
		}
	}
}

package acp

import (
	"encoding/base64"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/config"
)

// promptImages passes up to four images of up to 5 MB of the four types to
// a model that takes images, and refuses everything else with the reason.
func TestPromptImagesLimits(t *testing.T) {
	vision := config.Config{LLM: config.LLM{Model: "gpt-4o"}}
	img := func(n int, mime string) sdk.ContentBlock {
		return sdk.ImageBlock(base64.StdEncoding.EncodeToString(make([]byte, n)), mime)
	}
	ok := []sdk.ContentBlock{sdk.TextBlock("see"), img(10, "image/png"), img(10, "image/jpeg"), img(10, "image/gif"), img(agent.MaxImageBytes, "image/webp")}
	got, err := promptImages(ok, nil, vision)
	if err != nil || len(got) != 4 || got[3].MIME != "image/webp" || got[3].Size() != agent.MaxImageBytes || got[0].Name != "image 1" {
		t.Fatalf("four good images: %v, %d images", err, len(got))
	}
	if got, err := promptImages([]sdk.ContentBlock{sdk.TextBlock("no images")}, nil, config.Config{}); err != nil || got != nil {
		t.Errorf("no images: %v %v", got, err)
	}
	uri := "file:///tmp/x.png"
	byURI := sdk.ContentBlock{Image: &sdk.ContentBlockImage{Type: "image", MimeType: "image/png", Uri: &uri}}
	for name, c := range map[string]struct {
		blocks []sdk.ContentBlock
		cfg    config.Config
		want   string
	}{
		"five":       {append(ok, img(1, "image/png")), vision, "more than 4 images"},
		"too big":    {[]sdk.ContentBlock{img(agent.MaxImageBytes+1, "image/png")}, vision, "at most 5120 KB"},
		"huge":       {[]sdk.ContentBlock{img(3*agent.MaxImageBytes, "image/png")}, vision, "at most 5120 KB"},
		"svg":        {[]sdk.ContentBlock{img(1, "image/svg+xml")}, vision, `"image/svg+xml"`},
		"not base64": {[]sdk.ContentBlock{sdk.ImageBlock("!!!!", "image/png")}, vision, "not base64"},
		"uri only":   {[]sdk.ContentBlock{byURI}, vision, "file:///tmp/x.png has no data"},
		"text model": {[]sdk.ContentBlock{img(1, "image/png")}, config.Config{LLM: config.LLM{Model: "gpt-3.5-turbo"}}, `model "gpt-3.5-turbo"`},
		"backend": {[]sdk.ContentBlock{img(1, "image/png")},
			config.Config{LLM: config.LLM{Model: "gpt-4o"}, Agent: config.Agent{Backend: config.Backend{ACP: &config.ACPAgent{Command: "x"}}}}, "external agent"},
	} {
		_, err := promptImages(c.blocks, nil, c.cfg)
		if err == nil || !strings.Contains(errorText(err), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		} else if e, isReq := err.(*sdk.RequestError); !isReq || e.Code != -32602 {
			t.Errorf("%s: %v, want invalid params (-32602)", name, err)
		}
	}
}

func errorText(err error) string {
	if e, ok := err.(*sdk.RequestError); ok {
		if m, ok := e.Data.(map[string]any); ok {
			s, _ := m["error"].(string)
			return s
		}
	}
	return err.Error()
}

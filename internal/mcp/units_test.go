package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/agentls/agentls/internal/config"
)

func TestToolName(t *testing.T) {
	tests := []struct {
		server, tool, want string
	}{
		{"github", "create_issue", "mcp__github__create_issue"},
		{"my.server", "files/read-all", "mcp__my_server__files_read-all"},
		{"héllo wörld", "ok", "mcp__h_llo_w_rld__ok"},
		{"s", strings.Repeat("x", 56), "mcp__s__" + strings.Repeat("x", 56)}, // exactly 64
	}
	for _, tc := range tests {
		if got := toolName(tc.server, tc.tool); got != tc.want {
			t.Errorf("toolName(%q, %q) = %q, want %q", tc.server, tc.tool, got, tc.want)
		}
	}
	// Too long: cut to 64 with a hash, so two names that share the first
	// 55 characters stay apart.
	a, b := toolName("s", strings.Repeat("x", 60)+"a"), toolName("s", strings.Repeat("x", 60)+"b")
	for _, n := range []string{a, b} {
		if !openAIName.MatchString(n) || len(n) != 64 {
			t.Errorf("long name %q (%d chars)", n, len(n))
		}
	}
	if a == b {
		t.Errorf("distinct long names collided: %q", a)
	}
}

func TestRender(t *testing.T) {
	size := int64(10)
	tests := []struct {
		name string
		res  sdk.CallToolResult
		want string
	}{
		{"text verbatim", sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "  two\nlines  "}}}, "  two\nlines  "},
		{"image", sdk.CallToolResult{Content: []sdk.Content{&sdk.ImageContent{MIMEType: "image/jpeg", Data: make([]byte, 1234)}}}, "[image: image/jpeg, 1234 bytes]"},
		{"audio", sdk.CallToolResult{Content: []sdk.Content{&sdk.AudioContent{MIMEType: "audio/wav", Data: make([]byte, 7)}}}, "[audio: audio/wav, 7 bytes]"},
		{"link", sdk.CallToolResult{Content: []sdk.Content{&sdk.ResourceLink{URI: "file:///a.go", Name: "a.go", MIMEType: "text/x-go", Size: &size}}}, "[resource link: file:///a.go a.go text/x-go]"},
		{"blob", sdk.CallToolResult{Content: []sdk.Content{&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "mem://x", MIMEType: "application/zip", Blob: make([]byte, 3)}}}}, "[resource: mem://x, application/zip, 3 bytes]"},
		{"blob without type", sdk.CallToolResult{Content: []sdk.Content{&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "mem://x", Blob: make([]byte, 3)}}}}, "[resource: mem://x, 3 bytes]"},
		{"parts joined", sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "a"}, &sdk.TextContent{Text: "b"}}}, "a\nb"},
		{"structured only", sdk.CallToolResult{StructuredContent: map[string]any{"n": 1}}, `{"n":1}`},
		{"nothing", sdk.CallToolResult{}, "(no output)"},
	}
	for _, tc := range tests {
		if got := render(&tc.res); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestServerEnv(t *testing.T) {
	base := []string{"PATH=/bin", "AGENTLS_API_KEY=k1", "OPENAI_API_KEY=k2", "GITHUB_TOKEN=t", "FOO=old"}
	got := serverEnv(base, map[string]string{"FOO": "new", "BAR": "1"})
	want := []string{"PATH=/bin", "GITHUB_TOKEN=t", "BAR=1", "FOO=new"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("serverEnv = %q, want %q", got, want)
	}
}

func TestTailKeepsTheEnd(t *testing.T) {
	var tl *tail
	if tl.suffix() != "" {
		t.Error("nil tail has a suffix")
	}
	tl = newTail(zap.NewNop())
	for i := 0; i < 500; i++ {
		_, _ = tl.Write([]byte("line of noise\n"))
	}
	_, _ = tl.Write([]byte("fatal: the real reason\n"))
	s := tl.String()
	if !strings.HasPrefix(s, "line of noise") || !strings.HasSuffix(s, "fatal: the real reason") || len(s) > tailSize {
		t.Errorf("tail %d bytes: %q…%q", len(s), s[:20], s[len(s)-30:])
	}
}

func TestInputSchemaDefault(t *testing.T) {
	for _, v := range []any{nil, json.RawMessage("null")} {
		if got := inputSchema(v); !bytes.Equal(got, []byte(`{"type":"object","properties":{}}`)) {
			t.Errorf("inputSchema(%v) = %s", v, got)
		}
	}
}

// Read-only calls run in parallel; the race detector watches this one.
func TestParallelCalls(t *testing.T) {
	m := newManager(t, map[string]config.MCPServer{"s": stdioServer(t, "serve", nil, "add")}, Options{})
	add := toolMap(t, m)["mcp__s__add"]
	var wg sync.WaitGroup
	errs := make([]error, 16)
	for i := range errs {
		wg.Go(func() {
			res, err := add.Run(context.Background(), json.RawMessage(`{"a":1,"b":1}`))
			if err == nil && res.Output != "2" {
				err = &json.UnsupportedValueError{Str: res.Output}
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

func BenchmarkCallStdio(b *testing.B) {
	srv := stdioServer(b, "serve", nil, "*")
	m := NewManager(map[string]config.MCPServer{"s": srv}, Options{})
	defer m.Close()
	list, errs := m.Tools(context.Background(), nil)
	if len(errs) > 0 {
		b.Fatal(errs)
	}
	for _, tl := range list {
		if tl.Spec().Name == "mcp__s__add" {
			args := json.RawMessage(`{"a":1,"b":2}`)
			for b.Loop() {
				if _, err := tl.Run(context.Background(), args); err != nil {
					b.Fatal(err)
				}
			}
			return
		}
	}
	b.Fatal("add not listed")
}

func BenchmarkToolName(b *testing.B) {
	long := strings.Repeat("tool.", 20)
	for b.Loop() {
		_ = toolName("server", long)
	}
}

package mcp

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// serverModeEnv makes the test binary act as an MCP server over stdio: the
// manager under test starts a real subprocess.
const serverModeEnv = "AGENTLS_TEST_MCP_SERVER"

// longToolName is longer than OpenAI allows and has characters it refuses.
const longToolName = "a.very.long.tool.name/that.goes.on.and.on.well.beyond.sixty.four.characters"

func TestMain(m *testing.M) {
	switch os.Getenv(serverModeEnv) {
	case "":
		os.Exit(m.Run())
	case "serve":
		if err := testServer().Run(context.Background(), &sdk.StdioTransport{}); err != nil {
			fmt.Fprintln(os.Stderr, "test server:", err)
			os.Exit(1)
		}
		os.Exit(0)
	case "fail":
		fmt.Fprintln(os.Stderr, "starting up")
		fmt.Fprintln(os.Stderr, "boom: bad config")
		os.Exit(1)
	case "hang": // never answers initialize, exits when its stdin closes
		_, _ = io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}
	fmt.Fprintln(os.Stderr, "unknown", serverModeEnv)
	os.Exit(2)
}

type addArgs struct {
	A float64 `json:"a" jsonschema:"the first addend"`
	B float64 `json:"b" jsonschema:"the second addend"`
}

type nameArg struct {
	Name string `json:"name"`
}

type pathArg struct {
	Path string `json:"path"`
}

func text(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}

// testServer exposes the tools the tests call. A page size of 2 makes
// listing its tools take several pages.
func testServer() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "agentls-test", Version: "0"}, &sdk.ServerOptions{PageSize: 2})
	sdk.AddTool(s, &sdk.Tool{Name: "add", Description: "Add two numbers.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *sdk.CallToolRequest, in addArgs) (*sdk.CallToolResult, any, error) {
			return text(strconv.FormatFloat(in.A+in.B, 'g', -1, 64)), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "crash", Description: "Exit the server process."},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "crash: exiting on request")
			os.Exit(3)
			return nil, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "crash_once", Description: "Exit the first time (per marker file), answer after."},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			marker := os.Getenv("MCP_TEST_MARKER")
			if _, err := os.Stat(marker); err != nil {
				_ = os.WriteFile(marker, nil, 0o600)
				os.Exit(3)
			}
			return text("survived"), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "getenv", Description: "An environment variable of the server."},
		func(_ context.Context, _ *sdk.CallToolRequest, in nameArg) (*sdk.CallToolResult, any, error) {
			v, ok := os.LookupEnv(in.Name)
			if !ok {
				v = "(unset)"
			}
			return text(v), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "pid", Description: "The server's process id.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return text(strconv.Itoa(os.Getpid())), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "spawn", Description: "Start a long sleep in the background; its pid."},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			c := exec.Command("sleep", "300")
			if err := c.Start(); err != nil {
				return nil, nil, err
			}
			return text(strconv.Itoa(c.Process.Pid)), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "touch", Description: "Create a file."},
		func(_ context.Context, _ *sdk.CallToolRequest, in pathArg) (*sdk.CallToolResult, any, error) {
			return text("created"), nil, os.WriteFile(in.Path, nil, 0o600)
		})
	sdk.AddTool(s, &sdk.Tool{Name: "fail", Description: "Report a tool error."},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "it went wrong"}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "media", Description: "Parts of every kind."},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{
				&sdk.TextContent{Text: "a picture:"},
				&sdk.ImageContent{MIMEType: "image/png", Data: []byte{1, 2, 3, 4}},
				&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///notes.txt", Text: "the notes"}},
			}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: longToolName, Description: "A tool with an awkward name."},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return text("long"), nil, nil
		})
	return s
}

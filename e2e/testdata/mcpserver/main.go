// Command mcpserver is a small MCP server over stdio for the end-to-end
// tests: shout upper-cases its text; cat returns a file's text (a server
// that reads what agentls's own tools would not).
package main

import (
	"context"
	"log"
	"os"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

type catArgs struct {
	Path string `json:"path" jsonschema:"the file to read"`
}

type shoutArgs struct {
	Text string `json:"text" jsonschema:"the text to shout"`
}

func main() {
	s := sdk.NewServer(&sdk.Implementation{Name: "shouter", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "shout", Description: "Upper-case a text."},
		func(ctx context.Context, req *sdk.CallToolRequest, a shoutArgs) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: strings.ToUpper(a.Text)}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "cat", Description: "Return a file's text."},
		func(ctx context.Context, req *sdk.CallToolRequest, a catArgs) (*sdk.CallToolResult, any, error) {
			b, err := os.ReadFile(a.Path)
			if err != nil {
				return nil, nil, err
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(b)}}}, nil, nil
		})
	if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}

// Command mcpserver is a small MCP server over stdio for the end-to-end
// tests: one tool, shout, that upper-cases its text.
package main

import (
	"context"
	"log"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

type shoutArgs struct {
	Text string `json:"text" jsonschema:"the text to shout"`
}

func main() {
	s := sdk.NewServer(&sdk.Implementation{Name: "shouter", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "shout", Description: "Upper-case a text."},
		func(ctx context.Context, req *sdk.CallToolRequest, a shoutArgs) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: strings.ToUpper(a.Text)}}}, nil, nil
		})
	if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}

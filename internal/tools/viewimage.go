package tools

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/wsread"
)

// ImageOf checks the bytes of an image file for the model, by the rules
// every way an image reaches it follows (a prompt's linked file, an ACP
// image, view_image): at most agent.MaxImageBytes, content of one of
// agent.ImageTypes (by its bytes, not its name). The error says why not,
// in words for the user or the model.
func ImageOf(raw []byte, name string) (agent.Image, error) {
	if len(raw) > agent.MaxImageBytes {
		return agent.Image{}, fmt.Errorf("it is over %d KB, the most agentls sends", agent.MaxImageBytes/1024)
	}
	mime := http.DetectContentType(raw)
	if !slices.Contains(agent.ImageTypes, mime) {
		return agent.Image{}, fmt.Errorf("its content is %s, not an image of type %s", mime, strings.Join(agent.ImageTypes, ", "))
	}
	return agent.Image{MIME: mime, Data: base64.StdEncoding.EncodeToString(raw), Name: name}, nil
}

// ReadImage reads the image file rel beneath root through the one reader
// of workspace text for the model (internal/wsread: resolved beneath the
// root at the open, a link out refused, a regular file checked on its
// descriptor, never a secret by its name or by where a link leads; secrets
// are tools.secretFiles, nil: the defaults), then ImageOf's rules: the
// rules a client's linked image follows too.
func ReadImage(root, rel string, secrets []string) (agent.Image, error) {
	f, err := wsread.New(root, secrets).Read(rel, agent.MaxImageBytes)
	if err != nil {
		return agent.Image{}, err
	}
	if f.More {
		return agent.Image{}, fmt.Errorf("it is over %d KB, the most agentls sends", agent.MaxImageBytes/1024)
	}
	return ImageOf(f.Data, f.Real)
}

type viewImageArgs struct {
	Path string `json:"path" jsonschema:"The image file, relative to the workspace root."`
}

var viewImageDecl = sync.OnceValue(func() *args[viewImageArgs] { return declare[viewImageArgs](nil) })

// newViewImage is view_image, for a model that takes images
// (Options.Images): it opens a workspace image (a screenshot, a rendered
// plot, a failing visual test's output) for the model to look at. The
// picture follows the turn's tool results (agent.ToolResult.Images).
func newViewImage(ws agent.Workspace, o Options) agent.Tool {
	t := &tool{
		name: "view_image",
		description: "Look at an image file in the workspace (PNG, JPEG, GIF or WebP, at most " + fmt.Sprint(agent.MaxImageBytes>>20) + " MB): " +
			"a screenshot, a rendered plot, a visual test's output. The image is shown to you after the tool results. Secret files are refused.",
		schema:   viewImageDecl().schema(),
		readOnly: true,
	}
	t.run = func(ctx context.Context, raw json.RawMessage) (agent.ToolResult, error) {
		a, err := viewImageDecl().parse(t.name, raw)
		if err != nil {
			return agent.ToolResult{}, err
		}
		_, rel, err := o.Policy.ResolveRead(a.Path)
		if err != nil {
			return agent.ToolResult{}, err
		}
		im, err := ReadImage(o.Policy.Root, rel, o.Policy.SecretFiles)
		if err != nil {
			return agent.ToolResult{}, fmt.Errorf("%s cannot be viewed: %w", rel, err)
		}
		return agent.ToolResult{Output: fmt.Sprintf("opened %s (%s, %d KB); it follows as an image", rel, im.MIME, (im.Size()+1023)/1024), Images: []agent.Image{im}}, nil
	}
	return t
}

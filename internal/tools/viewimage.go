package tools

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/agentls/agentls/internal/agent"
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

// ReadImage reads the image file rel (relative to root, already resolved
// by the policy) through os.Root, so a link swapped in after the check
// cannot lead out: a regular file, still no link once read, that ImageOf
// takes.
func ReadImage(root, rel string) (agent.Image, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return agent.Image{}, err
	}
	defer r.Close()
	f, err := r.Open(filepath.FromSlash(rel))
	if err != nil {
		return agent.Image{}, fmt.Errorf("cannot be opened: %v", errors.Unwrap(err))
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return agent.Image{}, errors.New("it is not a regular file")
	}
	raw, err := io.ReadAll(io.LimitReader(f, int64(agent.MaxImageBytes)+1))
	if err != nil {
		return agent.Image{}, err
	}
	if st, err := r.Lstat(filepath.FromSlash(rel)); err != nil || !st.Mode().IsRegular() {
		return agent.Image{}, errors.New("it changed while it was read")
	}
	return ImageOf(raw, filepath.ToSlash(rel))
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
		im, err := ReadImage(o.Policy.Root, rel)
		if err != nil {
			return agent.ToolResult{}, fmt.Errorf("%s cannot be viewed: %w", rel, err)
		}
		return agent.ToolResult{Output: fmt.Sprintf("opened %s (%s, %d KB); it follows as an image", rel, im.MIME, (im.Size()+1023)/1024), Images: []agent.Image{im}}, nil
	}
	return t
}

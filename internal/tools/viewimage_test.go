package tools

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

	"github.com/agentls/agentls/internal/agent"
)

func pngBytes(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 4, 4))
	img.Set(1, 1, color.RGBA{R: 255, A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// view_image, offered to a model that takes images, opens a workspace
// image for it: the result carries the picture (by its bytes' type), and
// the rules of every image agentls sends hold: not a secret file, not
// outside the workspace (a link out included), an image by content, at
// most agent.MaxImageBytes.
func TestViewImage(t *testing.T) {
	shot := pngBytes(t)
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "x.png"), shot, 0o644); err != nil {
		t.Fatal(err)
	}
	ws := newDisk(t, map[string]string{"out/shot.png": string(shot), "notes.png": "just text\n", "id_rsa.png": string(shot),
		"big.png": string(shot) + strings.Repeat("\x00", agent.MaxImageBytes)})
	if err := os.Symlink(filepath.Join(outside, "x.png"), filepath.Join(ws.Root(), "link.png")); err != nil {
		t.Fatal(err)
	}
	opts := Options{Images: true, Policy: Policy{SecretFiles: []string{"id_rsa*"}}}
	tl := toolNamed(t, ws, opts, "view_image")
	res, err := call(t, tl, map[string]string{"path": "out/shot.png"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Images) != 1 || res.Images[0].MIME != "image/png" || res.Images[0].Name != "out/shot.png" || res.Images[0].Data != base64.StdEncoding.EncodeToString(shot) {
		t.Fatalf("result %+v", res)
	}
	wantContains(t, "output", res.Output, "opened out/shot.png (image/png")
	for path, why := range map[string]string{
		"notes.png":  "its content is text/plain",
		"id_rsa.png": "secret",
		"link.png":   "outside the workspace",
		"../x.png":   "outside the workspace",
		"big.png":    "over 5120 KB",
		"none.png":   "no such file",
	} {
		res, err := call(t, tl, map[string]string{"path": path})
		if err == nil || !strings.Contains(err.Error(), why) || len(res.Images) != 0 {
			t.Errorf("%s: %v (%d images), want an error saying %q", path, err, len(res.Images), why)
		}
	}
	// A model that takes no images is not offered the tool.
	for _, tl := range Default(ws, Options{}) {
		if tl.Spec().Name == "view_image" {
			t.Error("view_image offered without Options.Images")
		}
	}
}

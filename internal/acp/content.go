package acp

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/assemble"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/textcut"
	"github.com/agentls/agentls/internal/tools"
	"github.com/agentls/agentls/internal/wsread"
)

// maxLinkedFile bounds the text of one file a resource link attaches, as
// for an @ mention; the rest is cut.
const maxLinkedFile = 64 << 10

// promptText renders the prompt's blocks as the task: text as is, resources
// the client embedded as fenced text, and file:// links to files in the
// workspace (or in one of the session's additional directories) read like
// @ mentions: beneath the root, never a secret file (tools.secretFiles,
// checked on the name and on what a link points to), at most 64 KiB.
// Links agentls does not read stay as their URI, and notes say why. Image
// blocks are promptImages's; an audio block is refused.
func (s *acpSession) promptText(blocks []sdk.ContentBlock) (text string, linked []agent.Image, notes []string, err error) {
	var b strings.Builder
	for _, c := range blocks {
		switch {
		case c.Text != nil:
			b.WriteString(c.Text.Text)
		case c.ResourceLink != nil && imageLinkType(c.ResourceLink.Uri) != "":
			im, why := s.linkedImage(c.ResourceLink.Uri)
			if why != "" {
				notes = append(notes, fmt.Sprintf("%s was not attached: %s", c.ResourceLink.Uri, why))
				fmt.Fprintf(&b, " %s ", c.ResourceLink.Uri)
				continue
			}
			linked = append(linked, im)
			fmt.Fprintf(&b, " @%s (the image attached) ", im.Name)
		case c.ResourceLink != nil:
			raw, name, why := s.readLink(c.ResourceLink.Uri, maxLinkedFile)
			if why != "" {
				notes = append(notes, fmt.Sprintf("%s was not attached: %s", c.ResourceLink.Uri, why))
				fmt.Fprintf(&b, " %s ", c.ResourceLink.Uri)
				continue
			}
			body := string(raw)
			if len(raw) > maxLinkedFile {
				body = textcut.Head(body, maxLinkedFile) + "\n[file truncated]"
			}
			fmt.Fprintf(&b, " @%s \n\n%s:\n```\n%s\n```\n", name, name, body)
		case c.Resource != nil && c.Resource.Resource.TextResourceContents != nil:
			r := c.Resource.Resource.TextResourceContents
			fmt.Fprintf(&b, "\n\n%s:\n```\n%s\n```\n", r.Uri, r.Text)
		case c.Image != nil:
			// promptImages takes them.
		case c.Audio != nil, c.Resource != nil:
			kind := "audio"
			if c.Resource != nil {
				kind = "a binary resource"
			}
			return "", nil, nil, sdk.NewInvalidParams(map[string]any{"error": "agentls cannot send " + kind +
				" to the model: its messages to the model are text and images (promptCapabilities.audio is false). Attach text, or a file of the workspace as a link."})
		}
	}
	return b.String(), linked, notes, nil
}

// imageLinkType is the image type a file:// link's name says, "" for
// other links.
func imageLinkType(uri string) string {
	if !strings.HasPrefix(uri, "file:") {
		return ""
	}
	switch strings.ToLower(filepath.Ext(uri)) {
	case ".png":
		return "image/png"
	case ".jpg", ".jpeg":
		return "image/jpeg"
	case ".gif":
		return "image/gif"
	case ".webp":
		return "image/webp"
	}
	return ""
}

// linkedImage reads the image a file:// link names, as readLink reads a
// text file (beneath the workspace or an additional directory, never a
// secret file), for a model that takes images; its content must be an
// image of one of agent.ImageTypes, of at most agent.MaxImageBytes. why
// says why it is not attached.
func (s *acpSession) linkedImage(uri string) (agent.Image, string) {
	cfg := s.taskConfig()
	if cfg.Agent.Backend.ACP != nil {
		return agent.Image{}, "the external agent (agent.backend) is handed text"
	}
	if !assemble.TakesImages(cfg, cfg.LLM.Model) {
		return agent.Image{}, fmt.Sprintf("it is an image, and the model %q takes no images as far as agentls knows (llm.images)", cfg.LLM.Model)
	}
	raw, name, why := s.readLink(uri, agent.MaxImageBytes)
	if why != "" {
		return agent.Image{}, why
	}
	// The rules view_image follows too (tools.ImageOf).
	im, err := tools.ImageOf(raw, name)
	if err != nil {
		return agent.Image{}, err.Error()
	}
	return im, ""
}

// promptImages checks the prompt's image blocks for the model cfg names
// and returns them for the task's message, after the images linked files
// gave (promptText, which counts towards the limit). Images are refused, with the
// reason and before anything runs, when the model takes none
// (assemble.TakesImages: llm.images, the built-in table), when the task
// goes to an external agent (agent.backend: it is handed text), past
// agent.MaxImages or agent.MaxImageBytes, for a type the APIs do not take
// (agent.ImageTypes), for data that is not base64, and for an image given
// by its URI alone (agentls reads no image files).
func promptImages(blocks []sdk.ContentBlock, linked []agent.Image, cfg config.Config) ([]agent.Image, error) {
	refuse := func(format string, args ...any) error {
		return sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf(format, args...)})
	}
	if len(linked) > agent.MaxImages {
		return nil, refuse("the prompt has more than %d images; agentls sends at most %d to the model", agent.MaxImages, agent.MaxImages)
	}
	out := linked
	for _, c := range blocks {
		if c.Image == nil {
			continue
		}
		im := c.Image
		n := len(out) + 1
		name := fmt.Sprintf("image %d", n)
		if im.Uri != nil && *im.Uri != "" {
			name = *im.Uri
		}
		switch {
		case cfg.Agent.Backend.ACP != nil:
			return nil, refuse("agentls cannot send an image to the external agent (agent.backend): it hands that agent the prompt's text. Attach text instead.")
		case !assemble.TakesImages(cfg, cfg.LLM.Model):
			return nil, refuse("agentls cannot send an image to the model %q: it takes no images as far as agentls knows (the built-in model table; set llm.images to true if it does). Pick a model that takes images, or attach text.", cfg.LLM.Model)
		case n > agent.MaxImages:
			return nil, refuse("the prompt has more than %d images; agentls sends at most %d to the model", agent.MaxImages, agent.MaxImages)
		case !slices.Contains(agent.ImageTypes, im.MimeType):
			return nil, refuse("%s is of type %q; agentls sends images of type %s", name, im.MimeType, strings.Join(agent.ImageTypes, ", "))
		case im.Data == "":
			return nil, refuse("%s has no data: agentls does not read images by their URI; send the image's data", name)
		}
		if size := base64.StdEncoding.DecodedLen(len(im.Data)); size > agent.MaxImageBytes+3 {
			return nil, refuse("%s is %d KB; agentls sends images of at most %d KB", name, size/1024, agent.MaxImageBytes/1024)
		}
		raw, err := base64.StdEncoding.DecodeString(im.Data)
		if err != nil {
			return nil, refuse("%s: its data is not base64 (%v)", name, err)
		}
		if len(raw) > agent.MaxImageBytes {
			return nil, refuse("%s is %d KB; agentls sends images of at most %d KB", name, len(raw)/1024, agent.MaxImageBytes/1024)
		}
		out = append(out, agent.Image{MIME: im.MimeType, Data: im.Data, Name: name})
	}
	return out, nil
}

// imagesAdvertised is promptCapabilities.image: whether the model the
// client's settings and the environment configure takes images (a session
// may pick another model; promptImages refuses its images then).
func (a *Agent) imagesAdvertised() bool {
	editor, _ := config.FromJSON("client settings", a.opts.Settings)
	cfg, _ := config.Resolve(editor, config.FromEnv(os.Getenv))
	return cfg.Agent.Backend.ACP == nil && assemble.TakesImages(cfg, cfg.LLM.Model)
}

// readLink reads the file a file:// link names when it lies in the
// workspace or an additional directory, through the one reader of
// workspace text (internal/wsread): beneath that directory, without
// blocking (a named pipe, a socket or a device is refused, never waited
// on), never a secret file by its name or by where a link leads. name is
// how the prompt calls it (workspace-relative, or absolute outside it).
// why says why it was not read.
func (s *acpSession) readLink(uri string, max int) (body []byte, name, why string) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || (u.Host != "" && u.Host != "localhost") {
		return nil, "", "only file:// links are read"
	}
	p := filepath.Clean(u.Path)
	s.mu.Lock()
	secrets := s.cfg.Tools.SecretFiles
	dirs := append([]string{s.root}, s.extraDirs...)
	s.mu.Unlock()
	for i, dir := range dirs {
		rel, ok := beneath(dir, p)
		if !ok {
			continue
		}
		f, err := wsread.New(dir, secrets).Read(rel, max)
		switch {
		case errors.Is(err, wsread.ErrSecret):
			return nil, "", "it is a secret file (tools.secretFiles)"
		case errors.Is(err, wsread.ErrOutside):
			return nil, "", "it leads outside the workspace"
		case errors.Is(err, wsread.ErrNotRegular):
			return nil, "", "it is not a regular file"
		case errors.Is(err, fs.ErrNotExist):
			return nil, "", "no such file"
		case err != nil:
			return nil, "", "it cannot be read"
		}
		data := f.Data
		if f.More {
			data = append(data, 0) // longer than max: the callers cut or refuse
		}
		name = f.Real
		if i > 0 {
			name = filepath.Join(dir, filepath.FromSlash(f.Real))
		}
		return data, name, ""
	}
	return nil, "", "it is outside the workspace"
}

// beneath reports whether p lies in dir, lexically (the reader then
// resolves links beneath dir).
func beneath(dir, p string) (string, bool) {
	rel, err := filepath.Rel(dir, p)
	if err != nil || !filepath.IsLocal(rel) && rel != "." {
		return "", false
	}
	return rel, true
}

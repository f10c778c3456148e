package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/agentls/agentls/internal/agent"
)

// BufferLister is implemented by workspaces that know which files the editor
// has open. grep searches those buffers instead of the disk, and list_files
// and grep include open files that are not saved yet.
type BufferLister interface {
	// OpenFiles returns the workspace-relative, '/'-separated paths of the
	// open files (as Workspace.ReadFile takes them).
	OpenFiles() []string
}

type listFilesArgs struct {
	Path    string `json:"path,omitempty" jsonschema:"Directory relative to the workspace root (default: the root)."`
	Pattern string `json:"pattern,omitempty" jsonschema:"Glob, e.g. \"*.go\" or \"src/**/*.{ts,tsx}\"; without a slash it matches base names."`
	Depth   int    `json:"depth,omitempty" jsonschema:"Show files at most this many directories deep (1: only path's own files); deeper directories are summed up as dir/ (N files)." minimum:"1"`
}

// listFilesDecl is built on first use: inferring and resolving a schema costs start-up time every command would pay.
var listFilesDecl = sync.OnceValue(func() *args[listFilesArgs] { return declare[listFilesArgs](nil) })

func newListFiles(ws agent.Workspace, o Options) agent.Tool {
	t := &tool{
		name:        "list_files",
		description: "List files under a directory recursively (with the editor's unsaved new files), sorted, one path per line relative to the workspace root. Skips .gitignored and secret files. Shows at most " + fmt.Sprint(o.MaxListFiles) + " paths and says how many were cut.",
		schema:      listFilesDecl().schema(),
		readOnly:    true,
	}
	t.run = func(ctx context.Context, raw json.RawMessage) (agent.ToolResult, error) {
		a, err := listFilesDecl().parse(t.name, raw)
		if err != nil {
			return agent.ToolResult{}, err
		}
		var g *glob
		if a.Pattern != "" {
			var err error
			if g, err = compileGlob(a.Pattern); err != nil {
				return agent.ToolResult{}, err
			}
		}
		files, note, err := listFiles(ctx, ws, o.Policy, a.Path, g)
		if err != nil {
			return agent.ToolResult{}, err
		}
		if a.Depth > 0 {
			_, base, _ := o.Policy.ResolveRead(a.Path)
			files = byDepth(files, base, a.Depth)
		}
		var sb strings.Builder
		sb.WriteString(note)
		if len(files) == 0 {
			sb.WriteString("(no files")
			if a.Pattern != "" {
				fmt.Fprintf(&sb, " match %q", a.Pattern)
			}
			sb.WriteString(")\n")
		}
		for i, f := range files {
			if i == o.MaxListFiles {
				fmt.Fprintf(&sb, "[%d of %d files shown, %d cut; narrow with path or pattern]\n", o.MaxListFiles, len(files), len(files)-o.MaxListFiles)
				break
			}
			sb.WriteString(f)
			sb.WriteByte('\n')
		}
		return agent.ToolResult{Output: sb.String()}, nil
	}
	return t
}

// listFiles returns every file list_files shows for dir, sorted, and a note
// for the model when dir itself is git-ignored.
func listFiles(ctx context.Context, ws agent.Workspace, pol Policy, dir string, g *glob) ([]string, string, error) {
	abs, rel, err := pol.ResolveRead(dir)
	if err != nil {
		return nil, "", err
	}
	keep := func(f string) bool {
		return g == nil || g.match(f) || g.match(relTo(f, rel))
	}
	fi, err := os.Stat(abs)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, "", fmt.Errorf("%s does not exist", displayRel(rel))
		}
		return nil, "", fmt.Errorf("list %s: %w", displayRel(rel), err)
	}
	if !fi.IsDir() {
		if !fi.Mode().IsRegular() {
			return nil, "", notRegularError(rel, fi.Mode())
		}
		if keep(rel) {
			return []string{rel}, "", nil
		}
		return nil, "", nil
	}
	var (
		mu    sync.Mutex
		files []string
	)
	w := &walker{root: rootOf(abs, rel), policy: pol, visit: func(_ any, e walkEntry) {
		if keep(e.rel) {
			mu.Lock()
			files = append(files, e.rel)
			mu.Unlock()
		}
	}}
	ignored, err := w.walk(ctx, rel)
	if err != nil {
		return nil, "", err
	}
	files = append(files, unsavedBuffers(ws, pol, rel, keep)...)
	slices.Sort(files)
	files = slices.Compact(files)
	note := ""
	if ignored {
		note = fmt.Sprintf("(%s is git-ignored; listed because it was asked for by path)\n", rel)
	}
	return files, note, nil
}

// unsavedBuffers returns the open files under dir that do not exist on disk
// yet, so a file the user just created in the editor is found too.
func unsavedBuffers(ws agent.Workspace, pol Policy, dir string, keep func(string) bool) []string {
	bl, ok := As[BufferLister](ws)
	if !ok {
		return nil
	}
	var out []string
	for _, f := range bl.OpenFiles() {
		f = filepath.ToSlash(filepath.Clean(filepath.FromSlash(f)))
		if !filepath.IsLocal(filepath.FromSlash(f)) || !relUnder(f, dir) || pol.IsSecret(f) || inGitDir(f) || !keep(f) {
			continue
		}
		// The same confinement as a path on disk: a buffer under a
		// symlinked directory that leads outside the workspace is not the
		// workspace's, whatever the editor calls it.
		if _, real, err := pol.ResolveRead(f); err != nil || real != f {
			continue
		}
		if _, err := os.Lstat(filepath.Join(pol.Root, filepath.FromSlash(f))); os.IsNotExist(err) {
			out = append(out, f)
		}
	}
	return out
}

// rootOf recovers the absolute root from a Resolve result.
func rootOf(abs, rel string) string {
	if rel == "." {
		return abs
	}
	return strings.TrimSuffix(abs, string(filepath.Separator)+filepath.FromSlash(rel))
}

func displayRel(rel string) string {
	if rel == "." {
		return "the workspace root"
	}
	return rel
}

// byDepth keeps the files at most depth directories below base and sums
// up each deeper directory, at the depth where it was cut, as one line
// "dir/ (N files)" in the sorted list.
func byDepth(files []string, base string, depth int) []string {
	var out []string
	deep := map[string]int{}
	for _, f := range files {
		parts := strings.Split(relTo(f, base), "/")
		if len(parts) <= depth {
			out = append(out, f)
			continue
		}
		dir := strings.Join(parts[:depth], "/") + "/"
		if base != "." && base != "" {
			dir = base + "/" + dir
		}
		if deep[dir] == 0 {
			out = append(out, dir)
		}
		deep[dir]++
	}
	for i, f := range out {
		if n := deep[f]; n > 0 && strings.HasSuffix(f, "/") {
			out[i] = fmt.Sprintf("%s (%s)", f, plural(n, "file", "files"))
		}
	}
	return out
}

package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/agentls/agentls/internal/agent"
)

// FileOps is a Workspace that can also delete and move files: through
// the editor's resource operations (WorkspaceEdit DeleteFile, RenameFile)
// or on disk. delete_file, move_file and apply_patch need it.
type FileOps interface {
	// Delete removes the regular file rel.
	Delete(ctx context.Context, rel string) error
	// Move renames the regular file from to the path to, which must not
	// exist; missing parent directories are created.
	Move(ctx context.Context, from, to string) error
}

// Delete removes rel from disk, resolved beneath the root at the moment
// of use (os.Root: a parent swapped for a symlink cannot lead it outside).
func (w *DiskWorkspace) Delete(ctx context.Context, rel string) error {
	return w.withRegular(ctx, rel, func(r *os.Root, p string) error { return r.Remove(p) })
}

// Move renames from to to on disk, beneath the root, refusing to replace
// an existing file.
func (w *DiskWorkspace) Move(ctx context.Context, from, to string) error {
	pt, err := local(to)
	if err != nil {
		return err
	}
	return w.withRegular(ctx, from, func(r *os.Root, pf string) error {
		if _, err := r.Lstat(pt); err == nil {
			return fmt.Errorf("%s already exists: %w", to, fs.ErrExist)
		}
		if dir := filepath.Dir(pt); dir != "." {
			if err := r.MkdirAll(dir, 0o755); err != nil {
				return err
			}
		}
		return r.Rename(pf, pt)
	})
}

// withRegular runs do on the regular file rel, opened beneath the root,
// under the workspace's lock.
func (w *DiskWorkspace) withRegular(ctx context.Context, rel string, do func(r *os.Root, p string) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	p, err := local(rel)
	if err != nil {
		return err
	}
	r, err := w.open()
	if err != nil {
		return err
	}
	defer r.Close()
	w.mu.Lock()
	defer w.mu.Unlock()
	fi, err := r.Lstat(p)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return notRegularError(rel, fi.Mode())
	}
	return do(r, p)
}

type deleteFileArgs struct {
	Path string `json:"path" jsonschema:"The file to delete, relative to the workspace root."`
}

type moveFileArgs struct {
	From string `json:"from" jsonschema:"The file to move or rename."`
	To   string `json:"to" jsonschema:"Its new path; must not exist. Missing directories are created."`
}

var (
	deleteFileDecl = sync.OnceValue(func() *args[deleteFileArgs] { return declare[deleteFileArgs](nil) })
	moveFileDecl   = sync.OnceValue(func() *args[moveFileArgs] { return declare[moveFileArgs](nil) })
)

// exists reports whether rel is a file as the user sees it (an open
// buffer counts).
func exists(ctx context.Context, ws agent.Workspace, rel string) bool {
	_, err := ws.ReadFile(ctx, rel)
	return !errors.Is(err, fs.ErrNotExist)
}

// fileOps returns ws's FileOps, or an error saying this front end has none.
func fileOps(ws agent.Workspace) (FileOps, error) {
	if f, ok := As[FileOps](ws); ok {
		return f, nil
	}
	return nil, errors.New("this workspace cannot delete or move files")
}

func newDeleteFile(ws agent.Workspace, o Options) agent.Tool {
	t := &tool{
		name:        "delete_file",
		description: "Delete one file, through the editor like every edit. Not directories; use run_command for those.",
		schema:      deleteFileDecl().schema(),
	}
	t.run = func(ctx context.Context, raw json.RawMessage) (agent.ToolResult, error) {
		a, err := deleteFileDecl().parse(t.name, raw)
		if err != nil {
			return agent.ToolResult{}, err
		}
		out, err := deleteFile(ctx, ws, o, a.Path)
		if err != nil {
			return agent.ToolResult{}, err
		}
		return agent.ToolResult{Output: out, Changed: []string{out[len("deleted "):]}}, nil
	}
	return t
}

// deleteFile confines and deletes one file; the result is "deleted rel".
func deleteFile(ctx context.Context, ws agent.Workspace, o Options, p string) (string, error) {
	ops, err := fileOps(ws)
	if err != nil {
		return "", err
	}
	abs, rel, err := writable(ctx, o, p)
	if err != nil {
		return "", err
	}
	if err := checkRegular(abs, rel, "; delete_file deletes files only"); err != nil {
		return "", err
	}
	if !exists(ctx, ws, rel) {
		return "", fmt.Errorf("%s does not exist", rel)
	}
	if err := ops.Delete(ctx, rel); err != nil {
		return "", fmt.Errorf("delete %s: %w", rel, err)
	}
	return "deleted " + rel, nil
}

func newMoveFile(ws agent.Workspace, o Options) agent.Tool {
	t := &tool{
		name:        "move_file",
		description: "Move or rename one file, through the editor like every edit. The destination must not exist. Does not update references to it.",
		schema:      moveFileDecl().schema(),
	}
	t.run = func(ctx context.Context, raw json.RawMessage) (agent.ToolResult, error) {
		a, err := moveFileDecl().parse(t.name, raw)
		if err != nil {
			return agent.ToolResult{}, err
		}
		from, to, err := moveFile(ctx, ws, o, a.From, a.To)
		if err != nil {
			return agent.ToolResult{}, err
		}
		return agent.ToolResult{Output: fmt.Sprintf("moved %s to %s", from, to), Changed: []string{from, to}}, nil
	}
	return t
}

// moveFile confines both paths for writing (a move deletes one and
// creates the other) and moves the file.
func moveFile(ctx context.Context, ws agent.Workspace, o Options, fromP, toP string) (string, string, error) {
	ops, err := fileOps(ws)
	if err != nil {
		return "", "", err
	}
	absF, from, err := writable(ctx, o, fromP)
	if err != nil {
		return "", "", err
	}
	absT, to, err := writable(ctx, o, toP)
	if err != nil {
		return "", "", err
	}
	if err := checkRegular(absF, from, "; move_file moves files only"); err != nil {
		return "", "", err
	}
	if !exists(ctx, ws, from) {
		return "", "", fmt.Errorf("%s does not exist", from)
	}
	if from == to {
		return "", "", fmt.Errorf("%s and %s are the same file", fromP, toP)
	}
	if _, err := os.Lstat(absT); err == nil || exists(ctx, ws, to) {
		return "", "", fmt.Errorf("%s already exists; delete it first if it should be replaced", to)
	}
	if err := ops.Move(ctx, from, to); err != nil {
		return "", "", fmt.Errorf("move %s to %s: %w", from, to, err)
	}
	return from, to, nil
}

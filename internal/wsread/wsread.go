// Package wsread is the one reader of workspace text that agentls sends
// to the model or hands a client: context files (AGENTS.md, nested
// AGENTS.md after a tool's result), project commands, @ mentions, files a
// client links in a prompt.
//
// The workspace is the model's pen, so every read keeps the same rules:
// the path is resolved at the moment of the open, beneath the root (a
// symlink that leads out fails the open); the file is opened without
// blocking and checked on the descriptor, so a named pipe, a socket or a
// device is refused with an error instead of hanging the task; and a
// secret file (tools.secretFiles) is refused by the name given and by
// where the opened file really lies, so AGENTS.md -> .env or a command
// file linked to ../../.env is refused too. What is read then reaches the
// model through assemble's scrubber like every other message.
//
// It imports nothing of agentls's but policy (the secret-file globs).
package wsread

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/agentls/agentls/internal/policy"
	"github.com/agentls/agentls/internal/textcut"
)

// Errors Read wraps, for callers that tell refusals apart.
var (
	ErrSecret     = errors.New("secret file")
	ErrOutside    = errors.New("outside the workspace")
	ErrNotRegular = errors.New("not a regular file")
)

// Reader reads files beneath Root.
type Reader struct {
	// Root is the directory paths are relative to.
	Root string
	// Secret says whether a '/'-separated path relative to Root names a
	// secret file. nil: the default secret files
	// (policy.DefaultSecretFiles); a reader never reads secrets because a
	// caller forgot to say which they are.
	Secret func(rel string) bool
}

// New returns a reader of root with the secret-file globs patterns (nil:
// policy.DefaultSecretFiles, as the tools.secretFiles setting's default).
func New(root string, patterns []string) Reader {
	if patterns == nil {
		patterns = policy.DefaultSecretFiles()
	}
	m := policy.CompileSecrets(patterns)
	return Reader{Root: root, Secret: func(rel string) bool { return m.Match(rel, path.Base(rel)) }}
}

var defaultSecrets = policy.CompileSecrets(policy.DefaultSecretFiles())

func (r Reader) secret(rel string) bool {
	if r.Secret == nil {
		return defaultSecrets.Match(rel, path.Base(rel))
	}
	return r.Secret(rel)
}

// File is what Read read.
type File struct {
	Data []byte
	// More: the file holds more than the limit; Data is its first bytes.
	More bool
	// Real is where the file lies, relative to Root ('/'-separated): rel
	// itself, or the target of the links on the way.
	Real string
}

// Read reads the regular file rel (relative to Root, '/' or the
// system's separator), at most limit bytes (limit <= 0: no limit
// beyond what memory allows; callers set one).
func (r Reader) Read(rel string, limit int) (File, error) {
	if r.Root == "" {
		return File{}, fmt.Errorf("%s: no workspace root: %w", rel, ErrOutside)
	}
	clean := filepath.Clean(filepath.FromSlash(rel))
	if !filepath.IsLocal(clean) {
		return File{}, fmt.Errorf("%s is %w", rel, ErrOutside)
	}
	slash := filepath.ToSlash(clean)
	if r.secret(slash) {
		return File{}, fmt.Errorf("%s is a secret file (tools.secretFiles): %w", slash, ErrSecret)
	}
	f, err := openBeneath(r.Root, clean)
	if err != nil {
		return File{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return File{}, fmt.Errorf("%s: %w", slash, err)
	}
	if !st.Mode().IsRegular() {
		return File{}, fmt.Errorf("%s is %s; agentls reads only regular files: %w", slash, Kind(st.Mode()), ErrNotRegular)
	}
	real, ok := openedRel(r.Root, f, clean)
	if !ok {
		return File{}, fmt.Errorf("%s leads %w", slash, ErrOutside)
	}
	if real != slash && r.secret(real) {
		return File{}, fmt.Errorf("%s is a link to %s, a secret file (tools.secretFiles): %w", slash, real, ErrSecret)
	}
	var src io.Reader = f
	if limit > 0 {
		src = io.LimitReader(f, int64(limit)+1)
	}
	b, err := io.ReadAll(src)
	if err != nil {
		return File{}, fmt.Errorf("%s: %w", slash, err)
	}
	out := File{Data: b, Real: real}
	if limit > 0 && len(b) > limit {
		// Cut on a character boundary: half a character reaches the model
		// as U+FFFD (a cut file's data is text for the model, or refused).
		out.Data, out.More = textcut.Head(b, limit), true
	}
	return out, nil
}

// Kind names a file that is not regular, for a message ("a named pipe
// (FIFO)"); the tools name what they refuse with it too.
func Kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	}
	return "not a regular file"
}

// openedRel is where the opened file f (opened as rel below root) lies,
// relative to root and '/'-separated: read from the descriptor where the
// system says (so a link swapped after the open changes nothing), else by
// resolving the name's links, which must lead to the very file opened
// (a link swapped after the open, from a secret to a harmless file, is
// refused). ok is false when it lies outside root.
func openedRel(root string, f *os.File, rel string) (string, bool) {
	target, err := fdPath(f)
	if err != nil || !filepath.IsAbs(target) || strings.HasSuffix(target, " (deleted)") {
		return relByName(root, f, rel)
	}
	return relOf(root, target)
}

// relByName is openedRel where the system does not say where f lies.
func relByName(root string, f *os.File, rel string) (string, bool) {
	target, err := filepath.EvalSymlinks(filepath.Join(root, rel))
	if err != nil {
		return "", false
	}
	opened, err := f.Stat()
	if err != nil {
		return "", false
	}
	if named, err := os.Stat(target); err != nil || !os.SameFile(opened, named) {
		return "", false
	}
	return relOf(root, target)
}

// relOf is target (resolved) relative to root, when it lies beneath it.
func relOf(root, target string) (string, bool) {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", false
	}
	out, err := filepath.Rel(realRoot, target)
	if err != nil || !filepath.IsLocal(out) {
		return "", false
	}
	return filepath.ToSlash(out), true
}

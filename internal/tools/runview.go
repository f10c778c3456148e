package tools

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/proc"
)

// Viewer is a workspace whose files the editor holds (the LSP front end):
// run_command then runs in a view of the workspace (proc.Sandbox.View)
// where those files are at their real paths with the editor's text, as
// the checks see them, and what the command writes is carried out of the
// view afterwards. Headless the disk is the truth: no Viewer.
type Viewer interface {
	// View returns the texts commands see instead of the disk, by
	// workspace-relative slash path: every buffer the editor holds.
	View(ctx context.Context) map[string][]byte
	// Wrote hands back what a command wrote to a file of the view: seen
	// is the text the command saw, next what it left. The workspace
	// applies that change to the file as it is now (the buffer stays the
	// truth), keeping what the user typed meanwhile; note says what could
	// not be applied, for the model.
	Wrote(ctx context.Context, rel string, seen, next []byte) (note string, err error)
}

// CarryWriter is a Viewer that takes what a command's view carries into
// the tree through its own write path (the front end's apply.Applier:
// compare-and-swap under its per-file turn): CarryFile turns rel from old
// (absent unless existed) into next, or deletes it, over that text only,
// and fails when the file is no longer old. A Viewer that is no
// CarryWriter has the files written beneath the root by the carry itself.
type CarryWriter interface {
	Viewer
	CarryFile(ctx context.Context, rel string, old []byte, existed bool, next []byte, del bool) error
}

// CarryProposer is a CarryWriter that may hold what a command's view
// carries as proposals instead of writing it (review mode, a dry run):
// while ProposesCarry says so, CarryFile records a proposal, and the
// carry neither journals, writes nor records the files as applied.
type CarryProposer interface {
	CarryWriter
	ProposesCarry() bool
}

// CarryAsker is a Viewer that asks the user about each file a command's
// view would carry in (ACP with review on, where every edit is asked
// about), before anything is journaled or written: a file refused is left
// as it is.
type CarryAsker interface {
	Viewer
	AskCarry(ctx context.Context, rel string, old []byte, existed bool, next []byte, del bool) error
}

// CommandViewer is a Viewer whose view is for run_command alone (the
// headless and ACP workspaces, where the disk is the truth): hooks and a
// stop condition, whose writes are not carried out of a view, run on the
// disk as before.
type CommandViewer interface {
	Viewer
	CommandsOnly()
}

// viewThrough are build-product directories a command's view shows as
// they are on disk, writes included, as the checks' view does (verify's
// linkDirs): installs and builds there land at once and stay incremental.
var viewThrough = []string{"node_modules", "target", ".venv", "venv", ".tox"}

// maxViewWrites bounds what is carried out of a view: a command that
// writes more (a build into an unlisted directory) is told so.
const maxViewWrites = 256 << 20

// viewScript runs the command as sh -c would, between two listings of
// the workspace, and packs what it wrote into the exchange directory
// (outside the workspace, in the temporary directory the sandbox lets it
// write): the view's own writes vanish with its mount namespace.
//
// File times come from the kernel's coarse clock, which moves once a tick
// (4–10 ms): a file the command writes within the stamp's tick has the
// stamp's time, and -newer (strictly newer) would miss it, as it missed a
// quick `touch made.txt` under load. The script waits out the tick after
// the stamp (20 ms, once per command). A file mv renames keeps its
// modification time: its change time (-cnewer) says it is new there.
const viewScript = `x="$AGENTLS_VIEW_EXCHANGE"
: > "$x/stamp"
sleep 0.02
find . \( -path ./.git $AGENTLS_VIEW_PRUNE \) -prune -o \( -type f -o -type l \) -print0 > "$x/before" 2>/dev/null
/bin/sh "$x/command"
code=$?
find . \( -path ./.git $AGENTLS_VIEW_PRUNE \) -prune -o \( -type f -o -type l \) \( \( \( -newer "$x/stamp" -o -cnewer "$x/stamp" \) -fprint0 "$x/changed" \) -o -true \) -print0 > "$x/after" 2>/dev/null
if [ -s "$x/changed" ]; then
  tar --null -T "$x/changed" -cf "$x/changed.tar" 2>"$x/tar.err" || echo "$?" > "$x/tar.failed"
fi
exit $code
`

// runInView runs command in a view of the workspace holding the editor's
// texts, then carries what it wrote out: files the editor holds through
// the Viewer (an applyEdit; the buffer stays the truth), the others to
// disk beneath the root, deletions too. It returns the output as
// runShell does, with a line saying what was carried.
func runInView(ctx context.Context, o Options, v Viewer, root, command string, timeout time.Duration, network bool, view map[string][]byte, record recordFunc) (string, proc.Result, error) {
	x, err := os.MkdirTemp("", "agentls-command-")
	if err != nil {
		return "", proc.Result{}, fmt.Errorf("run %q: %w", command, err)
	}
	defer os.RemoveAll(x)
	var through []string
	prune := ""
	for _, d := range viewThrough {
		if fi, err := os.Lstat(filepath.Join(root, d)); err != nil || !fi.IsDir() || holds(view, d) {
			continue
		}
		through = append(through, d)
		prune += " -o -path ./" + d
	}
	sb := o.Sandbox
	sb.Workspace = root
	sb.Network = sb.Network || network
	sb.View, sb.ViewThrough = view, through
	// The exchange directory is declared for the command: nothing else
	// outside the workspace exists for it.
	sb.Scratch = append(append([]string(nil), sb.Scratch...), x)
	// The command goes in a file, not the environment: a variable holding
	// a secret would be dropped (proc.CleanEnv), and with it the command.
	if err := os.WriteFile(filepath.Join(x, "command"), []byte(command), 0o600); err != nil {
		return "", proc.Result{}, fmt.Errorf("run %q: %w", command, err)
	}
	env := append(commandEnv(o.Env), "AGENTLS_VIEW_EXCHANGE="+x, "AGENTLS_VIEW_PRUNE="+prune)
	started := time.Now()
	res, err := proc.Run(ctx, proc.Spec{Shell: viewScript, Dir: root, Env: env, Secrets: o.Secrets,
		Timeout: timeout, OutputLimit: o.MaxCommandOutput, Sandbox: sb})
	if err != nil {
		return "", res, err
	}
	out, err := describe(ctx, command, timeout, res)
	if err != nil || res.TimedOut || res.Cancelled {
		if !res.Cancelled && ctx.Err() == nil {
			out += "[the command did not finish: what it wrote was discarded]\n"
		}
		return out, res, err
	}
	if o.Sandbox.Mode == proc.ModeReadOnly {
		// The workspace is read-only: what the view took is not carried.
		return out, res, nil
	}
	note, cerr := carry(ctx, o, v, root, x, view, started, record)
	if cerr != nil {
		note = "[what the command wrote could not be carried out of its view: " + cerr.Error() + "]\n"
	}
	return out + note, res, nil
}

// holds reports whether a view path lies in directory d.
func holds(view map[string][]byte, d string) bool {
	for rel := range view {
		if strings.HasPrefix(path.Clean(rel), d+"/") {
			return true
		}
	}
	return false
}

// carry applies what the command wrote in its view: the exchange holds the
// listings before and after and a tar of the files changed since the stamp.
// A file the editor does not hold is written or deleted only if nobody
// changed it on disk since the command started (an edit of another task
// meanwhile): the command never saw that text, and it is not written over.
func carry(ctx context.Context, o Options, v Viewer, root, x string, view map[string][]byte, started time.Time, record recordFunc) (string, error) {
	// The command could write the exchange directory too: what is read
	// from it is checked like any other input (regular files of bounded
	// size, paths confined and carriable).
	if b, err := exchangeFile(filepath.Join(x, "tar.failed")); err == nil {
		msg, _ := exchangeFile(filepath.Join(x, "tar.err"))
		return "", fmt.Errorf("tar failed (%s): %s", strings.TrimSpace(string(b)), strings.TrimSpace(string(msg)))
	}
	before, err := listing(filepath.Join(x, "before"))
	if err != nil {
		return "", err
	}
	after, err := listing(filepath.Join(x, "after"))
	if err != nil {
		return "", err
	}
	tb, err := exchangeFile(filepath.Join(x, "changed.tar"))
	if errors.Is(err, fs.ErrNotExist) {
		tb, err = nil, nil // nothing changed: no archive
	}
	if err != nil {
		return "", err
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return "", err
	}
	defer r.Close()
	// The protected links as the command left them (one walk for all
	// that it wrote): a file where one leads is not carried either.
	c := &carrier{ctx: ctx, v: v, r: r, prot: protectionOf(root), view: view, started: started, record: record,
		confirm: o.ConfirmWrite, journal: o.CarryJournal}
	if err := c.writes(tar.NewReader(bytes.NewReader(tb))); err != nil {
		return "", err
	}
	dels := make([]string, 0)
	for rel := range before {
		if !after[rel] {
			dels = append(dels, rel)
		}
	}
	sort.Strings(dels)
	for _, rel := range dels {
		c.delete(rel)
	}
	err = c.commit(root)
	if o.carried != nil {
		*o.carried = append(*o.carried, c.edited...)
		*o.carried = append(*o.carried, c.wrote...)
		*o.carried = append(*o.carried, c.deleted...)
	}
	return c.report(), err
}

// carrier carries one command's writes from its view into the workspace.
type carrier struct {
	ctx     context.Context
	v       Viewer
	r       *os.Root
	prot    protection
	view    map[string][]byte
	started time.Time
	record  recordFunc
	confirm func(ctx context.Context, rel, why string) (bool, error)
	journal string // the directory of carry journals ("": none kept)

	plan                                    []carryEntry
	wrote, edited, deleted, proposed, notes []string
}

// writes carries the files of the command's archive.
func (c *carrier) writes(tr *tar.Reader) error {
	total := int64(0)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		rel := path.Clean(strings.TrimPrefix(h.Name, "./"))
		if !filepath.IsLocal(rel) || h.Typeflag != tar.TypeReg {
			if h.Typeflag == tar.TypeSymlink {
				c.notes = append(c.notes, rel+" (a symlink the command made is not carried)")
			}
			continue
		}
		if total += h.Size; total > maxViewWrites {
			c.notes = append(c.notes, fmt.Sprintf("%s and later files (over %d MiB written)", rel, maxViewWrites>>20))
			return nil
		}
		next, err := io.ReadAll(tr)
		if err != nil {
			return err
		}
		c.write(rel, next, fs.FileMode(h.Mode).Perm())
	}
}

// write carries one file the command wrote: into the editor's buffer if it
// holds the file, else to disk if nobody changed it since the command
// started.
func (c *carrier) write(rel string, next []byte, perm fs.FileMode) {
	if seen, held := c.view[rel]; held {
		if bytes.Equal(seen, next) {
			return
		}
		note, err := c.v.Wrote(c.ctx, rel, seen, next)
		if err != nil {
			c.notes = append(c.notes, fmt.Sprintf("%s (%v)", rel, err))
			return
		}
		if note != "" {
			c.notes = append(c.notes, rel+" ("+note+")")
		}
		c.edited = append(c.edited, rel)
		return
	}
	old, rerr := c.r.ReadFile(filepath.FromSlash(rel))
	if rerr == nil && bytes.Equal(old, next) {
		return
	}
	if err := c.allowed(rel); err != nil {
		c.notes = append(c.notes, fmt.Sprintf("%s (%v)", rel, err))
		return
	}
	if changedSince(c.r, rel, c.started) {
		c.notes = append(c.notes, rel+" (changed by someone else while the command ran: the command's text was not written over it)")
		return
	}
	if rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
		c.notes = append(c.notes, fmt.Sprintf("%s (%v)", rel, rerr))
		return
	}
	if !c.asked(rel, old, rerr == nil, next, false) {
		return
	}
	c.plan = append(c.plan, carryEntry{Rel: rel, Old: old, Existed: rerr == nil, Next: next, Perm: perm, OldPerm: permOf(c.r, rel)})
}

// delete carries one file the command deleted.
func (c *carrier) delete(rel string) {
	if _, held := c.view[rel]; held {
		c.notes = append(c.notes, rel+" (deleted by the command, but the editor holds it: not deleted)")
		return
	}
	old, rerr := c.r.ReadFile(filepath.FromSlash(rel))
	if errors.Is(rerr, fs.ErrNotExist) {
		return
	}
	if err := c.allowed(rel); err != nil {
		c.notes = append(c.notes, fmt.Sprintf("%s, deleted by the command (%v)", rel, err))
		return
	}
	if changedSince(c.r, rel, c.started) {
		c.notes = append(c.notes, rel+" (deleted by the command, but changed by someone else while it ran: not deleted)")
		return
	}
	if rerr != nil {
		c.notes = append(c.notes, fmt.Sprintf("%s (%v)", rel, rerr))
		return
	}
	if !c.asked(rel, old, true, nil, true) {
		return
	}
	c.plan = append(c.plan, carryEntry{Rel: rel, Old: old, Existed: true, Delete: true, OldPerm: permOf(c.r, rel)})
}

// report is what the model is told of the carry.
func (c *carrier) report() string {
	var b strings.Builder
	say := func(what string, rels []string) {
		if len(rels) > 0 {
			sort.Strings(rels)
			fmt.Fprintf(&b, "[%s: %s]\n", what, strings.Join(rels, ", "))
		}
	}
	say("the command ran in a view of the workspace (the editor's unsaved text); it wrote to disk", c.wrote)
	say("it changed files open in the editor, which now show the change", c.edited)
	say("it deleted", c.deleted)
	say("its changes to these files are proposed for the user's review, not written (the workspace is as it was)", c.proposed)
	say("not carried", c.notes)
	return b.String()
}

// changedSince reports whether rel was modified on disk after t (by
// another task's edit or the user's save, while the command ran in its view).
func changedSince(r *os.Root, rel string, t time.Time) bool {
	fi, err := r.Lstat(filepath.FromSlash(rel))
	return err == nil && fi.ModTime().After(t)
}

// permOf is rel's permission bits on disk (0: no such file).
func permOf(r *os.Root, rel string) fs.FileMode {
	fi, err := r.Lstat(filepath.FromSlash(rel))
	if err != nil {
		return 0
	}
	return fi.Mode().Perm()
}

// listing reads a NUL-separated find listing as a set of clean relative
// paths.
func listing(p string) (map[string]bool, error) {
	b, err := exchangeFile(p)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, name := range strings.Split(string(b), "\x00") {
		if name == "" {
			continue
		}
		if rel := path.Clean(strings.TrimPrefix(name, "./")); filepath.IsLocal(rel) {
			out[rel] = true
		}
	}
	return out, nil
}

// exchangeFile reads a file of the exchange directory: a regular file
// (never a FIFO the command left there to hang the read) of bounded size.
func exchangeFile(p string) ([]byte, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > maxViewWrites+64<<20 {
		return nil, fmt.Errorf("%s is not a regular file of at most %d MiB", filepath.Base(p), maxViewWrites>>20)
	}
	b, _, err := ReadRegularFile(p)
	return b, err
}

// carriable refuses to carry out of the view what the command could not
// have changed on disk either: .git, the files that configure agentls or
// the editor (policy.Protected, or where a protected symlink leads:
// prot), and any path through a symlink or onto one.
func carriable(r *os.Root, rel string, prot protection, asked bool) error {
	if rel == ".git" || strings.HasPrefix(rel, ".git/") {
		return errors.New("inside .git, which stays read-only")
	}
	if p, why := prot.check(rel, ""); p && !asked {
		return errors.New(why + "; only the user changes it")
	}
	parts := strings.Split(rel, "/")
	for i := 1; i <= len(parts); i++ {
		fi, err := r.Lstat(filepath.FromSlash(strings.Join(parts[:i], "/")))
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			return errors.New("the path goes through a symlink")
		case i < len(parts) && !fi.IsDir():
			return errors.New("a file is in the way")
		case i == len(parts) && !fi.Mode().IsRegular():
			return errors.New("not a regular file")
		}
	}
	return nil
}

// writeBeneath writes a file beneath r (no symlink or .. leads out),
// making its directories, atomically by rename (DiskWorkspace's
// writeAtomic: a temporary of its own, synced before the rename, so a
// carry whose journal is removed leaves no empty file after a crash).
func writeBeneath(r *os.Root, rel string, data []byte, mode fs.FileMode) error {
	if mode == 0 {
		mode = 0o644
	}
	return writeAtomic(r, filepath.FromSlash(rel), data, mode)
}

// Carrier is a workspace, or a wrapper of one, that keeps a record of the
// files a command's view carried into the tree itself (those the editor
// does not hold), so the task's change log and checkpoints hold what
// commands wrote and deleted, and undo, rewind and review cover it.
type Carrier interface {
	// Carried: rel went from old (absent unless existed) to next.
	Carried(rel string, old []byte, existed bool, next []byte)
	// CarriedDelete: rel, whose text was old and permission bits mode,
	// was deleted (by rm, or the old name of mv); undo and rewind make
	// it again as it was.
	CarriedDelete(rel string, old []byte, mode fs.FileMode)
}

// recordFunc records one file carried in (nil: nobody keeps a record).
type recordFunc func(e carryEntry)

// recorderOf tells every Carrier in ws and the workspaces it wraps.
func recorderOf(ws agent.Workspace) recordFunc {
	var cs []Carrier
	for ws != nil {
		if c, ok := ws.(Carrier); ok {
			cs = append(cs, c)
		}
		u, ok := ws.(interface{ Unwrap() agent.Workspace })
		if !ok {
			break
		}
		ws = u.Unwrap()
	}
	if len(cs) == 0 {
		return nil
	}
	return func(e carryEntry) {
		for _, c := range cs {
			if e.Delete {
				c.CarriedDelete(e.Rel, e.Old, e.OldPerm)
			} else {
				c.Carried(e.Rel, e.Old, e.Existed, e.Next)
			}
		}
	}
}

// asViewer finds the Viewer in ws or in the workspaces it wraps.
func asViewer(ws agent.Workspace) (Viewer, bool) { return As[Viewer](ws) }

// As finds an optional interface of a workspace (FileOps, BufferLister,
// Viewer) in ws or in the workspaces it wraps, as errors.As does: a
// wrapper says what it wraps with Unwrap, and passes on what it does not
// implement itself.
func As[T any](ws agent.Workspace) (T, bool) {
	for ws != nil {
		if v, ok := ws.(T); ok {
			return v, true
		}
		u, ok := ws.(interface{ Unwrap() agent.Workspace })
		if !ok {
			break
		}
		ws = u.Unwrap()
	}
	var zero T
	return zero, false
}

// viewOf is the view run_command runs in, or nil: the workspace is no
// Viewer (headless, the disk is the truth), or the sandbox that mounts
// views is off or unavailable (then the command runs on the disk, as the
// checks' fallback does not apply to commands that must write). A
// Viewer's command runs in a view even when the editor holds no file:
// what it writes lands in a private layer and is carried into the tree
// when it ends, so no sandboxed process runs on the real tree while the
// editor writes an edit (a directory it swaps for a symlink out cannot
// carry that write outside).
func viewOf(ctx context.Context, ws agent.Workspace, o Options) (Viewer, map[string][]byte) {
	v, ok := asViewer(ws)
	if !ok || o.Sandbox.Mode == proc.ModeOff {
		return nil, nil
	}
	if ok, _ := proc.Available(); !ok {
		return nil, nil
	}
	view := v.View(ctx)
	if view == nil {
		view = map[string][]byte{}
	}
	return v, view
}

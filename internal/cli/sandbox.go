package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/agentls/agentls/internal/assemble"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/policy"
	"github.com/agentls/agentls/internal/render"
	"github.com/agentls/agentls/internal/session"
)

const sandboxUsage = `usage:
  agentls sandbox [show] [--workspace DIR] [--json]
        what a sandboxed command of the workspace sees: every path of its file
        system and its access, the variables it does not get, its limits
  agentls sandbox caches [--json]
        the cache layers of every workspace: owner, last use, disk used
  agentls sandbox prune [--all] [--json]
        remove the cache layers that are orphaned (their workspace is gone or
        is another directory now), unused for 14 days, or beyond 2 GiB in all
        (the least recently used first); --all: every one not in use

Flags:
`

// Sandbox is `agentls sandbox`: the declaration a workspace's commands run
// in, and the cache layers.
func Sandbox(args []string, stdout, stderr io.Writer) int {
	c := newSubcommand("sandbox", sandboxUsage, stderr)
	all := c.fs.Bool("all", false, "prune: every layer not in use")
	sub, pos, code, done := c.parse(args, "show")
	if done {
		return code
	}
	if len(pos) > 0 {
		c.fs.Usage()
		return exitUsage
	}
	switch sub {
	case "show":
		return showSandbox(*c.workspace, *c.asJSON, stdout, stderr)
	case "caches":
		return listCacheLayers(*c.asJSON, stdout, stderr)
	case "prune":
		return pruneCacheLayers(*all, *c.asJSON, stdout, stderr)
	}
	c.fs.Usage()
	return exitUsage
}

func showSandbox(workspace string, asJSON bool, stdout, stderr io.Writer) int {
	root, err := workspaceRoot(workspace)
	if err == nil {
		root, err = filepath.Abs(root)
	}
	if err != nil {
		fmt.Fprintln(stderr, "agentls sandbox:", err)
		return exitUsage
	}
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		fmt.Fprintf(stderr, "agentls sandbox: %s is not a directory\n", root)
		return exitUsage
	}
	// The settings as a task would apply them: the workspace file's
	// widening ones only once trusted.
	var store *policy.TrustStore
	if dir, err := session.StateDir(); err == nil {
		store = assemble.TrustStore(dir)
	}
	ws := assemble.ReadWorkspaceSettings(root, store)
	cfg, _ := config.Resolve(ws.Source, config.FromEnv(os.Getenv))
	d, err := assemble.Declaration(cfg, root)
	if err != nil {
		fmt.Fprintln(stderr, "agentls sandbox:", err)
		return exitFailed
	}
	if asJSON {
		return writeJSON(stdout, d)
	}
	fmt.Fprint(stdout, d.String())
	if ok, why := assemble.SandboxAvailable(); !ok && !assemble.SandboxOff(d) {
		fmt.Fprintf(stdout, "\nThis machine cannot sandbox (%s): commands run unconfined, each after a question.\n", why)
	}
	if len(ws.Untrusted) > 0 {
		fmt.Fprintf(stdout, "\nNot applied until you trust %s (agentls trust): %s\n", ws.Path, strings.Join(ws.Untrusted, ", "))
	}
	return exitOK
}

func listCacheLayers(asJSON bool, stdout, stderr io.Writer) int {
	ls, err := assemble.CacheLayers()
	if err != nil {
		fmt.Fprintln(stderr, "agentls sandbox:", err)
		return exitFailed
	}
	if asJSON {
		if ls == nil {
			ls = []assemble.CacheLayer{}
		}
		return writeJSON(stdout, ls)
	}
	printLayers(ls, stdout)
	return exitOK
}

func printLayers(ls []assemble.CacheLayer, stdout io.Writer) {
	var total int64
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SIZE\tLAST USED\tSTATE\tWORKSPACE")
	for _, l := range ls {
		total += l.Bytes
		state := "kept"
		switch {
		case l.InUse:
			state = "in use"
		case l.Orphaned:
			state = "orphaned"
		case time.Since(l.LastUsed) > assemble.CacheMaxAge:
			state = "expired"
		}
		w := l.Workspace
		if w == "" {
			w = "(unknown) " + l.Dir
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", render.Size(l.Bytes), l.LastUsed.Local().Format("2006-01-02 15:04"), state, w)
	}
	tw.Flush()
	fmt.Fprintf(stdout, "%d workspaces, %s in %s (cap %s, unused for %d days: pruned)\n", len(ls), render.Size(total),
		assemble.CacheLayersDir(), render.Size(assemble.CacheMaxBytes), int(assemble.CacheMaxAge.Hours()/24))
}

func pruneCacheLayers(all, asJSON bool, stdout, stderr io.Writer) int {
	removed, err := assemble.PruneCacheLayers(assemble.CacheMaxAge, assemble.CacheMaxBytes, all)
	if err != nil {
		fmt.Fprintln(stderr, "agentls sandbox:", err)
		return exitFailed
	}
	if asJSON {
		if removed == nil {
			removed = []assemble.CacheLayer{}
		}
		return writeJSON(stdout, removed)
	}
	var freed int64
	for _, l := range removed {
		freed += l.Bytes
	}
	fmt.Fprintf(stdout, "removed %d cache layers, %s freed\n", len(removed), render.Size(freed))
	return exitOK
}

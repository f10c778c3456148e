package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/agentls/agentls/internal/assemble"
	"github.com/agentls/agentls/internal/session"
)

// Trust is `agentls trust`: it shows which settings of the workspace's
// .agentls.json widen what agentls may run, and trusts that content once
// the user says yes on a terminal (or passes --yes). It is the way for
// editors that cannot ask (Helix), since trust lives in the state directory
// every front end reads.
func Trust(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("trust", flag.ContinueOnError)
	fs.SetOutput(stderr)
	ws := fs.String("workspace", "", "workspace directory (default: the project around the current directory)")
	yes := fs.Bool("yes", false, "trust without asking (for scripts; read the file first)")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	root, err := workspaceRoot(*ws)
	if err == nil {
		root, err = filepath.Abs(root)
	}
	if err != nil {
		fmt.Fprintln(stderr, "agentls trust:", err)
		return exitUsage
	}
	dir, err := session.StateDir()
	if err != nil {
		fmt.Fprintln(stderr, "agentls trust:", err)
		return exitFailed
	}
	store := assemble.TrustStore(dir)
	w := assemble.ReadWorkspaceSettings(root, store)
	var hooks []assemble.HookFile
	for _, h := range assemble.ReadHookFiles(root, store) {
		if h.Problem != "" {
			fmt.Fprintf(stderr, "agentls trust: the hooks of %s cannot be used: %s\n", h.Rel, h.Problem)
			continue
		}
		hooks = append(hooks, h)
	}
	switch {
	case w.Content == nil && len(hooks) == 0:
		fmt.Fprintf(stdout, "%s has no %s: nothing to trust\n", root, filepath.Base(w.Path))
		return exitOK
	case w.Content == nil && len(w.Untrusted) == 0:
		fmt.Fprintf(stdout, "%s has no %s, and its hook files are trusted as they are\n", root, filepath.Base(w.Path))
		return exitOK
	case len(w.Untrusted) == 0:
		fmt.Fprintf(stdout, "%s widens nothing, or is trusted as it is\n", w.Path)
		return exitOK
	}
	if !*yes {
		if !isTerminal(stdin) {
			fmt.Fprintf(stderr, "agentls trust: %s\nanswer on a terminal, or pass --yes\n", w.Question())
			return exitFailed
		}
		if ok, _ := askYesNo(context.Background(), newLines(stdin), stderr, w.Question()); !ok {
			fmt.Fprintln(stdout, "not trusted")
			return exitFailed
		}
	}
	if err := w.Trust(store); err != nil {
		fmt.Fprintln(stderr, "agentls trust:", err)
		return exitFailed
	}
	var keys []string
	for _, k := range w.Untrusted {
		if !strings.HasPrefix(k, "hooks in ") {
			keys = append(keys, k)
		}
	}
	if len(keys) > 0 {
		fmt.Fprintf(stdout, "trusted %s (%s) until it changes\n", w.Path, strings.Join(keys, ", "))
	}
	for _, h := range w.HookFiles {
		fmt.Fprintf(stdout, "trusted the hooks of %s (%s) until it changes\n", h.Path, strings.Join(h.Hooks.Describe(), "; "))
	}
	return exitOK
}

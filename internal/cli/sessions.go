package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/render"
	"github.com/agentls/agentls/internal/session"
)

const sessionsUsage = `usage:
  agentls sessions [list] [--workspace DIR] [--json]
        the workspace's sessions, most recent first
  agentls sessions show [--workspace DIR] [--json] [--diff] ID
        a session's tasks, results, changed files, transcripts and steps
  agentls sessions rewind [--workspace DIR] [--json] ID STEP
        put the files the session changed back as they were at STEP (three-way:
        later changes of yours stay) and cut its conversation there
  agentls sessions export [--workspace DIR] [--output FILE] ID
        the session (its conversation, steps and transcripts) as one JSON file, to
        continue it in another checkout or on another machine (stdout without --output)
  agentls sessions import [--workspace DIR] FILE
        make an exported session one of this workspace's: agentls run --session ID
        then continues it here

Flags:
`

// sessionsCmd is `agentls sessions`.
func Sessions(args []string, stdout, stderr io.Writer) int {
	c := newSubcommand("sessions", sessionsUsage, stderr)
	withDiff := c.fs.Bool("diff", false, "show: print each change's diff")
	output := c.fs.String("output", "", "export: write the session to this file instead of stdout")
	sub, pos, code, done := c.parse(args, "list")
	if done {
		return code
	}
	fs, workspace, asJSON := c.fs, c.workspace, c.asJSON
	root, err := workspaceRoot(*workspace)
	if err != nil {
		fmt.Fprintln(stderr, "agentls sessions:", err)
		return exitUsage
	}
	cfg, _ := config.Load(root, nil)
	store, err := session.Open(root, session.Options{Redact: cfg.Redact, Warn: func(m string) { fmt.Fprintln(stderr, "agentls: warning:", m) }})
	if err != nil {
		fmt.Fprintln(stderr, "agentls sessions:", err)
		return exitFailed
	}
	switch {
	case sub == "list" && len(pos) == 0:
		return listSessions(store, *asJSON, stdout, stderr)
	case sub == "show" && len(pos) == 1:
		return showSession(store, pos[0], *asJSON, *withDiff, stdout, stderr)
	case sub == "rewind" && len(pos) == 2:
		return rewindSession(store, pos[0], pos[1], *asJSON, stdout, stderr)
	case sub == "export" && len(pos) == 1:
		return exportSession(store, pos[0], *output, stdout, stderr)
	case sub == "import" && len(pos) == 1:
		return importSession(store, pos[0], stdout, stderr)
	}
	fs.Usage()
	return exitUsage
}

func listSessions(store *session.Store, asJSON bool, stdout, stderr io.Writer) int {
	infos, err := store.List()
	if err != nil {
		fmt.Fprintln(stderr, "agentls sessions:", err)
		return exitFailed
	}
	if asJSON {
		if infos == nil {
			infos = []session.Info{}
		}
		return writeJSON(stdout, infos)
	}
	if len(infos) == 0 {
		fmt.Fprintf(stderr, "no sessions yet for %s\n", store.Root())
		return exitOK
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SESSION\tUPDATED\tTASKS\tLAST STATUS\tLAST TASK")
	for _, in := range infos {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", in.ID, in.Updated.Local().Format("2006-01-02 15:04"), in.Tasks, in.LastStatus, render.OneLine(in.LastPrompt, 60))
	}
	tw.Flush()
	return exitOK
}

func showSession(store *session.Store, id string, asJSON, withDiff bool, stdout, stderr io.Writer) int {
	sess, err := store.Load(id)
	if code, bad := sessionErr(store, id, err, stderr); bad {
		return code
	}
	for _, w := range sess.Warnings {
		fmt.Fprintln(stderr, "agentls: warning:", w)
	}
	if asJSON {
		return writeJSON(stdout, sess)
	}
	fmt.Fprintf(stdout, "session %s · %s · created %s · %d task%s · %d messages\n", sess.ID, sess.Workspace,
		sess.Created.Local().Format(time.DateTime), len(sess.Tasks), plural(len(sess.Tasks)), len(sess.Messages))
	for _, t := range sess.Tasks {
		fmt.Fprintf(stdout, "\n#%d %s · %s\n", t.Seq, t.ID, t.Started.Local().Format(time.DateTime))
		for _, l := range strings.Split(strings.TrimSpace(t.Prompt), "\n") {
			fmt.Fprintf(stdout, "  > %s\n", l)
		}
		if t.Result == nil {
			fmt.Fprintln(stdout, "  interrupted: no result was recorded (the process ended)")
		} else {
			fmt.Fprintf(stdout, "  %s\n", render.ResultLine(*t.Result))
			if t.Result.Error != "" {
				fmt.Fprintf(stdout, "  error: %s\n", render.OneLine(t.Result.Error, 300))
			}
			if s := render.OneLine(t.Result.Summary, 300); s != "" {
				fmt.Fprintf(stdout, "  summary: %s\n", s)
			}
		}
		for _, ch := range t.Changes {
			verb := "changed"
			if ch.Created {
				verb = "created"
			}
			fmt.Fprintf(stdout, "  %s %s\n", verb, ch.Path)
			if withDiff {
				fmt.Fprint(stdout, ch.Diff)
			}
		}
		if t.Transcript != "" {
			fmt.Fprintf(stdout, "  transcript: %s\n", t.Transcript)
		}
	}
	showSteps(sess, stdout)
	return exitOK
}

func writeJSON(w io.Writer, v any) int {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return exitFailed
	}
	return exitOK
}

func exportSession(store *session.Store, id, output string, stdout, stderr io.Writer) int {
	b, err := store.Export(id)
	if code, bad := sessionErr(store, id, err, stderr); bad {
		return code
	}
	data, err := json.Marshal(b)
	if err != nil {
		fmt.Fprintln(stderr, "agentls sessions:", err)
		return exitFailed
	}
	if output == "" {
		fmt.Fprintln(stdout, string(data))
		return exitOK
	}
	if err := os.WriteFile(output, append(data, '\n'), 0o600); err != nil {
		fmt.Fprintln(stderr, "agentls sessions:", err)
		return exitFailed
	}
	fmt.Fprintf(stderr, "exported session %s to %s\n", id, output)
	return exitOK
}

func importSession(store *session.Store, file string, stdout, stderr io.Writer) int {
	data, err := os.ReadFile(file)
	if err != nil {
		fmt.Fprintln(stderr, "agentls sessions:", err)
		return exitUsage
	}
	var b session.Bundle
	if err := json.Unmarshal(data, &b); err != nil {
		fmt.Fprintf(stderr, "agentls sessions: %s is not an exported session: %v\n", file, err)
		return exitUsage
	}
	if err := store.Import(&b); err != nil {
		fmt.Fprintln(stderr, "agentls sessions:", err)
		return exitFailed
	}
	fmt.Fprintf(stdout, "imported session %s into %s (continue it with: agentls run --session %s \"…\")\n", b.ID, store.Root(), b.ID)
	return exitOK
}

// sessionErr reports err from loading or exporting session id: an unknown
// session is bad usage, anything else a failure. bad is false for nil.
func sessionErr(store *session.Store, id string, err error, stderr io.Writer) (code int, bad bool) {
	switch {
	case err == nil:
		return 0, false
	case errors.Is(err, session.ErrNotFound):
		fmt.Fprintf(stderr, "agentls sessions: no session %q in %s\n", id, store.Root())
		return exitUsage, true
	}
	fmt.Fprintln(stderr, "agentls sessions:", err)
	return exitFailed, true
}

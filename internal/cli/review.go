package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
)

// lines reads stdin a line at a time in a goroutine, so a question can be
// abandoned when Ctrl-C cancels the task. The goroutine ends with stdin;
// the process exits soon after anyway.
type lines struct{ ch chan string }

func newLines(r io.Reader) *lines {
	l := &lines{ch: make(chan string)}
	go func() {
		defer close(l.ch)
		defer recoverTo(os.Stderr, "reading the terminal")
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			l.ch <- sc.Text()
		}
	}()
	return l
}

// next returns the next line; ok is false at end of input.
func (l *lines) next(ctx context.Context) (string, bool, error) {
	select {
	case s, ok := <-l.ch:
		return s, ok, nil
	case <-ctx.Done():
		return "", false, ctx.Err()
	}
}

// reviewFiles asks about each changed file: y applies it, n drops it, d
// shows its diff, a applies it and all the rest, q drops it and all the
// rest. End of input drops the rest. It returns the files to write;
// nothing is written until every question is answered.
func reviewFiles(ctx context.Context, ws *cliWorkspace, files []string, in *lines, out io.Writer, redact func(string) string) ([]string, error) {
	var accepted []string
	all := false
	for i, rel := range files {
		if all {
			accepted = append(accepted, rel)
			continue
		}
		d := ws.diff(rel)
		add, del := diffStat(d)
		for {
			fmt.Fprintf(out, "[%d/%d] apply %s (+%d -%d)? [y]es [n]o [d]iff [a]ll [q]uit: ", i+1, len(files), rel, add, del)
			ans, ok, err := in.next(ctx)
			if err != nil {
				fmt.Fprintln(out)
				return nil, err
			}
			if !ok {
				fmt.Fprintln(out, "\nend of input: the remaining files are not written")
				return accepted, nil
			}
			switch strings.ToLower(strings.TrimSpace(ans)) {
			case "y", "yes":
				accepted = append(accepted, rel)
			case "n", "no":
			case "a", "all":
				accepted = append(accepted, rel)
				all = true
			case "q", "quit":
				return accepted, nil
			case "d", "diff":
				fmt.Fprint(out, redact(d))
				continue
			default:
				fmt.Fprintln(out, "answer y, n, d, a or q")
				continue
			}
			break
		}
	}
	return accepted, nil
}

// diffStat counts added and removed lines of a unified diff.
func diffStat(d string) (add, del int) {
	inHunk := false
	for _, l := range strings.Split(d, "\n") {
		switch {
		case strings.HasPrefix(l, "@@"):
			inHunk = true
		case !inHunk:
		case strings.HasPrefix(l, "+"):
			add++
		case strings.HasPrefix(l, "-"):
			del++
		}
	}
	return add, del
}

package eval

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteTable prints the report as a table: one row per task, then the
// total, then what grading dropped and restored of the model's changes.
func WriteTable(w io.Writer, rep Report) {
	mode := "endpoint"
	if rep.Scripted {
		mode = "scripted solutions"
	}
	api := rep.API
	if api == "" {
		api = "auto"
	}
	verify := "on"
	if !rep.Verify {
		verify = "off"
	}
	fmt.Fprintf(w, "model %s (%s), api %s, verify %s\n", rep.Model, mode, api, verify)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "task\tlang\tpass\tturns\tin tok\tcached\tprefix\tout tok\tmin prefix\tmin kept\t$ no cache\t$ cached\twall s\t")
	row := func(name, lang, pass string, turns, in, cached, prefix, out int, minShare, minKept, costNo, cost float64, ms int64) {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%.1f%%\t%.1f%%\t%.4f\t%.4f\t%.1f\t\n", name, lang, pass, turns, in, cached, prefix, out, 100*minShare, 100*minKept, costNo, cost, float64(ms)/1000)
	}
	unsealed := 0
	for _, r := range rep.Results {
		name := r.Task
		if rep.Repeat > 1 {
			name = fmt.Sprintf("%s #%d", r.Task, r.Run)
		}
		pass := "no"
		switch {
		case r.Skipped:
			pass = "skip"
		case r.Passed:
			pass = "yes"
		}
		if !r.Skipped && !r.Sealed {
			unsealed++
		}
		row(name, r.Lang, pass, r.Turns, r.InputTokens, r.CachedTokens, r.PrefixTokens, r.OutputTokens, r.MinPrefixShare, r.MinPrevKept, r.CostNoCache, r.Cost, r.WallMs)
	}
	t := rep.Total
	row("total", "", fmt.Sprintf("%d/%d", t.Passed, t.Tasks), t.Turns, t.InputTokens, t.CachedTokens, t.PrefixTokens, t.OutputTokens, t.MinPrefixShare, t.MinPrevKept, t.CostNoCache, t.Cost, t.WallMs)
	tw.Flush()
	fmt.Fprintf(w, "pass rate %.0f%%; cached: reported by the server; prefix: input tokens that repeat the previous request byte for byte; min prefix: the lowest share of a request's input that does; min kept: the lowest share of the previous request's input a request repeats as its prefix; $ cached prices cached (else prefix) tokens at %.0f%% of input\n",
		100*t.PassRate, 100*CachedPriceShare)
	for _, r := range rep.Results {
		switch {
		case r.Skipped:
			fmt.Fprintf(w, "%s: %s\n", r.Task, r.Error)
		case len(r.Change.Dropped) > 0 || len(r.Change.Restored) > 0:
			fmt.Fprintf(w, "%s: graded without the model's change to", r.Task)
			if len(r.Change.Dropped) > 0 {
				fmt.Fprintf(w, " tests %s", strings.Join(r.Change.Dropped, ", "))
			}
			if len(r.Change.Restored) > 0 {
				fmt.Fprintf(w, " configuration %s", strings.Join(r.Change.Restored, ", "))
			}
			fmt.Fprintln(w)
		}
	}
	if p := rep.Polyglot; p != nil {
		writePolyglot(w, *p)
	}
	if unsealed > 0 {
		fmt.Fprintf(w, "WARNING: %d tasks ran without the sandbox: the model could read the hidden tests; these scores are not sealed\n", unsealed)
	}
}

// writePolyglot prints the pass rates after each try, per language and
// overall, and the mode, as Aider's leaderboard reports them.
func writePolyglot(w io.Writer, p PolyglotSummary) {
	mode := "tests hidden from the model (Aider's protocol)"
	if p.TestsVisible {
		mode = "tests visible to the model (as agent harnesses run it)"
	}
	fmt.Fprintf(w, "\npolyglot, %s, %d tries; the original tests restored before grading\n", mode, p.Tries)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "language\texercises\tpass try 1\tpass try 2\tskipped\t")
	row := func(name string, t TryRates) {
		fmt.Fprintf(tw, "%s\t%d\t%.1f%%\t%.1f%%\t%d\t\n", name, t.Exercises, 100*t.Rate1, 100*t.Rate2, t.Skipped)
	}
	for _, l := range PolyglotLangs {
		if t, ok := p.ByLang[l]; ok {
			row(l, t)
		}
	}
	row("overall", p.Total)
	tw.Flush()
}

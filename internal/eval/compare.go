package eval

import (
	"fmt"
	"io"
	"math"
	"slices"
	"text/tabwriter"
)

// Rate is a pass rate with its 95% Wilson score interval.
type Rate struct {
	Passed, Runs int
	Rate, Lo, Hi float64
}

// Wilson is k passes of n runs with the 95% Wilson score interval, which
// stays inside [0, 1] and is honest for small n and rates near 0 or 1.
func Wilson(k, n int) Rate {
	r := Rate{Passed: k, Runs: n}
	if n == 0 {
		return r
	}
	const z = 1.959963984540054
	p, fn := float64(k)/float64(n), float64(n)
	den := 1 + z*z/fn
	center := (p + z*z/(2*fn)) / den
	half := z * math.Sqrt(p*(1-p)/fn+z*z/(4*fn*fn)) / den
	r.Rate, r.Lo, r.Hi = p, math.Max(0, center-half), math.Min(1, center+half)
	return r
}

func (r Rate) String() string {
	if r.Runs == 0 {
		return "-"
	}
	return fmt.Sprintf("%d/%d %.0f%% [%.0f–%.0f]", r.Passed, r.Runs, 100*r.Rate, 100*r.Lo, 100*r.Hi)
}

// Side is one run's totals in a comparison.
type Side struct {
	Name         string
	Model        string
	Settings     map[string]any
	Rate         Rate
	Try1         *Rate // polyglot: passed on the first try
	InputTokens  int
	CachedTokens int
	OutputTokens int
	Cost         float64
	CostNoCache  float64
	WallMs       int64
}

// TaskRow is one task in both runs.
type TaskRow struct {
	Task    string
	A, B    Rate
	Flipped string // "gained", "lost" or ""
}

// Comparison is two runs side by side.
type Comparison struct {
	A, B  Side
	Tasks []TaskRow
}

// Compare sets two reports side by side: each task's pass rate over its
// repeats, the totals, and the tasks one passes (in most of its runs) and
// the other does not. Skipped tasks count in neither.
func Compare(a, b Report, nameA, nameB string) Comparison {
	c := Comparison{A: side(a, nameA), B: side(b, nameB)}
	ra, rb := perTask(a), perTask(b)
	var names []string
	for n := range ra {
		names = append(names, n)
	}
	for n := range rb {
		if _, ok := ra[n]; !ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	for _, n := range names {
		row := TaskRow{Task: n, A: ra[n], B: rb[n]}
		pa, pb := 2*row.A.Passed > row.A.Runs, 2*row.B.Passed > row.B.Runs
		if row.A.Runs > 0 && row.B.Runs > 0 && pa != pb {
			row.Flipped = map[bool]string{true: "gained", false: "lost"}[pb]
		}
		c.Tasks = append(c.Tasks, row)
	}
	return c
}

func perTask(r Report) map[string]Rate {
	k, n := map[string]int{}, map[string]int{}
	for _, x := range r.Results {
		if x.Skipped {
			continue
		}
		n[x.Task]++
		if x.Passed {
			k[x.Task]++
		}
	}
	out := map[string]Rate{}
	for t := range n {
		out[t] = Wilson(k[t], n[t])
	}
	return out
}

func side(r Report, name string) Side {
	t := total(r.Results)
	s := Side{Name: name, Model: r.Model, Settings: r.Settings, Rate: Wilson(t.Passed, t.Tasks),
		InputTokens: t.InputTokens, CachedTokens: t.CachedTokens, OutputTokens: t.OutputTokens,
		Cost: t.Cost, CostNoCache: t.CostNoCache, WallMs: t.WallMs}
	if r.Polyglot != nil {
		try1 := 0
		for _, x := range r.Results {
			if !x.Skipped && x.PassedOnTry == 1 {
				try1++
			}
		}
		r1 := Wilson(try1, t.Tasks)
		s.Try1 = &r1
	}
	return s
}

// WriteComparison prints a comparison: per task, then overall, then the
// flipped tasks.
func WriteComparison(w io.Writer, c Comparison) {
	fmt.Fprintf(w, "A: %s (model %s%s)\nB: %s (model %s%s)\n\n", c.A.Name, c.A.Model, settingsNote(c.A.Settings), c.B.Name, c.B.Model, settingsNote(c.B.Settings))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "task\tA pass [95% CI]\tB pass [95% CI]\t")
	for _, t := range c.Tasks {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", t.Task, t.A, t.B, t.Flipped)
	}
	tw.Flush()
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "\tA\tB\t")
	fmt.Fprintf(tw, "pass rate [95%% CI]\t%s\t%s\t\n", c.A.Rate, c.B.Rate)
	if c.A.Try1 != nil || c.B.Try1 != nil {
		str := func(r *Rate) string {
			if r == nil {
				return "-"
			}
			return r.String()
		}
		fmt.Fprintf(tw, "passed on try 1\t%s\t%s\t\n", str(c.A.Try1), str(c.B.Try1))
	}
	fmt.Fprintf(tw, "input tokens\t%d\t%d\t\n", c.A.InputTokens, c.B.InputTokens)
	fmt.Fprintf(tw, "  of which cached\t%d\t%d\t\n", c.A.CachedTokens, c.B.CachedTokens)
	fmt.Fprintf(tw, "  not cached\t%d\t%d\t\n", c.A.InputTokens-c.A.CachedTokens, c.B.InputTokens-c.B.CachedTokens)
	fmt.Fprintf(tw, "output tokens\t%d\t%d\t\n", c.A.OutputTokens, c.B.OutputTokens)
	fmt.Fprintf(tw, "cost $ (with cache)\t%.4f\t%.4f\t\n", c.A.Cost, c.B.Cost)
	fmt.Fprintf(tw, "cost $ (no cache)\t%.4f\t%.4f\t\n", c.A.CostNoCache, c.B.CostNoCache)
	fmt.Fprintf(tw, "time s\t%.1f\t%.1f\t\n", float64(c.A.WallMs)/1000, float64(c.B.WallMs)/1000)
	tw.Flush()
	var gained, lost []string
	for _, t := range c.Tasks {
		switch t.Flipped {
		case "gained":
			gained = append(gained, t.Task)
		case "lost":
			lost = append(lost, t.Task)
		}
	}
	fmt.Fprintf(w, "\nflipped: %d passed in B only %v, %d passed in A only %v\n", len(gained), gained, len(lost), lost)
	if c.A.Rate.Runs > 0 && c.B.Rate.Runs > 0 && (c.A.Rate.Hi < c.B.Rate.Lo || c.B.Rate.Hi < c.A.Rate.Lo) {
		fmt.Fprintln(w, "the overall intervals do not overlap: the difference is unlikely to be chance")
	} else {
		fmt.Fprintln(w, "the overall intervals overlap: run more tasks or --repeat before calling a winner")
	}
}

func settingsNote(s map[string]any) string {
	if len(s) == 0 {
		return ""
	}
	return fmt.Sprintf(", settings %v", s)
}

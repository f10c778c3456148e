package gate

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentls/agentls/internal/edits"
	"github.com/agentls/agentls/internal/verify"
)

// The baseline: a failure that was there before the task is not the
// task's. When the checks fail, they run once more with the task's files
// put back as the task found them (the user's unsaved text included, as
// the task's first edit read it); a finding that the earlier text has too,
// on the same line as the task's change maps it, is pre-existing. It is
// labelled, shown, and neither fails the task's verification nor sends the
// model back. The baseline costs a second run only when the checks fail.
//
// A finding is never excused in a file the task created or changed
// without agentls knowing its earlier text (a command wrote it), nor on a
// line the task changed: what the task touched is the task's.

// Before tells a changed file's text as the task found it; known is false
// when agentls does not know it, existed false when the task created the
// file.
type Before func(rel string) (text []byte, existed, known bool)

// baseline runs cmds on the text before the task; nil when it cannot
// (nothing known to put back).
func (g *Gate) baseline(ctx context.Context, opts verify.RunOptions, changed []string, unsaved map[string][]byte) ([]verify.Result, map[string]lineMap) {
	base := make(map[string][]byte, len(unsaved)+len(changed))
	for rel, b := range unsaved {
		base[rel] = b
	}
	maps := map[string]lineMap{}
	for _, rel := range changed {
		old, existed, known := g.Before(rel)
		if !known || !existed {
			continue
		}
		cur, ok := unsaved[rel]
		if !ok {
			b, err := readBeneath(g.Root, rel)
			if err != nil {
				continue
			}
			cur = b
		}
		base[rel] = old
		maps[rel] = newLineMap(string(old), string(cur))
	}
	if len(maps) == 0 {
		return nil, nil
	}
	opts.Unsaved = base
	opts.OnStart = nil
	results, err := verify.Run(ctx, opts)
	if err != nil {
		return nil, nil
	}
	return results, maps
}

// excuse marks the findings of results that the baseline has too, and the
// failures wholly made of them. It reports whether any failure was excused.
func excuse(root string, results, base []verify.Result, changed []string, maps map[string]lineMap) bool {
	touched := map[string]bool{}
	for _, rel := range changed {
		touched[rel] = true
	}
	type key struct {
		rel, msg string
		line     int
	}
	excused := false
	for i := range results {
		r := &results[i]
		if r.Passed {
			continue
		}
		var b *verify.Result
		for j := range base {
			if base[j].Command == r.Command && !base[j].Passed {
				b = &base[j]
			}
		}
		if b == nil {
			continue // it passed before the task: the failure is the task's
		}
		before := map[key]bool{}
		for _, d := range b.Diagnostics {
			rel := relOf(root, d.Path)
			line := d.Line
			if touched[rel] {
				m, ok := maps[rel]
				if !ok {
					continue
				}
				if line, ok = m.to(d.Line); !ok {
					continue
				}
			}
			before[key{rel, normal(d.Message), line}] = true
		}
		all := true
		for k := range r.Diagnostics {
			d := &r.Diagnostics[k]
			rel := relOf(root, d.Path)
			if before[key{rel, normal(d.Message), d.Line}] {
				d.PreExisting = true
			} else {
				all = false
			}
		}
		if len(r.Diagnostics) == 0 && !sameLines(r.Unlocated, b.Unlocated) {
			all = false
		}
		if all {
			r.PreExisting = true
			excused = true
		}
	}
	return excused
}

func relOf(root, p string) string {
	if rel, err := filepath.Rel(root, p); err == nil && filepath.IsLocal(rel) {
		return filepath.ToSlash(rel)
	}
	return p
}

func normal(msg string) string { return strings.Join(strings.Fields(msg), " ") }

func sameLines(a, b []string) bool {
	if len(a) == 0 {
		return false // nothing to compare: not the same failure for sure
	}
	x, y := append([]string(nil), a...), append([]string(nil), b...)
	sort.Strings(x)
	sort.Strings(y)
	return strings.Join(x, "\n") == strings.Join(y, "\n")
}

// lineMap maps a line of a file's earlier text to the same line in its
// later text; lines the change touched map to nothing.
type lineMap struct {
	old     string
	bounds  []int // start offset of each earlier line, and len(old)
	changes []edits.Change
}

func newLineMap(old, cur string) lineMap {
	bounds := []int{0}
	for i := 0; i < len(old); i++ {
		if old[i] == '\n' {
			bounds = append(bounds, i+1)
		}
	}
	if bounds[len(bounds)-1] != len(old) {
		bounds = append(bounds, len(old))
	}
	return lineMap{old: old, bounds: bounds, changes: edits.Diff(old, cur)}
}

// to is the later line of earlier line n (1-based); ok is false when the
// change touched it.
func (m lineMap) to(n int) (int, bool) {
	if n < 1 || n >= len(m.bounds) {
		return 0, false
	}
	ls, le := m.bounds[n-1], m.bounds[n]
	shift := 0
	for _, c := range m.changes {
		switch {
		case c.Start == c.End && c.Start == ls && strings.HasSuffix(c.NewText, "\n"):
			// Whole lines inserted above this one.
			shift += strings.Count(c.NewText, "\n")
		case c.End <= ls && !(c.Start == c.End && c.Start == ls):
			shift += strings.Count(c.NewText, "\n") - strings.Count(m.old[c.Start:c.End], "\n")
		case c.Start < le || c.Start == ls:
			return 0, false
		}
	}
	return n + shift, true
}

// readBeneath reads rel beneath root (never through a link out of it).
func readBeneath(root, rel string) ([]byte, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	b, err := r.ReadFile(rel)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", rel, err)
	}
	return b, nil
}

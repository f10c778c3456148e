package render

import (
	"fmt"

	"github.com/agentls/agentls/internal/agent"
)

// Words are an event's presentation in words, sent beside the event to the
// editors (agentls/event) and in `agentls run --json`, so every view reads
// the same: how a task ended, how a command ran, a sub-agent's step.
type Words struct {
	Ended string `json:"ended,omitempty"`
	Ran   string `json:"ran,omitempty"`
	Line  string `json:"line,omitempty"`
}

// WordsOf is ev's Words.
func WordsOf(ev agent.Event) Words {
	var w Words
	if ev.Kind == agent.KindEnd && ev.Result != nil {
		w.Ended = EndWord(*ev.Result)
	}
	if ev.Run != nil {
		w.Ran = RunNote(ev.Run)
	}
	if ev.Kind == agent.KindNested {
		w.Line = NestedLine(ev)
	}
	return w
}

// Size is a byte count for people: "1.5 GiB", "12.0 MiB", "3.2 KiB", "512 B".
func Size(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

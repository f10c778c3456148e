package agent

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// The states a machine can be in, as far as inputs are concerned: Executing
// has three (a model call in flight, a retry timer pending, a compaction
// pending). Each setup drives a fresh machine there with ordinary inputs.
var machineSetups = map[string]func(t *testing.T) *Machine{
	"idle": func(t *testing.T) *Machine { return NewMachine() },
	"planning": func(t *testing.T) *Machine {
		return drive(t, Planning, Start{Task: "task", Limits: DefaultLimits(), Seed: 1})
	},
	"executing": func(t *testing.T) *Machine {
		return drive(t, Executing, Start{Task: "task", Limits: DefaultLimits(), Seed: 1}, Planned{Prefix: sysPrefix})
	},
	"executing/retryWait": func(t *testing.T) *Machine {
		return drive(t, Executing, Start{Task: "task", Limits: DefaultLimits(), Seed: 1}, Planned{Prefix: sysPrefix},
			ModelFailed{Err: &LLMError{Status: 503, Retryable: true}})
	},
	"executing/compacting": func(t *testing.T) *Machine {
		l := DefaultLimits()
		l.ContextTokens = 1000
		m := drive(t, Executing, Start{Task: "task", Limits: l, Seed: 1}, Planned{Prefix: sysPrefix, History: []Message{
			{Role: RoleUser, Content: "earlier"}, {Role: RoleAssistant, Content: strings.Repeat("x", 4000)},
		}})
		if m.cut == 0 {
			t.Fatal("setup: no compaction pending")
		}
		return m
	},
	"executing/stopCheck": func(t *testing.T) *Machine {
		l := DefaultLimits()
		l.StopCheck = true
		m := drive(t, Executing, Start{Task: "task", Limits: l, Seed: 1}, Planned{Prefix: sysPrefix}, ModelDone{Response{Content: "all done"}})
		if !m.checking {
			t.Fatal("setup: no stop check out")
		}
		return m
	},
	"tools": func(t *testing.T) *Machine {
		return drive(t, Tools, Start{Task: "task", Limits: DefaultLimits(), Seed: 1}, Planned{Prefix: sysPrefix},
			ModelDone{Response{ToolCalls: []ToolCall{{ID: "c1", Name: "edit_file", Arguments: `{"path":"a.go"}`}}}})
	},
	"verifying": func(t *testing.T) *Machine {
		return drive(t, Verifying, Start{Task: "task", Limits: DefaultLimits(), Seed: 1}, Planned{Prefix: sysPrefix},
			ModelDone{Response{ToolCalls: []ToolCall{{ID: "c1", Name: "edit_file", Arguments: `{"path":"a.go"}`}}}},
			ToolDone{ID: "c1", Result: ToolResult{Output: "ok", Changed: []string{"a.go"}}},
			ModelDone{Response{Content: "edited"}})
	},
	"reporting": func(t *testing.T) *Machine {
		return drive(t, Reporting, Start{Task: "task", Limits: DefaultLimits(), Seed: 1}, Planned{Prefix: sysPrefix},
			ModelDone{Response{Content: "nothing to do"}})
	},
}

var sysPrefix = []Message{{Role: RoleSystem, Content: "sys"}}

func drive(t *testing.T, want State, ins ...Input) *Machine {
	t.Helper()
	m := NewMachine()
	for _, in := range ins {
		m.Step(in)
	}
	if m.State() != want {
		t.Fatalf("setup: state %s, want %s", m.State(), want)
	}
	return m
}

// One input of each type, valid where a state expects it: the call ID,
// timer ID and so on match what the setups leave pending.
var tableInputs = map[string]Input{
	"Start":        Start{Task: "another", Limits: DefaultLimits()},
	"Planned":      Planned{Prefix: sysPrefix},
	"TextDelta":    TextDelta{Text: "hi"},
	"Observed":     Observed{Event{Kind: KindToolCall, Call: &ToolCall{ID: "x1", Name: "edit"}}},
	"ModelDone":    ModelDone{Response{Content: "all done"}},
	"ModelFailed":  ModelFailed{Err: &LLMError{Status: 500, Retryable: true, Message: "boom"}},
	"TimerFired":   TimerFired{ID: 1},
	"ToolDone":     ToolDone{ID: "c1", Result: ToolResult{Output: "ok", Changed: []string{"a.go"}}},
	"ToolProgress": ToolProgress{ID: "c1", Event: Event{Kind: KindToolCall, Call: &ToolCall{ID: "n1", Name: "read_file"}}},
	"VerifyDone":   VerifyDone{VerifyReport{Passed: true, Summary: "ok"}},
	"StopChecked":  StopChecked{Note: "the stop condition passed"},
	"Compacted":    Compacted{Summary: "earlier: nothing"},
	"Reported":     Reported{},
	"Cancel":       Cancel{},
	"Fail":         Fail{Reason: "timeout", Err: "task timed out after 1s"},
}

// Variants of the inputs above, for rows that need another value.
var tableVariants = map[string]Input{
	"TimerFired{0}":       TimerFired{},
	"TimerFired{2}":       TimerFired{ID: 2},
	"ToolDone{other}":     ToolDone{ID: "c9", Result: ToolResult{Output: "x"}},
	"ToolDone{usage}":     ToolDone{ID: "c1", Result: ToolResult{Output: "found", Usage: Usage{InputTokens: 100, OutputTokens: 10}}},
	"ToolProgress{other}": ToolProgress{ID: "c9", Event: Event{Kind: KindToolCall}},
	"VerifyDone{fail}":    VerifyDone{VerifyReport{Summary: "1 problem", Feedback: "a.go:1: x"}},
	"ModelDone{calls}":    ModelDone{Response{ToolCalls: []ToolCall{{ID: "c2", Name: "read_file", Arguments: `{}`}}}},
	"ModelFailed{401}":    ModelFailed{Err: &LLMError{Status: 401, Message: "bad key"}},
	"Compacted{err}":      Compacted{Err: errors.New("summary failed")},
	"ModelDone{wanted}":   ModelDone{Response{Content: "fixed"}},
	"Observed{end}":       Observed{Event{Kind: KindEnd, Result: &Result{Status: StatusOK}}},
	"StopChecked{again}":  StopChecked{Continue: true, Feedback: "`make e2e` failed; keep going", Unmet: "`make e2e` fails"},
	"ModelDone{acted}":    ModelDone{Response{Content: "edited", Changed: []string{"a.go"}}},
}

func TestTransitionTable(t *testing.T) {
	// Cancel and fail, from any busy state: the conversation is persisted
	// once planning has given the task one.
	const end = "emit:state persist emit:end finish"
	const endUnplanned = "emit:state emit:end finish"
	table := []struct {
		state, input string
		next         State
		acts         string
	}{
		{"idle", "Start", Planning, "emit:state plan"},
		{"idle", "Planned", Idle, ""},
		{"idle", "TextDelta", Idle, ""},
		{"idle", "Observed", Idle, ""},
		{"idle", "ModelDone", Idle, ""},
		{"idle", "ModelFailed", Idle, ""},
		{"idle", "TimerFired", Idle, ""},
		{"idle", "ToolDone", Idle, ""},
		{"idle", "VerifyDone", Idle, ""},
		{"idle", "Compacted", Idle, ""},
		{"idle", "Reported", Idle, ""},
		{"idle", "StopChecked", Idle, ""},
		{"idle", "ToolProgress", Idle, ""},
		{"idle", "Cancel", Idle, ""},
		{"idle", "Fail", Idle, ""},

		{"planning", "Start", Planning, ""},
		{"planning", "Planned", Executing, "emit:state persist callModel"},
		{"planning", "TextDelta", Planning, ""},
		{"planning", "Observed", Planning, ""},
		{"planning", "ModelDone", Planning, ""},
		{"planning", "ModelFailed", Planning, ""},
		{"planning", "TimerFired", Planning, ""},
		{"planning", "ToolDone", Planning, ""},
		{"planning", "VerifyDone", Planning, ""},
		{"planning", "Compacted", Planning, ""},
		{"planning", "Reported", Planning, ""},
		{"planning", "StopChecked", Planning, ""},
		{"planning", "ToolProgress", Planning, ""},
		{"planning", "Cancel", Idle, endUnplanned},
		{"planning", "Fail", Idle, endUnplanned},

		{"executing", "Start", Executing, ""},
		{"executing", "Planned", Executing, ""},
		{"executing", "TextDelta", Executing, "emit:text"},
		{"executing", "Observed", Executing, "emit:toolCall"},
		{"executing", "Observed{end}", Executing, ""},
		{"executing", "ModelDone{acted}", Verifying, "emit:usage emit:state runVerify"},
		{"executing", "ModelDone", Reporting, "emit:usage emit:state report"},
		{"executing", "ModelDone{calls}", Tools, "emit:usage emit:toolCall emit:state runTools"},
		{"executing", "ModelFailed", Executing, "emit:retry startTimer"},
		{"executing", "ModelFailed{401}", Idle, end},
		{"executing", "TimerFired", Executing, ""},
		{"executing", "TimerFired{0}", Executing, ""},
		{"executing", "ToolDone", Executing, ""},
		{"executing", "VerifyDone", Executing, ""},
		{"executing", "Compacted", Executing, ""},
		{"executing", "Reported", Executing, ""},
		{"executing", "StopChecked", Executing, ""},
		{"executing", "ToolProgress", Executing, ""},
		{"executing", "Cancel", Idle, end},
		{"executing", "Fail", Idle, end},

		{"executing/retryWait", "Start", Executing, ""},
		{"executing/retryWait", "Planned", Executing, ""},
		{"executing/retryWait", "TextDelta", Executing, ""},
		{"executing/retryWait", "Observed", Executing, ""},
		{"executing/retryWait", "ModelDone", Executing, ""},
		{"executing/retryWait", "ModelFailed", Executing, ""},
		{"executing/retryWait", "TimerFired", Executing, "persist callModel"},
		{"executing/retryWait", "TimerFired{0}", Executing, ""},
		{"executing/retryWait", "TimerFired{2}", Executing, ""},
		{"executing/retryWait", "ToolDone", Executing, ""},
		{"executing/retryWait", "VerifyDone", Executing, ""},
		{"executing/retryWait", "Compacted", Executing, ""},
		{"executing/retryWait", "Reported", Executing, ""},
		{"executing/retryWait", "StopChecked", Executing, ""},
		{"executing/retryWait", "ToolProgress", Executing, ""},
		{"executing/retryWait", "Cancel", Idle, end},
		{"executing/retryWait", "Fail", Idle, end},

		{"executing/compacting", "Start", Executing, ""},
		{"executing/compacting", "Planned", Executing, ""},
		{"executing/compacting", "TextDelta", Executing, ""},
		{"executing/compacting", "Observed", Executing, ""},
		{"executing/compacting", "ModelDone", Executing, ""},
		{"executing/compacting", "ModelFailed", Executing, ""},
		{"executing/compacting", "TimerFired", Executing, ""},
		{"executing/compacting", "TimerFired{0}", Executing, ""},
		{"executing/compacting", "ToolDone", Executing, ""},
		{"executing/compacting", "VerifyDone", Executing, ""},
		{"executing/compacting", "Compacted", Executing, "emit:compaction persist callModel"},
		{"executing/compacting", "Compacted{err}", Executing, "emit:compaction persist callModel"},
		{"executing/compacting", "Reported", Executing, ""},
		{"executing/compacting", "StopChecked", Executing, ""},
		{"executing/compacting", "ToolProgress", Executing, ""},
		{"executing/compacting", "Cancel", Idle, end},
		{"executing/compacting", "Fail", Idle, end},

		{"executing/stopCheck", "Start", Executing, ""},
		{"executing/stopCheck", "Planned", Executing, ""},
		{"executing/stopCheck", "TextDelta", Executing, ""},
		{"executing/stopCheck", "Observed", Executing, ""},
		{"executing/stopCheck", "ModelDone", Executing, ""},
		{"executing/stopCheck", "ModelFailed", Executing, ""},
		{"executing/stopCheck", "TimerFired", Executing, ""},
		{"executing/stopCheck", "ToolDone", Executing, ""},
		{"executing/stopCheck", "ToolProgress", Executing, ""},
		{"executing/stopCheck", "VerifyDone", Executing, ""},
		{"executing/stopCheck", "Compacted", Executing, ""},
		{"executing/stopCheck", "Reported", Executing, ""},
		{"executing/stopCheck", "StopChecked", Reporting, "emit:notice emit:state report"},
		{"executing/stopCheck", "StopChecked{again}", Executing, "persist callModel"},
		{"executing/stopCheck", "Cancel", Idle, end},
		{"executing/stopCheck", "Fail", Idle, end},

		{"tools", "Start", Tools, ""},
		{"tools", "Planned", Tools, ""},
		{"tools", "TextDelta", Tools, ""},
		{"tools", "Observed", Tools, ""},
		{"tools", "ModelDone", Tools, ""},
		{"tools", "ModelFailed", Tools, ""},
		{"tools", "TimerFired", Tools, ""},
		{"tools", "ToolDone", Executing, "emit:toolResult emit:state persist callModel"},
		{"tools", "ToolDone{other}", Tools, ""},
		{"tools", "ToolDone{usage}", Executing, "emit:toolResult emit:usage emit:state persist callModel"},
		{"tools", "StopChecked", Tools, ""},
		{"tools", "ToolProgress", Tools, "emit:nested"},
		{"tools", "ToolProgress{other}", Tools, ""},
		{"tools", "VerifyDone", Tools, ""},
		{"tools", "Compacted", Tools, ""},
		{"tools", "Reported", Tools, ""},
		{"tools", "Cancel", Idle, end},
		{"tools", "Fail", Idle, end},

		{"verifying", "Start", Verifying, ""},
		{"verifying", "Planned", Verifying, ""},
		{"verifying", "TextDelta", Verifying, ""},
		{"verifying", "Observed", Verifying, ""},
		{"verifying", "ModelDone", Verifying, ""},
		{"verifying", "ModelFailed", Verifying, ""},
		{"verifying", "TimerFired", Verifying, ""},
		{"verifying", "ToolDone", Verifying, ""},
		{"verifying", "VerifyDone", Reporting, "emit:verify emit:state report"},
		{"verifying", "VerifyDone{fail}", Executing, "emit:verify emit:state persist callModel"},
		{"verifying", "Compacted", Verifying, ""},
		{"verifying", "Reported", Verifying, ""},
		{"verifying", "StopChecked", Verifying, ""},
		{"verifying", "ToolProgress", Verifying, ""},
		{"verifying", "Cancel", Idle, end},
		{"verifying", "Fail", Idle, end},

		{"reporting", "Start", Reporting, ""},
		{"reporting", "Planned", Reporting, ""},
		{"reporting", "TextDelta", Reporting, ""},
		{"reporting", "Observed", Reporting, ""},
		{"reporting", "ModelDone", Reporting, ""},
		{"reporting", "ModelFailed", Reporting, ""},
		{"reporting", "TimerFired", Reporting, ""},
		{"reporting", "ToolDone", Reporting, ""},
		{"reporting", "VerifyDone", Reporting, ""},
		{"reporting", "Compacted", Reporting, ""},
		{"reporting", "Reported", Idle, "emit:state persist emit:end finish"},
		{"reporting", "StopChecked", Reporting, ""},
		{"reporting", "ToolProgress", Reporting, ""},
		{"reporting", "Cancel", Idle, end},
		{"reporting", "Fail", Idle, end},
	}

	covered := map[string]bool{}
	for _, row := range table {
		covered[row.state+"×"+row.input] = true
		t.Run(row.state+"×"+row.input, func(t *testing.T) {
			in, ok := tableInputs[row.input]
			if !ok {
				in = tableVariants[row.input]
			}
			m := machineSetups[row.state](t)
			from := m.State()
			histLen := len(m.history)
			acts := m.Step(in)
			if got := actionTypes(acts); got != row.acts {
				t.Errorf("actions %q, want %q", got, row.acts)
			}
			if m.State() != row.next {
				t.Errorf("state %s, want %s", m.State(), row.next)
			}
			if row.acts == "" && len(m.history) != histLen {
				t.Errorf("an ignored input changed the history (%d → %d messages)", histLen, len(m.history))
			}
			checkStateEvents(t, from, acts)
			if row.acts == end || row.acts == endUnplanned {
				checkEnd(t, in, acts)
			}
		})
	}
	// Every state meets every input type.
	for s := range machineSetups {
		for in := range tableInputs {
			if !covered[s+"×"+in] {
				t.Errorf("no row for %s × %s", s, in)
			}
		}
	}
}

// The driver learns the conversation from Persist, never by reading the
// machine's inputs or state: the prefix the planner gave, the rest after
// it, before every model call (a retry's and a compacted history's too) and
// at the end, and never for a task that ended while planning.
func TestPersistHandsTheDriverTheConversation(t *testing.T) {
	persisted := func(acts []Action) *Persist {
		for i, a := range acts {
			if p, ok := a.(Persist); ok {
				if _, next := acts[i+1].(CallModel); !next {
					if _, ok := acts[i+1].(Emit); !ok {
						t.Fatalf("Persist is followed by %T", acts[i+1])
					}
				}
				return &p
			}
		}
		return nil
	}
	prefix := []Message{{Role: RoleSystem, Content: "sys"}, {Role: RoleUser, Content: "context"}}
	earlier := []Message{{Role: RoleUser, Content: "earlier"}, {Role: RoleAssistant, Content: strings.Repeat("x", 4000)}}
	l := DefaultLimits()
	l.ContextTokens = 1000
	m := NewMachine()
	m.Step(Start{Task: "task", Limits: l, Seed: 1})
	acts := m.Step(Planned{Prefix: prefix, History: earlier})
	if p := persisted(acts); p != nil {
		t.Fatalf("persisted before the compaction that must come first: %+v", p)
	}
	acts = m.Step(Compacted{Summary: "earlier: x"})
	p := persisted(acts)
	if p == nil || !reflect.DeepEqual(p.Prefix, prefix) || roles(p.Conversation) != "u u" || !reflect.DeepEqual(append(slices.Clone(p.Prefix), p.Conversation...), m.history) {
		t.Fatalf("after compaction persisted %+v; history %s", p, roles(m.history))
	}
	if cap(p.Prefix) != len(p.Prefix) || cap(p.Conversation) != len(p.Conversation) {
		t.Error("Persist's slices are not clipped: an append would write into the machine's history")
	}
	acts = m.Step(ModelFailed{Err: &LLMError{Status: 503, Retryable: true}})
	acts = m.Step(TimerFired{ID: acts[len(acts)-1].(StartTimer).ID})
	if p := persisted(acts); p == nil || len(p.Conversation) != 2 {
		t.Errorf("the retry persisted %+v", p)
	}
	m.Step(ModelDone{Response{Content: "done"}})
	acts = m.Step(Reported{})
	if p := persisted(acts); p == nil || roles(p.Conversation) != "u u a" || !reflect.DeepEqual(p.Prefix, prefix) {
		t.Errorf("the end persisted %+v", p)
	}
	m.Step(Start{Task: "again", Limits: DefaultLimits(), Seed: 2})
	if p := persisted(m.Step(Cancel{})); p != nil {
		t.Errorf("a task cancelled while planning persisted %+v", p)
	}
}

// actionTypes renders actions as "emit:<kind>" or the action's type.
func actionTypes(acts []Action) string {
	var parts []string
	for _, a := range acts {
		if e, ok := a.(Emit); ok {
			parts = append(parts, "emit:"+e.Event.Kind)
			continue
		}
		name := fmt.Sprintf("%T", a)
		name = strings.TrimPrefix(name, "agent.")
		parts = append(parts, strings.ToLower(name[:1])+name[1:])
	}
	return strings.Join(parts, " ")
}

// checkStateEvents checks that state events chain from the state before
// the step.
func checkStateEvents(t *testing.T, from State, acts []Action) {
	t.Helper()
	for _, a := range acts {
		if e, ok := a.(Emit); ok && e.Event.Kind == KindState {
			if e.Event.From != from {
				t.Errorf("state event %s→%s, but the machine was in %s", e.Event.From, e.Event.To, from)
			}
			from = e.Event.To
		}
	}
}

// checkEnd checks the end event and the Finish of a cancel or failure.
func checkEnd(t *testing.T, in Input, acts []Action) {
	t.Helper()
	ev := acts[len(acts)-2].(Emit).Event
	fin := acts[len(acts)-1].(Finish).Result
	if !reflect.DeepEqual(*ev.Result, fin) {
		t.Errorf("end event result %+v differs from Finish %+v", *ev.Result, fin)
	}
	switch in := in.(type) {
	case Cancel:
		if !fin.Cancelled || fin.Status != StatusCancelled || fin.Reason != "cancelled" {
			t.Errorf("cancel ended with %+v", fin)
		}
	case Fail:
		if fin.Cancelled || fin.Status != StatusError || fin.Reason != in.Reason || fin.Error != in.Err {
			t.Errorf("fail %+v ended with %+v", in, fin)
		}
	case ModelFailed:
		if fin.Status != StatusError || fin.Reason != "llm" || !strings.Contains(fin.Error, "401") {
			t.Errorf("model failure ended with %+v", fin)
		}
	}
}

// TestMachineProperties drives machines with long random input sequences
// from a simulated driver that answers every action with a random valid
// outcome, mixed with stray inputs, cancels and failures.
func TestMachineProperties(t *testing.T) {
	runs := 3000
	if testing.Short() {
		runs = 300
	}
	seen := map[string]int{}
	for seed := uint64(1); seed <= uint64(runs); seed++ {
		s := simulate(t, seed)
		if t.Failed() {
			t.Fatalf("seed %d failed (%d inputs)", seed, len(s.inputs))
		}
		seen["reason "+s.finished.Reason]++
		for _, acts := range s.actions {
			for _, a := range acts {
				switch a := a.(type) {
				case Compact:
					seen["compact"]++
				case StartTimer:
					seen["retry"]++
				case Emit:
					if a.Event.Kind == KindToolResult && strings.HasPrefix(a.Event.Output, "refused:") {
						seen["refused"]++
					}
				}
			}
		}
	}
	// The simulation must reach every ending and the paths that lead there;
	// otherwise the properties above were checked on too little.
	for _, want := range []string{"reason done", "reason maxSteps", "reason stuck", "reason llm", "reason verifyFailed",
		"reason cancelled", "reason timeout", "reason context", "compact", "retry", "refused"} {
		if seen[want] == 0 {
			t.Errorf("no run reached %q: %v", want, seen)
		}
	}
	t.Logf("%v", seen)
}

// sim is a random but valid driver.
type sim struct {
	t      *testing.T
	seed   uint64
	rng    *rand.Rand
	m      *Machine
	limits Limits
	task   string

	queue    []Input // answers owed to the machine, delivered in order
	inputs   []Input
	actions  [][]Action
	reported map[string]bool // paths delivered in ToolDone.Changed
	ids      int
	finished *Result

	state     State // as told by state events
	steps     int   // usage events: accepted model turns
	attempt   int   // of the last CallModel
	callIDs   map[string]bool
	resultIDs map[string]bool
	effMaxOut int
}

func simulate(t *testing.T, seed uint64) *sim {
	s := &sim{t: t, seed: seed, rng: rand.New(rand.NewPCG(seed, 99)), m: NewMachine(), state: Idle,
		reported: map[string]bool{}, callIDs: map[string]bool{}, resultIDs: map[string]bool{}}
	r := s.rng
	s.limits = Limits{
		MaxSteps:      1 + r.IntN(10),
		MaxRetries:    r.IntN(4),
		LLMAttempts:   1 + r.IntN(4),
		BackoffBase:   time.Duration(1+r.IntN(1000)) * time.Millisecond,
		BackoffCap:    time.Duration(1+r.IntN(40)) * time.Second,
		MaxRetryWait:  60 * time.Second,
		Verify:        r.IntN(4) != 0,
		ContextTokens: []int{600, 1500, 4000, 128_000}[r.IntN(4)],
		ToolsTokens:   r.IntN(100),
		MaxToolOutput: []int{256, 4096, 65536}[r.IntN(3)],
	}
	s.effMaxOut = min(s.limits.MaxToolOutput, s.limits.ContextTokens*4*3/10)
	s.task = fmt.Sprintf("task %d", seed)
	s.step(Start{Task: s.task, Limits: s.limits, Seed: seed})
	for s.finished == nil {
		if len(s.inputs) > 5000 {
			t.Errorf("seed %d: no end after %d inputs (state %s)", seed, len(s.inputs), s.m.State())
			return s
		}
		switch p := r.IntN(1000); {
		case p < 4:
			s.step(Cancel{})
		case p < 6:
			s.step(Fail{Reason: "timeout", Err: "task timed out"})
		case p < 60:
			s.step(s.junk())
		default:
			if len(s.queue) == 0 {
				t.Errorf("seed %d: the machine waits in %s but nothing is owed to it", seed, s.m.State())
				return s
			}
			in := s.queue[0]
			s.queue = s.queue[1:]
			s.step(in)
		}
		if t.Failed() {
			return s
		}
	}
	s.checkEnd()
	s.replay()
	return s
}

// junk is an input no state should act on at this point.
func (s *sim) junk() Input {
	switch s.rng.IntN(6) {
	case 0:
		return TimerFired{ID: []int{0, 10_000}[s.rng.IntN(2)]}
	case 1:
		return ToolDone{ID: "junk", Result: ToolResult{Output: "x", Changed: []string{"junk.go"}}}
	case 2:
		return Start{Task: "intruder", Limits: DefaultLimits()}
	}
	// Inputs of a type the current state does not take.
	switch s.m.State() {
	case Planning, Tools, Verifying:
		return Reported{}
	case Reporting:
		return VerifyDone{VerifyReport{Passed: true}}
	}
	return Planned{Prefix: []Message{{Role: RoleSystem, Content: "intruder"}}}
}

func (s *sim) step(in Input) {
	t := s.t
	s.inputs = append(s.inputs, in)
	var acts []Action
	func() {
		defer func() {
			if p := recover(); p != nil {
				t.Errorf("seed %d: input %d (%T) panicked: %v", s.seed, len(s.inputs), in, p)
			}
		}()
		acts = s.m.Step(in)
	}()
	s.actions = append(s.actions, acts)
	where := fmt.Sprintf("seed %d input %d (%T)", s.seed, len(s.inputs), in)
	checkActions(t, where, s.m, acts)
	if s.finished != nil && len(acts) > 0 {
		t.Errorf("%s: actions after Finish: %s", where, actionTypes(acts))
	}
	for _, a := range acts {
		s.answer(where, a)
	}
	if s.m.State() != s.state {
		t.Errorf("%s: state %s, but the events say %s", where, s.m.State(), s.state)
	}
}

// answer checks one action and queues what the driver would feed back.
func (s *sim) answer(where string, a Action) {
	t, r := s.t, s.rng
	switch a := a.(type) {
	case Emit:
		s.event(where, a.Event)
	case Plan:
		p := Planned{Prefix: []Message{{Role: RoleSystem, Content: "system prompt"}}}
		for i := range r.IntN(4) {
			role := RoleUser
			if i%2 == 1 {
				role = RoleAssistant
			}
			p.History = append(p.History, Message{Role: role, Content: filler(r.IntN(3000))})
		}
		s.queue = append(s.queue, p)
	case CallModel:
		if a.Attempt != 1 && a.Attempt != s.attempt+1 {
			t.Errorf("%s: attempt %d after %d", where, a.Attempt, s.attempt)
		}
		s.attempt = a.Attempt
		// Past the step limit only the summary turn, without tools.
		if s.steps >= s.limits.MaxSteps && !a.NoTools {
			t.Errorf("%s: a model call with tools after %d turns of at most %d", where, s.steps, s.limits.MaxSteps)
		}
		if a.Messages[0].Content != "system prompt" {
			t.Errorf("%s: the system prompt is not first: %q", where, a.Messages[0].Content)
		}
		n := 0
		for _, msg := range a.Messages {
			if msg.Role == RoleUser && msg.Content == s.task {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s: the task appears %d times in the request", where, n)
		}
		s.queue = append(s.queue, s.modelAnswer()...)
	case StartTimer:
		lo, hi := s.limits.BackoffBase/2<<(s.attempt-1), s.limits.BackoffBase<<(s.attempt-1)
		hi = min(hi, s.limits.BackoffCap)
		lo = min(lo, s.limits.BackoffCap/2)
		if a.After != time.Second && (a.After < lo || a.After > hi) {
			t.Errorf("%s: wait %s outside [%s, %s] at attempt %d", where, a.After, lo, hi, s.attempt)
		}
		s.queue = append(s.queue, TimerFired{ID: a.ID})
	case RunTools:
		var done []Input
		for _, c := range a.Calls {
			d := ToolDone{ID: c.ID, Result: ToolResult{Output: filler([]int{0, 10, 1000, 100_000}[r.IntN(4)])}}
			if r.IntN(10) == 0 {
				d.Err = errors.New("tool failed")
			}
			if c.Name == "edit_file" && r.IntN(3) != 0 {
				p := fmt.Sprintf("f%d.go", r.IntN(5))
				d.Result.Changed = []string{p}
				s.reported[p] = true
			}
			done = append(done, d)
			if r.IntN(10) == 0 {
				done = append(done, d) // delivered twice
			}
		}
		r.Shuffle(len(done), func(i, j int) { done[i], done[j] = done[j], done[i] })
		s.queue = append(s.queue, done...)
	case RunVerify:
		for _, p := range a.Changed {
			if !s.reported[p] {
				t.Errorf("%s: verify asked for %s, never reported changed", where, p)
			}
		}
		s.queue = append(s.queue, VerifyDone{VerifyReport{Passed: r.IntN(2) == 0, Summary: "1 problem", Feedback: filler(r.IntN(500))}})
	case Compact:
		if len(a.Dropped) == 0 {
			t.Errorf("%s: compaction drops nothing", where)
		}
		if r.IntN(3) == 0 {
			s.queue = append(s.queue, Compacted{Err: errors.New("summary failed")})
		} else {
			s.queue = append(s.queue, Compacted{Summary: filler(r.IntN(400)), Usage: Usage{InputTokens: 10}})
		}
	case Report:
		s.queue = append(s.queue, Reported{})
	case Finish:
		res := a.Result
		s.finished = &res
	}
}

// modelAnswer is a random model outcome: some text, then a turn with or
// without tool calls, or a failure.
func (s *sim) modelAnswer() []Input {
	r := s.rng
	var out []Input
	for range r.IntN(3) {
		out = append(out, TextDelta{Text: "thinking "})
	}
	if r.IntN(6) == 0 {
		e := []*LLMError{
			{Status: 429, Retryable: true, Message: "slow down"},
			{Status: 503, Retryable: true, RetryAfter: time.Second, Message: "busy"},
			{Status: 429, Retryable: true, RetryAfter: 2 * time.Minute, Message: "come back later"},
			{Status: 0, Retryable: true, Partial: true, Message: "reset"},
			{Status: 401, Message: "bad key"},
		}[r.IntN(5)]
		return append(out, ModelFailed{Err: e})
	}
	resp := Response{Content: "ok", Usage: Usage{InputTokens: r.IntN(1000), OutputTokens: r.IntN(100)}}
	if r.IntN(4) != 0 {
		// A small pool of calls so that repeats (and the loop guard) happen;
		// the spellings differ only in key order and spaces.
		pool := []ToolCall{
			{Name: "read_file", Arguments: `{"path":"a.go","limit":10}`},
			{Name: "read_file", Arguments: `{ "limit": 10, "path": "a.go" }`},
			{Name: "grep", Arguments: `{"pattern":"x"}`},
			{Name: "edit_file", Arguments: fmt.Sprintf(`{"path":"f%d.go"}`, r.IntN(100))},
			{Name: "edit_file", Arguments: `{"path":"f1.go"}`},
		}
		for range 1 + r.IntN(3) {
			c := pool[r.IntN(len(pool))]
			switch r.IntN(8) {
			case 0: // no ID
			case 1:
				c.ID = "dup"
			default:
				s.ids++
				c.ID = fmt.Sprintf("id%d", s.ids)
			}
			resp.ToolCalls = append(resp.ToolCalls, c)
		}
	}
	return append(out, ModelDone{Response: resp})
}

func (s *sim) event(where string, e Event) {
	t := s.t
	switch e.Kind {
	case KindState:
		if e.From != s.state {
			t.Errorf("%s: state event %s→%s while in %s", where, e.From, e.To, s.state)
		}
		s.state = e.To
		if e.From == Tools && e.To != Idle {
			for id := range s.callIDs {
				if !s.resultIDs[id] {
					t.Errorf("%s: the turn ended without a result for call %s", where, id)
				}
			}
		}
	case KindUsage:
		// IDs are unique within a turn; across turns servers may repeat them.
		clear(s.callIDs)
		clear(s.resultIDs)
		s.steps++
		if s.steps > s.limits.MaxSteps+1 {
			t.Errorf("%s: model turn %d of at most %d and the summary turn", where, s.steps, s.limits.MaxSteps)
		}
	case KindToolCall:
		if s.callIDs[e.Call.ID] {
			t.Errorf("%s: call ID %s used twice", where, e.Call.ID)
		}
		s.callIDs[e.Call.ID] = true
	case KindToolResult:
		if !s.callIDs[e.Call.ID] || s.resultIDs[e.Call.ID] {
			t.Errorf("%s: result for %s without its call, or twice", where, e.Call.ID)
		}
		s.resultIDs[e.Call.ID] = true
		if len(e.Output) > s.effMaxOut {
			t.Errorf("%s: tool output of %d bytes, over %d", where, len(e.Output), s.effMaxOut)
		}
	case KindEnd:
		if e.Result == nil {
			t.Errorf("%s: end without a result", where)
		}
	}
}

func (s *sim) checkEnd() {
	t, res := s.t, s.finished
	if s.m.State() != Idle {
		t.Errorf("seed %d: finished in %s", s.seed, s.m.State())
	}
	if res.Steps > s.limits.MaxSteps+1 || res.Steps != s.steps {
		t.Errorf("seed %d: result steps %d, turns seen %d, max %d", s.seed, res.Steps, s.steps, s.limits.MaxSteps)
	}
	for _, p := range res.FilesChanged {
		if !s.reported[p] {
			t.Errorf("seed %d: %s in filesChanged but never reported changed", s.seed, p)
		}
	}
	if res.Verified && !s.limits.Verify {
		t.Errorf("seed %d: verified with the gate off", s.seed)
	}
	if res.Cancelled != (res.Status == StatusCancelled) {
		t.Errorf("seed %d: cancelled=%t with status %s", s.seed, res.Cancelled, res.Status)
	}
	if res.Reason == "" {
		t.Errorf("seed %d: no reason in %+v", s.seed, res)
	}
}

// replay feeds the same inputs to a new machine: the actions must be the
// same, which is what makes recorded sessions replayable.
func (s *sim) replay() {
	m := NewMachine()
	for i, in := range s.inputs {
		acts := m.Step(in)
		if !reflect.DeepEqual(acts, s.actions[i]) {
			s.t.Errorf("seed %d: replay differs at input %d (%T):\n got %s\nwant %s", s.seed, i+1, in, actionTypes(acts), actionTypes(s.actions[i]))
			return
		}
	}
}

// The machine must not write to what the caller gave it: a scripted or
// recorded response is used again.
func TestModelDoneKeepsResponse(t *testing.T) {
	calls := []ToolCall{{Name: "read_file", Arguments: `{}`}, {ID: "x", Name: "grep", Arguments: `{}`}, {ID: "x", Name: "grep", Arguments: `{"a":1}`}}
	orig := slices.Clone(calls)
	m := drive(t, Executing, Start{Task: "t", Limits: DefaultLimits()}, Planned{Prefix: sysPrefix})
	acts := m.Step(ModelDone{Response{ToolCalls: calls}})
	if !reflect.DeepEqual(calls, orig) {
		t.Errorf("the response's calls were modified: %+v", calls)
	}
	var run RunTools
	for _, a := range acts {
		if r, ok := a.(RunTools); ok {
			run = r
		}
	}
	var ids []string
	for _, c := range run.Calls {
		ids = append(ids, c.ID)
	}
	// A missing ID gets one, a repeated one is replaced, so each result has
	// a call to land on.
	if want := []string{"call_1_0", "x", "call_1_2"}; !slices.Equal(ids, want) {
		t.Errorf("call IDs %v, want %v", ids, want)
	}
}

// A CallModel's messages must be safe to append to: the machine's next
// append must not overwrite what the receiver added.
func TestCallModelMessagesClipped(t *testing.T) {
	m := NewMachine()
	m.Step(Start{Task: "t", Limits: DefaultLimits()})
	acts := m.Step(Planned{Prefix: sysPrefix})
	msgs := acts[len(acts)-1].(CallModel).Messages
	mine := append(msgs, Message{Role: RoleUser, Content: "receiver's"})
	m.Step(ModelDone{Response{ToolCalls: []ToolCall{{ID: "c1", Name: "grep", Arguments: `{}`}}}})
	if got := mine[len(mine)-1].Content; got != "receiver's" {
		t.Errorf("the machine overwrote the receiver's message: %q", got)
	}
}

func TestBackoffBounds(t *testing.T) {
	for seed := uint64(1); seed < 500; seed++ {
		m := NewMachine()
		m.Step(Start{Task: "t", Seed: seed, Limits: Limits{BackoffBase: 400 * time.Millisecond, BackoffCap: 2 * time.Second}})
		for attempt := 1; attempt <= 6; attempt++ {
			d := min(400*time.Millisecond<<(attempt-1), 2*time.Second)
			if got := m.backoff(attempt); got < d/2 || got > d {
				t.Fatalf("seed %d attempt %d: wait %s outside [%s, %s]", seed, attempt, got, d/2, d)
			}
		}
	}
}

func TestCanonicalJSON(t *testing.T) {
	tests := []struct{ a, b string }{
		{`{"path":"a","limit":3}`, `{ "limit" : 3 , "path":"a" }`},
		{`{"x":{"b":[1,{"d":1,"c":2}],"a":null}}`, "{\n\"x\": {\"a\": null, \"b\": [1, {\"c\": 2, \"d\": 1}]}}"},
		{`not json`, `  not json `},
		{`{"n":1.0}`, `{"n":1}`},
	}
	for _, tt := range tests {
		if ca, cb := canonicalJSON(tt.a), canonicalJSON(tt.b); ca != cb {
			t.Errorf("%s → %s but %s → %s", tt.a, ca, tt.b, cb)
		}
	}
	if canonicalJSON(`{"path":"a"}`) == canonicalJSON(`{"path":"b"}`) {
		t.Error("different arguments are the same call")
	}
	if canonicalJSON(`[1,2]`) == canonicalJSON(`[2,1]`) {
		t.Error("array order must count")
	}
}

func TestCapOutput(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		limit int
	}{
		{"ascii 1MB", strings.Repeat("abcdefghij", 100_000), 4096},
		{"multibyte", strings.Repeat("héllo wörld ✓ 🙂 ", 5000), 1000},
		{"just over", strings.Repeat("x", 1001), 1000},
		{"digits grow", strings.Repeat("y", 10_000), 1000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CapOutput(tt.in, tt.limit)
			if len(got) > tt.limit {
				t.Errorf("%d bytes, over %d", len(got), tt.limit)
			}
			if !utf8.ValidString(got) {
				t.Error("cut inside a character")
			}
			i := strings.Index(got, "\n[... ")
			j := strings.Index(got, " bytes cut ...]\n")
			if i < 0 || j < i {
				t.Fatalf("no marker in %q…", got[:80])
			}
			var n int
			fmt.Sscan(got[i+6:j], &n)
			marker := got[i : j+len(" bytes cut ...]\n")]
			if kept := len(got) - len(marker); kept+n != len(tt.in) {
				t.Errorf("marker says %d bytes cut, but %d of %d were kept", n, kept, len(tt.in))
			}
			if !strings.HasPrefix(tt.in, got[:i]) || !strings.HasSuffix(tt.in, got[j+len(" bytes cut ...]\n"):]) {
				t.Error("head or tail not kept verbatim")
			}
		})
	}
	if s := strings.Repeat("z", 100); CapOutput(s, 100) != s || CapOutput(s, 0) != s {
		t.Error("output within the limit changed")
	}
}

func TestDigest(t *testing.T) {
	dropped := []Message{
		{Role: RoleUser, Content: summaryHeader + digestHeader + "- read_file {\"path\":\"old.go\"} → ok\n"},
		{Role: RoleAssistant, Content: "Looking.\nMore lines.", ToolCalls: []ToolCall{
			{ID: "a", Name: "read_file", Arguments: `{ "path" : "x.go" }`},
			{ID: "b", Name: "edit_file", Arguments: `{"path":"y.go"}`},
		}},
		{Role: RoleTool, ToolCallID: "a", Content: "1: package x"},
		{Role: RoleTool, ToolCallID: "b", Content: "error: old_string not found\nin y.go"},
		{Role: RoleUser, Content: "The project's checks failed"},
	}
	want := digestHeader +
		"- read_file {\"path\":\"old.go\"} → ok\n" +
		"- you said: Looking. …\n" +
		"- read_file {\"path\":\"x.go\"} → ok\n" +
		"- edit_file {\"path\":\"y.go\"} → error: old_string not found …\n" +
		"- user: The project's checks failed\n"
	if got := Digest(dropped); got != want {
		t.Errorf("Digest:\n%s\nwant:\n%s", got, want)
	}
}

// Inputs a state does not expect produce no action and are counted, so the
// driver can report where a run and its recording part.
func TestMachineCountsIgnoredInputs(t *testing.T) {
	m := NewMachine()
	steps := []struct {
		in      Input
		ignored int
	}{
		{ToolDone{ID: "x"}, 1}, // idle: nothing runs
		{Start{Task: "t", Limits: DefaultLimits(), Seed: 1}, 1},
		{TimerFired{ID: 3}, 2}, // planning waits for Planned
		{Planned{Prefix: sysPrefix}, 2},
		{ToolDone{ID: "y"}, 3}, // executing: no tool runs
		{TimerFired{ID: 9}, 4}, // no such timer
		{TextDelta{Text: "hi"}, 4},
		{Cancel{}, 4},
		{Cancel{}, 5}, // idle again
	}
	for i, s := range steps {
		acts := m.Step(s.in)
		if got := m.Ignored(); got != s.ignored {
			t.Fatalf("step %d (%T): ignored %d, want %d", i, s.in, got, s.ignored)
		}
		if ignoredNow := i > 0 && steps[i-1].ignored != s.ignored || i == 0 && s.ignored == 1; ignoredNow != (len(acts) == 0) {
			t.Fatalf("step %d (%T): %d actions, counted as ignored: %v", i, s.in, len(acts), ignoredNow)
		}
	}
}

// A failed edit is counted in the result, and a command's run reaches its
// result event: the editors judge and show what happened from them.
func TestMachineCountsFailedEditsAndCarriesRun(t *testing.T) {
	run := &CommandRun{Approval: RanUnasked, Sandboxed: true, ExitCode: 2}
	m := drive(t, Tools, Start{Task: "task", Limits: DefaultLimits(), Seed: 1}, Planned{Prefix: sysPrefix},
		ModelDone{Response{ToolCalls: []ToolCall{{ID: "c1", Name: "edit_file", Arguments: `{}`}, {ID: "c2", Name: "run_command", Arguments: `{}`}, {ID: "c3", Name: "read_file", Arguments: `{}`}}}})
	m.Step(ToolDone{ID: "c1", Err: errors.New("old_string not found")})
	var got *CommandRun
	for _, a := range m.Step(ToolDone{ID: "c2", Result: ToolResult{Output: "x", Run: run}}) {
		if e, ok := a.(Emit); ok && e.Event.Kind == KindToolResult {
			got = e.Event.Run
		}
	}
	if got != run {
		t.Errorf("the result event's run = %+v, want %+v", got, run)
	}
	m.Step(ToolDone{ID: "c3", Err: errors.New("no such file")}) // not an edit
	var res *Result
	for _, a := range m.Step(ModelDone{Response{Content: "Added three constants"}}) {
		if r, ok := a.(Report); ok {
			res = &r.Result
		}
	}
	if res == nil || res.FailedEdits != 1 || len(res.FilesChanged) != 0 {
		t.Fatalf("result %+v, want one failed edit and no files", res)
	}
}

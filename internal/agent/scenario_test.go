package agent

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The scenario files under testdata/machine drive a Machine with inputs and
// compare every action it returns, rendered one per line, with the file.
//
// A file is a list of blocks:
//
//	# comment
//	command key=value word ...
//	body line (optional, command-specific)
//	----
//	expected output, one line per action
//	(blank line ends the block)
//
// Run with -update to rewrite the expected outputs after a deliberate
// change, then read the diff.
var update = flag.Bool("update", false, "rewrite the expected output of scenario files")

func TestScenarios(t *testing.T) {
	files, err := filepath.Glob("testdata/machine/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenario files: %v", err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txt"), func(t *testing.T) {
			runScenarioFile(t, f)
		})
	}
}

type block struct {
	line    int // of the command
	cmd     string
	body    []string
	want    []string
	comment []string // lines before the command
}

func parseScenario(t *testing.T, path string) []block {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var blocks []block
	var cur *block
	stage := 0 // 0: before a command, 1: body, 2: expected output
	var comments []string
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch stage {
		case 0:
			if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
				comments = append(comments, line)
				continue
			}
			blocks = append(blocks, block{line: n, cmd: line, comment: comments})
			comments = nil
			cur = &blocks[len(blocks)-1]
			stage = 1
		case 1:
			if line == "----" {
				stage = 2
				continue
			}
			cur.body = append(cur.body, line)
		case 2:
			if line == "" {
				stage = 0
				continue
			}
			cur.want = append(cur.want, line)
		}
	}
	if stage == 1 {
		t.Fatalf("%s:%d: block without ----", path, cur.line)
	}
	return blocks
}

func runScenarioFile(t *testing.T, path string) {
	blocks := parseScenario(t, path)
	h := &harness{t: t, m: NewMachine()}
	var out strings.Builder
	failed := false
	for i := range blocks {
		b := &blocks[i]
		h.where = fmt.Sprintf("%s:%d", path, b.line)
		got := h.run(b.cmd, b.body)
		if *update {
			b.want = got
		} else if strings.Join(got, "\n") != strings.Join(b.want, "\n") {
			failed = true
			t.Errorf("%s: %s\ngot:\n%s\nwant:\n%s", h.where, b.cmd, strings.Join(got, "\n"), strings.Join(b.want, "\n"))
		}
		for _, c := range b.comment {
			out.WriteString(c + "\n")
		}
		out.WriteString(b.cmd + "\n")
		for _, l := range b.body {
			out.WriteString(l + "\n")
		}
		out.WriteString("----\n")
		for _, l := range b.want {
			out.WriteString(l + "\n")
		}
		out.WriteString("\n")
	}
	if *update && !failed {
		if err := os.WriteFile(path, []byte(strings.TrimRight(out.String(), "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// harness turns commands into inputs and actions into lines.
type harness struct {
	t     *testing.T
	where string
	m     *Machine
}

// args splits "cmd a=1 b="x y" word" into the command and its arguments;
// quoted values are Go string literals.
func splitArgs(line string) (string, map[string]string, error) {
	var toks []string
	for s := strings.TrimSpace(line); s != ""; s = strings.TrimSpace(s) {
		i := 0
		for i < len(s) && s[i] != ' ' {
			if s[i] == '"' {
				q, err := strconv.QuotedPrefix(s[i:])
				if err != nil {
					return "", nil, fmt.Errorf("bad quoting in %q: %w", s, err)
				}
				i += len(q)
				continue
			}
			i++
		}
		toks = append(toks, s[:i])
		s = s[i:]
	}
	if len(toks) == 0 {
		return "", nil, errors.New("empty command")
	}
	args := map[string]string{}
	for _, tok := range toks[1:] {
		k, v, ok := strings.Cut(tok, "=")
		if !ok {
			args[tok] = ""
			continue
		}
		if strings.HasPrefix(v, `"`) {
			u, err := strconv.Unquote(v)
			if err != nil {
				return "", nil, fmt.Errorf("bad quoting in %q: %w", tok, err)
			}
			v = u
		}
		args[k] = expand(v)
	}
	return toks[0], args, nil
}

// expand replaces {{N}} with N bytes of filler text, for big payloads.
func expand(s string) string {
	for {
		i := strings.Index(s, "{{")
		if i < 0 {
			return s
		}
		j := strings.Index(s[i:], "}}")
		if j < 0 {
			return s
		}
		n, err := strconv.Atoi(s[i+2 : i+j])
		if err != nil {
			return s
		}
		s = s[:i] + filler(n) + s[i+j+2:]
	}
}

// filler returns n bytes of text, cut from one long string so that the
// property test's many big payloads cost nothing to make.
func filler(n int) string {
	if n > len(fillerText) {
		return strings.Repeat("x", n)
	}
	return fillerText[:n]
}

var fillerText = strings.Repeat("the quick brown fox jumps over the lazy dog\n", 1<<20/44+1)

func (h *harness) fatalf(format string, a ...any) {
	h.t.Helper()
	h.t.Fatalf("%s: %s", h.where, fmt.Sprintf(format, a...))
}

func (h *harness) num(args map[string]string, k string, def int) int {
	v, ok := args[k]
	if !ok {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		h.fatalf("%s=%q: %v", k, v, err)
	}
	return n
}

func (h *harness) float(args map[string]string, k string, def float64) float64 {
	v, ok := args[k]
	if !ok {
		return def
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		h.fatalf("%s=%q: %v", k, v, err)
	}
	return f
}

func (h *harness) dur(args map[string]string, k string, def time.Duration) time.Duration {
	v, ok := args[k]
	if !ok {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		h.fatalf("%s=%q: %v", k, v, err)
	}
	return d
}

func (h *harness) run(line string, body []string) []string {
	cmd, args, err := splitArgs(line)
	if err != nil {
		h.fatalf("%v", err)
	}
	var in Input
	switch cmd {
	case "history":
		_, full := args["full"]
		return renderHistory(h.m.history, full)
	case "state":
		return []string{string(h.m.State())}
	case "start":
		l := DefaultLimits()
		l.MaxSteps = h.num(args, "maxSteps", l.MaxSteps)
		l.MaxRetries = h.num(args, "maxRetries", l.MaxRetries)
		l.LLMAttempts = h.num(args, "attempts", l.LLMAttempts)
		l.BackoffBase = h.dur(args, "base", l.BackoffBase)
		l.BackoffCap = h.dur(args, "cap", l.BackoffCap)
		l.MaxRetryWait = h.dur(args, "maxWait", l.MaxRetryWait)
		l.Verify = args["verify"] != "false"
		l.ContextTokens = h.num(args, "context", l.ContextTokens)
		l.ToolsTokens = h.num(args, "toolsTokens", 0)
		l.MaxToolOutput = h.num(args, "maxOutput", l.MaxToolOutput)
		l.MaxCostUSD = h.float(args, "maxCost", 0)
		l.PriceInput = h.float(args, "priceIn", 0)
		l.PriceOutput = h.float(args, "priceOut", 0)
		in = Start{Task: args["task"], Limits: l, Seed: uint64(h.num(args, "seed", 1))}
	case "planned":
		var p Planned
		for _, b := range body {
			part, rest, _ := strings.Cut(b, " ")
			role, text, _ := strings.Cut(rest, " ")
			if u, err := strconv.Unquote(text); err == nil {
				text = u
			}
			msg := Message{Role: Role(role), Content: expand(text)}
			switch part {
			case "prefix":
				p.Prefix = append(p.Prefix, msg)
			case "history":
				p.History = append(p.History, msg)
			default:
				h.fatalf("planned: want prefix|history <role> <text>, got %q", b)
			}
		}
		in = p
	case "text":
		in = TextDelta{Text: args["t"]}
	case "done":
		r := Response{Content: args["text"], Usage: Usage{InputTokens: h.num(args, "in", 0), OutputTokens: h.num(args, "out", 0)}}
		for _, b := range body {
			f := strings.SplitN(b, " ", 4)
			if len(f) != 4 || f[0] != "call" {
				h.fatalf("done: want call <id> <name> <args>, got %q", b)
			}
			id := f[1]
			if id == "-" {
				id = ""
			}
			r.ToolCalls = append(r.ToolCalls, ToolCall{ID: id, Name: f[2], Arguments: f[3]})
		}
		in = ModelDone{Response: r}
	case "failed":
		e := &LLMError{
			Status:     h.num(args, "status", 0),
			RetryAfter: h.dur(args, "after", 0),
			Message:    args["msg"],
		}
		_, e.Retryable = args["retryable"]
		_, e.Partial = args["partial"]
		var err error = e
		if _, ok := args["wrapped"]; ok {
			err = fmt.Errorf("openai stream: %w", e)
		}
		in = ModelFailed{Err: err, Partial: Response{Content: args["text"]}}
	case "timer":
		in = TimerFired{ID: h.num(args, "id", 0)}
	case "tool":
		d := ToolDone{ID: args["id"], Result: ToolResult{Output: args["out"]}}
		if n := h.num(args, "bytes", 0); n > 0 {
			d.Result.Output = filler(n)
		}
		if e, ok := args["err"]; ok {
			d.Err = errors.New(e)
		}
		if c := args["changed"]; c != "" {
			d.Result.Changed = strings.Split(c, ",")
		}
		if p, ok := args["plan"]; ok {
			wp, err := ParsePlan([]byte(p))
			if err != nil {
				h.fatalf("plan: %v", err)
			}
			d.Result.Plan = &wp
		}
		in = d
	case "verify":
		_, pass := args["pass"]
		in = VerifyDone{Report: VerifyReport{Passed: pass, Summary: args["summary"], Feedback: args["feedback"], Commands: []string{"go test ./..."}}}
	case "compacted":
		c := Compacted{Summary: args["summary"], Usage: Usage{InputTokens: h.num(args, "in", 0), OutputTokens: h.num(args, "out", 0)}}
		if e, ok := args["err"]; ok {
			c.Err = errors.New(e)
		}
		in = c
	case "reported":
		in = Reported{}
	case "cancel":
		in = Cancel{}
	case "fail":
		in = Fail{Reason: args["reason"], Err: args["err"]}
	default:
		h.fatalf("unknown command %q", cmd)
	}
	acts := h.m.Step(in)
	checkActions(h.t, h.where, h.m, acts)
	out := make([]string, 0, len(acts))
	for _, a := range acts {
		out = append(out, renderAction(a))
	}
	return out
}

// checkActions asserts what must hold for any action list, so that every
// scenario also checks the invariants (the property test does the same on
// random inputs).
func checkActions(t *testing.T, where string, m *Machine, acts []Action) {
	t.Helper()
	for i, a := range acts {
		switch a := a.(type) {
		case CallModel:
			if p, ok := acts[max(i-1, 0)].(Persist); !ok || len(p.Prefix)+len(p.Conversation) != len(a.Messages) {
				t.Errorf("%s: CallModel without the Persist of its messages before it", where)
			}
			if err := wellFormed(a.Messages); err != nil {
				t.Errorf("%s: CallModel messages: %v", where, err)
			}
			if n := estimate(a.Messages) + m.limits.ToolsTokens; n > m.limits.ContextTokens {
				t.Errorf("%s: CallModel of about %d tokens, over the window of %d", where, n, m.limits.ContextTokens)
			}
			if a.Attempt < 1 || a.Attempt > m.limits.LLMAttempts {
				t.Errorf("%s: CallModel attempt %d of %d", where, a.Attempt, m.limits.LLMAttempts)
			}
		case Finish:
			if i != len(acts)-1 {
				t.Errorf("%s: Finish is not the last action", where)
			}
			if m.State() != Idle {
				t.Errorf("%s: Finish but state %s", where, m.State())
			}
		}
	}
}

// wellFormed checks that every assistant tool call is answered by a tool
// message right after it, in order, and that no tool message is orphaned.
func wellFormed(msgs []Message) error {
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		if m.Role == RoleTool {
			return fmt.Errorf("message %d: tool result %s without its call", i, m.ToolCallID)
		}
		for j, c := range m.ToolCalls {
			k := i + 1 + j
			if k >= len(msgs) || msgs[k].Role != RoleTool || msgs[k].ToolCallID != c.ID {
				return fmt.Errorf("message %d: call %s not answered at %d", i, c.ID, k)
			}
		}
		i += len(m.ToolCalls)
	}
	return nil
}

func estimate(msgs []Message) int {
	n := 0
	for i := range msgs {
		n += MessageTokens(&msgs[i])
	}
	return n
}

func renderAction(a Action) string {
	switch a := a.(type) {
	case Emit:
		return "emit " + renderEvent(a.Event)
	case Plan:
		return "plan " + strconv.Quote(a.Task)
	case CallModel:
		tools := ""
		if a.NoTools {
			tools = " noTools"
		}
		return fmt.Sprintf("callModel attempt=%d tokens=%d msgs=[%s]%s", a.Attempt, estimate(a.Messages), roles(a.Messages), tools)
	case RunTools:
		var b strings.Builder
		b.WriteString("runTools")
		for _, c := range a.Calls {
			fmt.Fprintf(&b, " %s:%s", c.ID, c.Name)
		}
		return b.String()
	case StartTimer:
		return fmt.Sprintf("startTimer id=%d after=%s", a.ID, a.After)
	case RunVerify:
		return fmt.Sprintf("runVerify %v", a.Changed)
	case Compact:
		return fmt.Sprintf("compact dropped=[%s]", roles(a.Dropped))
	case Persist:
		return fmt.Sprintf("persist prefix=[%s] conversation=[%s]", roles(a.Prefix), roles(a.Conversation))
	case Report:
		return "report " + renderResult(a.Result)
	case Finish:
		return "finish " + renderResult(a.Result)
	}
	return fmt.Sprintf("unknown action %T", a)
}

func renderEvent(e Event) string {
	switch e.Kind {
	case KindState:
		return fmt.Sprintf("state %s->%s", e.From, e.To)
	case KindText:
		return fmt.Sprintf("text step=%d %q", e.Step, e.Text)
	case KindUsage:
		return fmt.Sprintf("usage step=%d call=%d/%d task=%d/%d", e.Step, e.Usage.InputTokens, e.Usage.OutputTokens, e.TaskUsage.InputTokens, e.TaskUsage.OutputTokens)
	case KindToolCall:
		return fmt.Sprintf("toolCall step=%d %s %s %s", e.Step, e.Call.ID, e.Call.Name, e.Call.Arguments)
	case KindToolResult:
		status := "ok"
		if e.IsErr {
			status = "err"
		}
		return fmt.Sprintf("toolResult step=%d %s %s %s %s", e.Step, e.Call.ID, e.Call.Name, status, abbrev(e.Output))
	case KindVerify:
		return fmt.Sprintf("verify step=%d passed=%t %q", e.Step, e.Verify.Passed, e.Verify.Summary)
	case KindCompaction, KindRetry:
		return fmt.Sprintf("%s step=%d %q", e.Kind, e.Step, e.Text)
	case KindBudget:
		return fmt.Sprintf("budget step=%d %q", e.Step, e.Text)
	case KindPlan:
		return fmt.Sprintf("plan step=%d %q", e.Step, e.Plan.Text())
	case KindEnd:
		return "end " + renderResult(*e.Result)
	}
	return "unknown event " + e.Kind
}

func renderResult(r Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "status=%s reason=%s", r.Status, r.Reason)
	if r.Cancelled {
		b.WriteString(" cancelled")
	}
	if r.Verified {
		b.WriteString(" verified")
	}
	fmt.Fprintf(&b, " steps=%d files=%v usage=%d/%d", r.Steps, r.FilesChanged, r.Usage.InputTokens, r.Usage.OutputTokens)
	if r.Summary != "" {
		fmt.Fprintf(&b, " summary=%q", r.Summary)
	}
	if r.Error != "" {
		fmt.Fprintf(&b, " error=%q", r.Error)
	}
	return b.String()
}

// roles renders messages as s u a(c1,c2) t(c1) …
func roles(msgs []Message) string {
	parts := make([]string, len(msgs))
	for i, m := range msgs {
		p := string(m.Role[0])
		switch {
		case len(m.ToolCalls) > 0:
			ids := make([]string, len(m.ToolCalls))
			for j, c := range m.ToolCalls {
				ids[j] = c.ID
			}
			p += "(" + strings.Join(ids, ",") + ")"
		case m.Role == RoleTool:
			p += "(" + m.ToolCallID + ")"
		}
		parts[i] = p
	}
	return strings.Join(parts, " ")
}

// renderHistory lists the conversation, one message a line; full shows
// message text up to 1000 bytes whole, one line of the file per line of
// text.
func renderHistory(msgs []Message, full bool) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		s := fmt.Sprintf("%d %s", i, m.Role)
		if m.Role == RoleTool {
			s += " " + m.ToolCallID + " " + m.Name
		}
		if full && len(m.Content) <= 1000 {
			// No trailing spaces: editors strip them from test data.
			lines := strings.Split(m.Content, "\n")
			s += " " + lines[0]
			for _, l := range lines[1:] {
				s += strings.TrimRight("\n  | "+l, " ")
			}
		} else {
			s += " " + abbrev(m.Content)
		}
		for _, c := range m.ToolCalls {
			s += fmt.Sprintf(" call=%s:%s:%s", c.ID, c.Name, c.Arguments)
		}
		out[i] = s
	}
	return out
}

// abbrev quotes short text whole; long text as its head and length, plus
// the cut marker when there is one.
func abbrev(s string) string {
	const head = 60
	if len(s) <= 4*head {
		return strconv.Quote(s)
	}
	r := fmt.Sprintf("%q…(%d bytes)", s[:head], len(s))
	if i := strings.Index(s, "[... "); i >= 0 {
		if j := strings.Index(s[i:], "]"); j >= 0 {
			r += " " + s[i:i+j+1]
		}
	}
	return r
}

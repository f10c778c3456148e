// Package doctor is `agentls doctor`: it checks, in one screen, what a task
// needs (the binary, the settings and where each came from, the key, the
// endpoint and the model, the sandbox, workspace trust, the state
// directory, the editors' plugins) and says what is wrong and what to do.
// Its report is also JSON (--json), for bug reports and for the editors'
// health commands (Neovim's :checkhealth, Emacs, VS Code).
//
// It is a front end of its own: it asks assemble, config, policy, proc and
// session, and imports no other front end. The API key is never shown:
// every line and the JSON pass through the configuration's redaction.
package doctor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentls/agentls/internal/assemble"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/policy"
	"github.com/agentls/agentls/internal/proc"
	"github.com/agentls/agentls/internal/render"
	"github.com/agentls/agentls/internal/session"
)

// Exit codes of agentls doctor (docs/troubleshooting.md).
const (
	// ExitOK: a task can run, confined as the settings ask.
	ExitOK = 0
	// ExitTaskCannotRun: a task could not run: no key for an endpoint that
	// needs one, the endpoint unreachable or refusing, the model refusing
	// a request with tools, or the endpoint held back until the workspace
	// file is trusted.
	ExitTaskCannotRun = 1
	// ExitUsage: bad flags.
	ExitUsage = 2
	// ExitUnconfined: a task can run, but the sandbox the settings ask for
	// is unavailable here, so every command and check is asked about (and
	// refused where nobody can answer, as in agentls run without a
	// terminal).
	ExitUnconfined = 3
)

// Status is a check's outcome.
type Status string

const (
	OK   Status = "ok"
	Warn Status = "warn"
	Fail Status = "fail"
	Info Status = "info" // nothing to judge (the editors' plugins)
)

// Check is one line of the report, with its details.
type Check struct {
	Name    string   `json:"name"`
	Status  Status   `json:"status"`
	Summary string   `json:"summary"`
	Details []string `json:"details,omitempty"`
}

// Setting is one setting's value and where it came from ("default",
// "editor settings", ".agentls.json", "environment: AGENTLS_MODEL").
// The API key's value is never here: Value says only "(set)".
type Setting struct {
	Key    string `json:"key"`
	Value  any    `json:"value"`
	Source string `json:"source"`
}

// Endpoint is what the endpoint answered.
type Endpoint struct {
	BaseURL     string   `json:"baseURL"`
	Model       string   `json:"model"`
	API         string   `json:"api"` // chat or responses
	Tried       bool     `json:"tried"`
	Reachable   bool     `json:"reachable"`
	Models      []string `json:"models,omitempty"`
	ModelListed bool     `json:"modelListed"`
	ToolCalls   bool     `json:"toolCalls"` // a one-token request with a tool was answered
	Error       string   `json:"error,omitempty"`
}

// Sandbox is what the sandbox enforces here, as the settings ask.
type Sandbox struct {
	Mode        string            `json:"mode"`
	Network     bool              `json:"network"`
	Machine     proc.Capabilities `json:"machine"`
	Enforced    []string          `json:"enforced"`
	NotEnforced []string          `json:"notEnforced,omitempty"`
}

// State is agentls's state directory.
type State struct {
	Dir            string `json:"dir"`
	Bytes          int64  `json:"bytes"`
	Workspace      string `json:"workspace"` // this workspace's directory under Dir
	WorkspaceBytes int64  `json:"workspaceBytes"`
}

// Report is everything agentls doctor found.
type Report struct {
	Version   string    `json:"version"`
	Binary    string    `json:"binary"`
	Workspace string    `json:"workspace"`
	Exit      int       `json:"exit"`
	Checks    []Check   `json:"checks"`
	Settings  []Setting `json:"settings"`
	Endpoint  Endpoint  `json:"endpoint"`
	Sandbox   Sandbox   `json:"sandbox"`
	State     State     `json:"state"`
	Editors   []Editor  `json:"editors"`
}

// Options say what to check.
type Options struct {
	Root     string // the workspace root
	Settings []byte // the editor's settings (--settings), may be nil
	Version  string
	Getenv   func(string) string // nil: os.Getenv
	Home     string              // the user's home, for the editors' plugins; "": os.UserHomeDir
	// Timeout bounds the one-token request (the model list gets 10 s).
	Timeout time.Duration
}

// Run checks everything and returns the report; it never fails, it says.
func Run(ctx context.Context, o Options) Report {
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.Timeout <= 0 {
		o.Timeout = 60 * time.Second
	}
	r := Report{Version: o.Version, Workspace: o.Root}
	r.Binary, _ = os.Executable()
	r.Checks = append(r.Checks, Check{Name: "binary", Status: OK, Summary: r.Binary + ": " + o.Version})

	stateDir, stateErr := session.StateDirFrom(o.Getenv)
	store := trustStore(stateDir, stateErr)
	ws := assemble.ReadWorkspaceSettings(o.Root, store)
	// As the language server layers them: the editor's workspace-scope
	// settings (held back like .agentls.json), the user's, the file, the
	// environment.
	user, scoped, _ := config.SplitWorkspaceScope(o.Settings)
	edWS := assemble.WorkspaceSettings{Source: config.Source{Name: "editor workspace settings"}}
	if len(scoped) > 0 {
		edWS = assemble.HoldBack("editor workspace settings", assemble.EditorWorkspaceFile(o.Root), scoped, store)
	}
	ed, edProbs := config.FromJSON("editor settings", user)
	cfg, origins, probs := config.ResolveWithOrigins(edWS.Source, ed, ws.Source, config.FromEnv(o.Getenv))
	probs = append(append(append(edWS.Problems, edProbs...), ws.Problems...), probs...)

	r.Settings = settings(cfg, origins, o.Getenv)
	r.Checks = append(r.Checks, settingsCheck(r.Settings, probs))
	key := keyCheck(cfg, origins)
	r.Checks = append(r.Checks, key)
	trust := trustCheck(ws, edWS)
	r.Checks = append(r.Checks, trust)
	var ep Check
	r.Endpoint, ep = endpointCheck(ctx, cfg, key.Status == Fail, heldBackEndpoint(ws) || heldBackEndpoint(edWS), o.Timeout)
	r.Checks = append(r.Checks, ep)
	var sb Check
	r.Sandbox, sb = sandboxCheck(ctx, cfg)
	r.Checks = append(r.Checks, sb)
	var st Check
	r.State, st = stateCheck(stateDir, stateErr, o.Root)
	r.Checks = append(r.Checks, st)
	var edc Check
	r.Editors, edc = editorsCheck(o.Home, o.Getenv)
	r.Checks = append(r.Checks, edc)

	switch {
	case key.Status == Fail || ep.Status == Fail || trust.Status == Fail:
		r.Exit = ExitTaskCannotRun
	case sb.Status == Fail:
		r.Exit = ExitUnconfined
	}
	return redact(r, cfg)
}

func trustStore(dir string, err error) *policy.TrustStore {
	if err != nil {
		return nil
	}
	return assemble.TrustStore(dir)
}

// settings lists every setting's value and its source.
func settings(cfg config.Config, origins map[string]string, getenv func(string) string) []Setting {
	var out []Setting
	for _, d := range config.Docs() {
		v, _ := cfg.Value(d.Key)
		src := origins[d.Key]
		switch src {
		case "":
			src = "default"
		case "environment":
			for _, e := range d.Env {
				if getenv(e) != "" {
					src = "environment: " + e
					break
				}
			}
		}
		if d.Key == "llm.apiKey" {
			v = "(not set)"
			if cfg.LLM.APIKey != "" {
				v = "(set)"
			}
		}
		out = append(out, Setting{Key: d.Key, Value: hideEnv(v), Source: src})
	}
	return out
}

// hideEnv shows a setting's value with the values of every "env" object
// in it (mcpServers' and agent.backend's: the tokens and keys given to the
// programs they start) replaced by "(set)".
func hideEnv(v any) any {
	b, err := json.Marshal(v)
	if err != nil || !bytes.Contains(b, []byte(`"env"`)) {
		return v
	}
	var x any
	if json.Unmarshal(b, &x) != nil {
		return "(not shown)"
	}
	var walk func(any) any
	walk = func(x any) any {
		switch t := x.(type) {
		case map[string]any:
			for k, sub := range t {
				if env, ok := sub.(map[string]any); ok && k == "env" {
					for name := range env {
						env[name] = "(set)"
					}
					continue
				}
				t[k] = walk(sub)
			}
		case []any:
			for i := range t {
				t[i] = walk(t[i])
			}
		}
		return x
	}
	return walk(x)
}

func settingsCheck(ss []Setting, probs []config.Problem) Check {
	c := Check{Name: "settings", Status: OK}
	bySource := map[string]int{}
	var sources []string
	for _, s := range ss {
		if s.Source == "default" {
			continue
		}
		name, _, _ := strings.Cut(s.Source, ":")
		if bySource[name] == 0 {
			sources = append(sources, name)
		}
		bySource[name]++
		c.Details = append(c.Details, fmt.Sprintf("%s = %s  (%s)", s.Key, oneLine(config.Render(s.Value)), s.Source))
	}
	if len(sources) == 0 {
		c.Summary = "all defaults"
	} else {
		parts := make([]string, len(sources))
		for i, s := range sources {
			parts[i] = fmt.Sprintf("%d from %s", bySource[s], s)
		}
		c.Summary = strings.Join(parts, ", ") + "; the rest are defaults"
	}
	for _, p := range probs {
		c.Status = Warn
		c.Details = append(c.Details, "problem: "+strings.TrimPrefix(p.String(), "agentls: "))
	}
	if len(probs) > 0 {
		c.Summary += fmt.Sprintf("; %d problem(s): such a key falls back to the next source", len(probs))
	}
	return c
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 100 {
		s = s[:97] + "…"
	}
	return s
}

// keyCheck says whether a key is set, and where, never what it is. No key
// is a failure only for OpenAI's endpoint, which always needs one.
func keyCheck(cfg config.Config, origins map[string]string) Check {
	c := Check{Name: "key"}
	if cfg.LLM.APIKey != "" {
		c.Status, c.Summary = OK, "found in the "+origins["llm.apiKey"]+" (never shown)"
		return c
	}
	u, err := url.Parse(cfg.LLM.BaseURL)
	switch {
	case err == nil && strings.EqualFold(u.Hostname(), "api.openai.com"):
		c.Status = Fail
		c.Summary = "not found: set AGENTLS_API_KEY (or OPENAI_API_KEY) for " + cfg.LLM.BaseURL +
			", or point AGENTLS_BASE_URL (llm.baseURL) at a local server, which needs none (docs/models.md#local-model-quick-start)"
	case err == nil && loopback(u.Hostname()):
		c.Status, c.Summary = OK, "none set; a server on this machine needs none"
	default:
		c.Status, c.Summary = Warn, "none set; "+cfg.LLM.BaseURL+" may need one (AGENTLS_API_KEY): the endpoint check says"
	}
	return c
}

func loopback(host string) bool {
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// heldBackEndpoint is the workspace file's llm.baseURL when it waits for
// trust: tasks stop rather than send the workspace elsewhere.
func heldBackEndpoint(ws assemble.WorkspaceSettings) bool {
	return assemble.HeldBack(ws.Untrusted) != nil
}

func trustCheck(ws, edWS assemble.WorkspaceSettings) Check {
	c := trustFile(ws)
	if len(edWS.Untrusted) > 0 {
		switch {
		case heldBackEndpoint(edWS):
			c.Status = Fail
		case c.Status == OK:
			c.Status = Warn
		}
		c.Details = append(c.Details, "the editor's workspace settings: "+strings.Join(edWS.Untrusted, ", ")+" held back until you trust them (the editor asks before the next task)")
	}
	return c
}

func trustFile(ws assemble.WorkspaceSettings) Check {
	c := Check{Name: "trust", Status: OK}
	switch {
	case ws.Content == nil && len(ws.Problems) == 0:
		c.Summary = "no " + config.FileName + " in the workspace: nothing to trust"
	case ws.Content == nil:
		c.Status, c.Summary = Warn, config.FileName+" could not be read"
	case len(ws.Untrusted) == 0:
		c.Summary = ws.Path + ": widens nothing, or is trusted as it is now"
	case heldBackEndpoint(ws):
		c.Status = Fail
		c.Summary = ws.Path + " sets llm.baseURL, held back until you trust the file: every task stops (run agentls trust to review and trust it)"
		c.Details = []string{"held back: " + strings.Join(ws.Untrusted, ", ")}
	default:
		c.Status = Warn
		c.Summary = ws.Path + ": " + strings.Join(ws.Untrusted, ", ") + " held back until you trust the file (agentls trust; the editor asks before the next task)"
	}
	return c
}

// stateCheck sizes the state directory and this workspace's part of it.
func stateCheck(dir string, err error, root string) (State, Check) {
	c := Check{Name: "state"}
	if err != nil {
		c.Status, c.Summary = Warn, err.Error()+": sessions, transcripts and trust cannot be kept"
		return State{}, c
	}
	s := State{Dir: dir, Workspace: session.WorkspaceDir(dir, root)}
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		c.Status, c.Summary = OK, dir+" (not created yet: no task has run)"
		return s, c
	}
	s.Bytes = size(dir)
	s.WorkspaceBytes = size(s.Workspace)
	c.Status = OK
	c.Summary = fmt.Sprintf("%s, %s; this workspace's sessions and transcripts %s", dir, render.Size(s.Bytes), render.Size(s.WorkspaceBytes))
	return s, c
}

// size sums the files under dir, stopping after 200,000 entries.
func size(dir string) int64 {
	var n int64
	seen := 0
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if seen++; seen > 200_000 {
			return filepath.SkipAll
		}
		if d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// redact removes the key from everything the report says: the backends'
// errors never carry it, and this makes sure of it.
func redact(r Report, cfg config.Config) Report {
	if cfg.LLM.APIKey == "" {
		return r
	}
	b, err := json.Marshal(r)
	if err != nil {
		return r
	}
	var out Report
	if json.Unmarshal([]byte(cfg.Redact(string(b))), &out) != nil {
		return r
	}
	return out
}

// Write prints the report: one screen of text, or JSON.
func Write(w io.Writer, r Report, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	fmt.Fprintf(w, "agentls doctor: %s\n", r.Workspace)
	for _, c := range r.Checks {
		fmt.Fprintf(w, "%-5s %-9s %s\n", mark(c.Status), c.Name, c.Summary)
		for _, d := range c.Details {
			fmt.Fprintf(w, "%16s%s\n", "", d)
		}
	}
	switch r.Exit {
	case ExitOK:
		fmt.Fprintln(w, "\na task can run here.")
	case ExitTaskCannotRun:
		fmt.Fprintln(w, "\na task could not run here: see the FAIL lines (exit 1).")
	case ExitUnconfined:
		fmt.Fprintln(w, "\na task can run, but the sandbox is unavailable: commands are asked about (exit 3).")
	}
	_, err := fmt.Fprintln(w, "`agentls doctor --json` for a bug report; docs/troubleshooting.md says more.")
	return err
}

func mark(s Status) string {
	switch s {
	case OK:
		return "ok"
	case Warn:
		return "warn"
	case Fail:
		return "FAIL"
	}
	return "--"
}

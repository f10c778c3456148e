package doctor

// The two checks that reach outside: the model endpoint, through the real
// backend, and the sandbox, through proc's probes.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/agentls/agentls/internal/llm"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/assemble"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/proc"
)

// endpointCheck lists the endpoint's models and sends the model one
// request of one token with a tool, as a task's first request goes.
func endpointCheck(ctx context.Context, cfg config.Config, noKey, heldBack bool, timeout time.Duration) (Endpoint, Check) {
	e := Endpoint{BaseURL: cfg.LLM.BaseURL, Model: cfg.LLM.Model, API: assemble.API(cfg)}
	c := Check{Name: "endpoint"}
	switch {
	case heldBack:
		c.Status, c.Summary = Fail, "not tried: the workspace's llm.baseURL is held back (see trust), and agentls sends nothing to another endpoint instead"
		return e, c
	case noKey:
		c.Status, c.Summary = Fail, "not tried: no key for "+cfg.LLM.BaseURL
		return e, c
	}
	e.Tried = true
	lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	models, err := llm.ListModels(lctx, cfg.LLM.BaseURL, cfg.LLM.APIKey)
	cancel()
	api := "chat completions"
	if e.API == "responses" {
		api = "the Responses API"
	}
	if err != nil {
		if unreachable(err) {
			e.Error = err.Error()
			c.Status, c.Summary = Fail, cfg.LLM.BaseURL+" is not reachable: "+err.Error()
			c.Details = []string{"is the server running, and is llm.baseURL (AGENTLS_BASE_URL) its API root, ending in /v1?"}
			return e, c
		}
		e.Reachable = true
		c.Details = append(c.Details, "models not listed: "+err.Error())
	} else {
		e.Reachable, e.Models = true, models
		e.ModelListed = slices.Contains(models, cfg.LLM.Model)
		if e.ModelListed {
			c.Details = append(c.Details, fmt.Sprintf("%d model(s) listed, %q among them", len(models), cfg.LLM.Model))
		} else {
			c.Details = append(c.Details, fmt.Sprintf("%d model(s) listed, not %q (llm.model): %s", len(models), cfg.LLM.Model, strings.Join(head(models, 8), ", ")))
		}
	}
	pctx, cancel := context.WithTimeout(ctx, timeout)
	resp, err := assemble.ProbeModel(pctx, cfg)
	cancel()
	if err != nil {
		e.Error = err.Error()
		c.Status = Fail
		c.Summary = fmt.Sprintf("%s did not take a one-token request with a tool over %s: %v", cfg.LLM.Model, api, err)
		var le *agent.LLMError
		if errors.As(err, &le) && (le.Status == 401 || le.Status == 403) {
			c.Details = append(c.Details, "the endpoint refused the key: check AGENTLS_API_KEY (or OPENAI_API_KEY)")
		}
		return e, c
	}
	e.ToolCalls = true
	c.Status = OK
	c.Summary = fmt.Sprintf("%s answers %s over %s, tool calls accepted (a one-token request with a tool: finish %q)", cfg.LLM.BaseURL, cfg.LLM.Model, api, resp.FinishReason)
	if err == nil && !e.ModelListed && len(e.Models) > 0 {
		c.Status = Warn
	}
	return e, c
}

func head(s []string, n int) []string {
	if len(s) > n {
		return append(slices.Clip(s[:n]), "…")
	}
	return s
}

// unreachable tells a transport failure (nothing answered) from an
// answer the endpoint gave. ListModels words its errors ("GET url: …"),
// so it is told by their text.
func unreachable(err error) bool {
	msg := err.Error()
	for _, s := range []string{"connection refused", "no such host", "i/o timeout", "deadline exceeded",
		"network is unreachable", "connection reset", "no route to host", "EOF", "server misbehaving"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// sandboxCheck says what the sandbox enforces here, from the settings and
// from probing the machine.
func sandboxCheck(ctx context.Context, cfg config.Config) (Sandbox, Check) {
	s := Sandbox{Mode: cfg.Sandbox.Mode, Network: cfg.Sandbox.Network}
	pctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	s.Machine = proc.Probe(pctx)
	cancel()
	m := s.Machine
	c := Check{Name: "sandbox"}
	landlock := fmt.Sprintf("Landlock ABI %d", m.LandlockABI)
	if m.LandlockErr != "" {
		landlock = "Landlock: " + m.LandlockErr
	}
	ns := "user namespaces: yes"
	if !m.UserNamespaces {
		ns = "user namespaces: no (" + m.UserNamespacesWhy + ")"
	}
	cg := "cgroups: pids.max in " + m.PidsCgroup
	if m.PidsCgroup == "" {
		cg = "cgroups: none agentls may use (RLIMIT_NPROC instead)"
	}
	ov := "overlayfs: view and cache layers mount"
	if !m.Overlay {
		ov = "overlayfs: " + m.OverlayWhy
	}
	c.Details = []string{landlock + fmt.Sprintf(" (needs %d)", m.MinABI), ns, ov, cg}
	switch {
	case cfg.Sandbox.Mode == proc.ModeOff:
		c.Status, c.Summary = Warn, "off (sandbox.mode): commands, checks and MCP servers run unconfined, as you set"
		s.NotEnforced = append(s.NotEnforced, "everything: sandbox.mode is off")
		return s, c
	case !m.Available:
		c.Status = Fail
		c.Summary = "unavailable here (" + m.Why + "): every command and check is asked about before it runs, and refused where nobody can answer (agentls run without a terminal); see docs/security.md#where-the-sandbox-is-unavailable"
		s.NotEnforced = append(s.NotEnforced, "the whole sandbox: "+m.Why)
		return s, c
	}
	s.Enforced = append(s.Enforced,
		"writes only to the workspace, the temp directory, sandbox.writableRoots and copy-on-write caches ("+cfg.Sandbox.Mode+")",
		"credentials and secret files read as empty",
		"own PID, mount and network namespaces")
	if cfg.Sandbox.Network {
		s.NotEnforced = append(s.NotEnforced, "network: sandbox.network is true")
	} else {
		s.Enforced = append(s.Enforced, "no network")
	}
	if m.LandlockABI >= 9 {
		s.Enforced = append(s.Enforced, "Unix sockets by path confined")
	} else {
		s.NotEnforced = append(s.NotEnforced, "Unix sockets reached by path (ssh-agent, Docker) stay reachable below Landlock ABI 9")
	}
	if m.PidsCgroup != "" {
		s.Enforced = append(s.Enforced, fmt.Sprintf("at most %d processes (a cgroup's pids.max)", proc.DefaultMaxProcs))
	} else {
		s.Enforced = append(s.Enforced, fmt.Sprintf("at most %d processes (RLIMIT_NPROC; not for root)", proc.DefaultMaxProcs))
	}
	c.Status = OK
	if !m.Overlay {
		c.Status = Warn
		s.NotEnforced = append(s.NotEnforced, "the checks' overlay view: "+m.OverlayWhy)
	}
	c.Summary = "enforced: " + strings.Join(s.Enforced, "; ")
	if len(s.NotEnforced) > 0 {
		c.Details = append(c.Details, "not enforced: "+strings.Join(s.NotEnforced, "; "))
	}
	return s, c
}

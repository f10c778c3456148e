package acpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/zap"

	"github.com/agentls/agentls/internal/approval"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/session"
)

// setup opens the external session: initialize, authenticate with a
// method the agent offers, then the agentls session's external session
// again (session/resume, else session/load) when the agent offers either
// and this is a follow-up, else session/new; then the model and mode
// agent.backend.acp picks. env is the agent's environment.
func (r *bridgeRun) setup(ctx context.Context, env []string) error {
	init, err := r.conn.Initialize(ctx, sdk.InitializeRequest{
		ProtocolVersion:    sdk.ProtocolVersionNumber,
		ClientInfo:         &sdk.Implementation{Name: "agentls", Version: "bridge"},
		ClientCapabilities: sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}},
	})
	if err != nil {
		return fmt.Errorf("the ACP agent %q did not initialize: %v", r.b.Agent.Command, err)
	}
	authed, err := r.authenticate(ctx, init.AuthMethods, env, false)
	if err != nil {
		return err
	}
	servers := mcpServers(r.b.MCPServers)
	caps := init.AgentCapabilities
	var opts []sdk.SessionConfigOption
	var modes *sdk.SessionModeState
	var models *sdk.SessionModelState
	if prev := r.previous(); prev != "" {
		switch {
		case caps.SessionCapabilities.Resume != nil:
			res, err := r.conn.ResumeSession(ctx, sdk.ResumeSessionRequest{SessionId: sdk.SessionId(prev), Cwd: r.b.Root, McpServers: servers})
			if err == nil {
				r.sid, opts, modes, models = sdk.SessionId(prev), res.ConfigOptions, res.Modes, res.Models
			} else {
				r.b.Log.Info("session/resume failed; a new external session", zap.Error(err))
			}
		case caps.LoadSession:
			r.replaying.Store(true)
			res, err := r.conn.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: sdk.SessionId(prev), Cwd: r.b.Root, McpServers: servers})
			r.replaying.Store(false)
			if err == nil {
				r.sid, opts, modes, models = sdk.SessionId(prev), res.ConfigOptions, res.Modes, res.Models
			} else {
				r.b.Log.Info("session/load failed; a new external session", zap.Error(err))
			}
		}
	}
	if r.sid == "" {
		req := sdk.NewSessionRequest{Cwd: r.b.Root, McpServers: servers}
		s, err := r.conn.NewSession(ctx, req)
		if isAuthRequired(err) && !authed {
			// The agent wants a sign-in no environment variable gave: the
			// user is asked about the agent's own method.
			if authed, err = r.authenticate(ctx, init.AuthMethods, env, true); err != nil {
				return err
			}
			if authed {
				s, err = r.conn.NewSession(ctx, req)
			}
		}
		if err != nil {
			return fmt.Errorf("session/new: %v", err)
		}
		r.sid, opts, modes, models = s.SessionId, s.ConfigOptions, s.Modes, s.Models
	}
	r.remember()
	r.noteOptions(opts)
	r.noteModes(modes)
	r.noteModels(models)
	if err := r.pick(ctx, opts, modes); err != nil {
		return err
	}
	r.emitOptions() // held for the first turn: no turn is running yet
	return nil
}

// isAuthRequired: the agent answered "authentication required" (-32000).
func isAuthRequired(err error) bool {
	var re *sdk.RequestError
	return errors.As(err, &re) && re.Code == -32000
}

// authenticate signs in with a method the agent offers: an environment
// variable method whose variables the agent's environment has, without a
// question; with ask, else, the agent's own method (it opens a browser, or
// reads its own files) once the user allowed it. Terminal methods need a
// terminal the bridge does not have. done: authenticate succeeded.
func (r *bridgeRun) authenticate(ctx context.Context, methods []sdk.AuthMethod, env []string, ask bool) (done bool, err error) {
	have := map[string]bool{}
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && v != "" {
			have[k] = true
		}
	}
	try := func(id string) (bool, error) {
		if _, err := r.conn.Authenticate(ctx, sdk.AuthenticateRequest{MethodId: id}); err != nil {
			return false, fmt.Errorf("authenticate with %q: %v", id, err)
		}
		return true, nil
	}
	for _, m := range methods {
		if m.EnvVar == nil || len(m.EnvVar.Vars) == 0 {
			continue
		}
		ok := true
		for _, v := range m.EnvVar.Vars {
			if !v.Optional && !have[v.Name] {
				ok = false
			}
		}
		if ok {
			return try(m.EnvVar.Id)
		}
	}
	if !ask {
		return false, nil
	}
	for _, m := range methods {
		if m.Agent == nil {
			continue
		}
		if r.b.Ask == nil {
			return false, fmt.Errorf("the ACP agent %q needs a sign-in (%s) and there is no way to ask the user; set its key in agent.backend.acp.env", r.b.Agent.Command, m.Agent.Name)
		}
		ans, err := r.b.Ask(ctx, "sign in to "+r.b.Agent.Command+" ("+m.Agent.Name+")", "the ACP agent needs it before it can start a session")
		if err != nil || (ans != approval.AllowOnce && ans != approval.AllowAlways) {
			return false, fmt.Errorf("the ACP agent %q needs a sign-in (%s), which was not allowed", r.b.Agent.Command, m.Agent.Name)
		}
		return try(m.Agent.Id)
	}
	var names []string
	for _, m := range methods {
		if m.EnvVar != nil {
			for _, v := range m.EnvVar.Vars {
				names = append(names, v.Name)
			}
		}
	}
	if len(names) > 0 {
		return false, fmt.Errorf("the ACP agent %q needs a sign-in: set %s in agent.backend.acp.env", r.b.Agent.Command, strings.Join(names, " or "))
	}
	return false, nil
}

// mcpServers are the user's MCP servers in ACP's form, for the external
// agent to start. They run as the agent runs them (its own sandbox, if
// any), not in agentls's.
func mcpServers(cfg map[string]config.MCPServer) []sdk.McpServer {
	out := []sdk.McpServer{}
	names := make([]string, 0, len(cfg))
	for n := range cfg {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		s := cfg[n]
		switch {
		case s.Command != "":
			env := []sdk.EnvVariable{}
			for k, v := range s.Env {
				env = append(env, sdk.EnvVariable{Name: k, Value: v})
			}
			slices.SortFunc(env, func(a, b sdk.EnvVariable) int { return strings.Compare(a.Name, b.Name) })
			args := s.Args
			if args == nil {
				args = []string{}
			}
			out = append(out, sdk.McpServer{Stdio: &sdk.McpServerStdio{Name: n, Command: s.Command, Args: args, Env: env}})
		case s.URL != "":
			out = append(out, sdk.McpServer{Http: &sdk.McpServerHttpInline{Name: n, Type: "http", Url: s.URL, Headers: []sdk.HttpHeader{}}})
		}
	}
	return out
}

// The external session of each agentls session, per workspace, so that a
// follow-up (agentls.continue) goes on in the agent's own context.
type bridgeSessions map[string]struct {
	Agent   string `json:"agent"`
	Session string `json:"session"`
}

func (r *bridgeRun) sessionsFile() string {
	dir, err := session.StateDir()
	if err != nil {
		return ""
	}
	return filepath.Join(session.WorkspaceDir(dir, r.b.Root), "acp-bridge.json")
}

func (r *bridgeRun) readSessions() bridgeSessions {
	m := bridgeSessions{}
	if f := r.sessionsFile(); f != "" {
		if b, err := os.ReadFile(f); err == nil {
			_ = json.Unmarshal(b, &m)
		}
	}
	return m
}

// previous is the external session of this task's agentls session, when
// the same agent command had one.
func (r *bridgeRun) previous() string {
	if r.b.Session == nil {
		return ""
	}
	e, ok := r.readSessions()[r.b.Session.Session()]
	if !ok || e.Agent != r.b.Agent.Command {
		return ""
	}
	return e.Session
}

// remember records the external session of this task's agentls session.
func (r *bridgeRun) remember() {
	f := r.sessionsFile()
	if r.b.Session == nil || f == "" {
		return
	}
	m := r.readSessions()
	m[r.b.Session.Session()] = struct {
		Agent   string `json:"agent"`
		Session string `json:"session"`
	}{r.b.Agent.Command, string(r.sid)}
	b, err := json.Marshal(m)
	if err != nil {
		return
	}
	tmp := f + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err == nil {
		_ = os.Rename(tmp, f)
	}
}

// pick sets the model and mode agent.backend.acp names: through a config
// option of that category when the agent has one, else session/set_model
// (older agents) or session/set_mode. A value the agent does not offer is
// an error naming what it offers.
func (r *bridgeRun) pick(ctx context.Context, opts []sdk.SessionConfigOption, modes *sdk.SessionModeState) error {
	set := func(cat sdk.SessionConfigOptionCategory, want string) (bool, error) {
		for _, o := range opts {
			if o.Select == nil || o.Select.Category == nil || *o.Select.Category != cat {
				continue
			}
			var values []string
			if o.Select.Options.Ungrouped != nil {
				for _, v := range *o.Select.Options.Ungrouped {
					values = append(values, string(v.Value))
				}
			}
			if o.Select.Options.Grouped != nil {
				for _, g := range *o.Select.Options.Grouped {
					for _, v := range g.Options {
						values = append(values, string(v.Value))
					}
				}
			}
			if !slices.Contains(values, want) {
				return true, fmt.Errorf("the ACP agent has no %s %q (it offers %s)", cat, want, strings.Join(values, ", "))
			}
			res, err := r.conn.SetSessionConfigOption(ctx, sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{
				SessionId: r.sid, ConfigId: o.Select.Id, Value: sdk.SessionConfigValueId(want)}})
			if err != nil {
				return true, fmt.Errorf("setting the ACP agent's %s to %q: %v", cat, want, err)
			}
			if res.ConfigOptions != nil {
				r.noteOptions(res.ConfigOptions)
			}
			return true, nil
		}
		return false, nil
	}
	if m := r.b.Agent.Model; m != "" {
		done, err := set(sdk.SessionConfigOptionCategoryModel, m)
		if err != nil {
			return err
		}
		if !done {
			if _, err := r.conn.UnstableSetSessionModel(ctx, sdk.UnstableSetSessionModelRequest{SessionId: r.sid, ModelId: sdk.UnstableModelId(m)}); err != nil {
				return fmt.Errorf("the ACP agent offers no model choice (%v)", err)
			}
			r.noteModel(m)
		}
	}
	if m := r.b.Agent.Mode; m != "" {
		done, err := set(sdk.SessionConfigOptionCategoryMode, m)
		if err != nil {
			return err
		}
		if !done {
			if modes == nil {
				return fmt.Errorf("the ACP agent offers no modes")
			}
			var ids []string
			for _, md := range modes.AvailableModes {
				ids = append(ids, string(md.Id))
			}
			if !slices.Contains(ids, m) {
				return fmt.Errorf("the ACP agent has no mode %q (it offers %s)", m, strings.Join(ids, ", "))
			}
			if _, err := r.conn.SetSessionMode(ctx, sdk.SetSessionModeRequest{SessionId: r.sid, ModeId: sdk.SessionModeId(m)}); err != nil {
				return fmt.Errorf("setting the ACP agent's mode to %q: %v", m, err)
			}
			r.noteMode(m)
		}
	}
	return nil
}

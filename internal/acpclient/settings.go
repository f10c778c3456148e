package acpclient

import (
	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/zap"

	"github.com/agentls/agentls/internal/agent"
)

// The external agent's slash commands and session settings, forwarded to
// the editor as agentls's commands and options events: what a prompt
// "/name" runs there, and what agent.backend.acp.model and .mode choose
// among.

// agentCommands are the agent's available commands as agentls's own.
func agentCommands(cmds []sdk.AvailableCommand) []agent.AgentCommand {
	out := make([]agent.AgentCommand, 0, len(cmds))
	for _, c := range cmds {
		ac := agent.AgentCommand{Name: c.Name, Description: c.Description}
		if c.Input != nil && c.Input.Unstructured != nil {
			ac.Hint = c.Input.Unstructured.Hint
		}
		out = append(out, ac)
	}
	return out
}

// agentOptions are the agent's config options as agentls's own: a select
// with its values (grouped ones flattened), a boolean as "true"/"false".
func agentOptions(opts []sdk.SessionConfigOption) []agent.AgentOption {
	out := make([]agent.AgentOption, 0, len(opts))
	for _, o := range opts {
		switch {
		case o.Select != nil:
			s := o.Select
			ao := agent.AgentOption{ID: string(s.Id), Name: s.Name, Current: string(s.CurrentValue)}
			if s.Category != nil {
				ao.Category = string(*s.Category)
			}
			if s.Options.Ungrouped != nil {
				for _, v := range *s.Options.Ungrouped {
					ao.Values = append(ao.Values, string(v.Value))
				}
			}
			if s.Options.Grouped != nil {
				for _, g := range *s.Options.Grouped {
					for _, v := range g.Options {
						ao.Values = append(ao.Values, string(v.Value))
					}
				}
			}
			out = append(out, ao)
		case o.Boolean != nil:
			b := o.Boolean
			ao := agent.AgentOption{ID: string(b.Id), Name: b.Name, Current: "false", Values: []string{"false", "true"}}
			if b.CurrentValue {
				ao.Current = "true"
			}
			if b.Category != nil {
				ao.Category = string(*b.Category)
			}
			out = append(out, ao)
		}
	}
	return out
}

// noteOptions keeps the agent's config options as it last sent them.
func (r *bridgeRun) noteOptions(opts []sdk.SessionConfigOption) {
	ao := agentOptions(opts)
	r.mu.Lock()
	r.options = ao
	r.mu.Unlock()
}

// noteModes keeps the agent's modes (the older way to offer them).
func (r *bridgeRun) noteModes(m *sdk.SessionModeState) {
	if m == nil {
		return
	}
	o := &agent.AgentOption{ID: "mode", Name: "Mode", Category: string(sdk.SessionConfigOptionCategoryMode), Current: string(m.CurrentModeId)}
	for _, md := range m.AvailableModes {
		o.Values = append(o.Values, string(md.Id))
	}
	r.mu.Lock()
	r.mode = o
	r.mu.Unlock()
}

// noteModels keeps the agent's models as older agents offer them (a
// "models" state picked with session/set_model).
func (r *bridgeRun) noteModels(m *sdk.SessionModelState) {
	if m == nil {
		return
	}
	o := &agent.AgentOption{ID: "model", Name: "Model", Category: string(sdk.SessionConfigOptionCategoryModel), Current: string(m.CurrentModelId)}
	for _, md := range m.AvailableModels {
		o.Values = append(o.Values, string(md.ModelId))
	}
	r.mu.Lock()
	r.model = o
	r.mu.Unlock()
}

// noteModel records the agent's current model (set with session/set_model).
func (r *bridgeRun) noteModel(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.model != nil {
		r.model.Current = id
	}
}

// noteMode records the agent's current mode.
func (r *bridgeRun) noteMode(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.mode != nil {
		r.mode.Current = id
	}
}

// emitOptions sends the agent's settings as an options event: its config
// options, and its models and modes unless a config option of that
// category stands for them.
func (r *bridgeRun) emitOptions() {
	r.mu.Lock()
	out := append([]agent.AgentOption(nil), r.options...)
	has := map[string]bool{}
	for _, o := range out {
		has[o.Category] = true
	}
	for _, o := range []*agent.AgentOption{r.model, r.mode} {
		if o != nil && !has[o.Category] {
			c := *o
			c.Values = append([]string(nil), o.Values...)
			out = append(out, c)
		}
	}
	r.mu.Unlock()
	if len(out) == 0 {
		return
	}
	for _, o := range out {
		r.b.Log.Info("the ACP agent's option", zap.String("id", o.ID), zap.String("current", o.Current), zap.Strings("values", o.Values))
	}
	r.emitHeld(agent.Event{Kind: agent.KindOptions, Options: out})
}

// emitHeld sends a commands or options event to the running turn, or,
// between turns, holds the latest of its kind for the next one.
func (r *bridgeRun) emitHeld(ev agent.Event) {
	r.mu.Lock()
	onEvent := r.onEvent
	if onEvent == nil {
		if r.held == nil {
			r.held = map[string]agent.Event{}
		}
		r.held[ev.Kind] = ev
	}
	r.mu.Unlock()
	if onEvent != nil {
		onEvent(ev)
	}
}

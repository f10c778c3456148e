package acp

import (
	"context"
	"fmt"
	"slices"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/zap"

	"github.com/agentls/agentls/internal/assemble"
	"github.com/agentls/agentls/internal/config"
)

// A session's config options (ACP's replacement for session/set_model and
// modes): the model, from the endpoint's list, as agentls.models gives it
// to an editor; the reasoning effort; review on or off, which is also the
// session's mode.
const (
	optModel  = "model"
	optEffort = "reasoning_effort"
	optMode   = "mode"

	effortDefault = "default" // the configured llm.reasoningEffort
)

// efforts are llm.reasoningEffort's values.
var efforts = []string{"none", "minimal", "low", "medium", "high", "xhigh", "max"}

// modelsTimeout bounds the model list's request at session set-up.
const modelsTimeout = 3 * time.Second

// models returns the endpoint's models, asked once per connection and
// endpoint; on failure only the configured model is offered.
func (a *Agent) models(cfg config.Config) []string {
	a.mu.Lock()
	list, ok := a.modelLists[cfg.LLM.BaseURL]
	a.mu.Unlock()
	if !ok {
		ctx, cancel := context.WithTimeout(context.Background(), modelsTimeout)
		var err error
		list, err = assemble.ListModels(ctx, cfg.LLM.BaseURL, cfg.LLM.APIKey)
		cancel()
		if err != nil {
			a.log.Info("the model list is not available", zap.String("error", cfg.Redact(err.Error())))
		}
		a.mu.Lock()
		a.modelLists[cfg.LLM.BaseURL] = list
		a.mu.Unlock()
	}
	if cfg.LLM.Model != "" && !slices.Contains(list, cfg.LLM.Model) {
		list = append([]string{cfg.LLM.Model}, list...)
	}
	return list
}

// configOptions are the session's options with their current values.
func (s *acpSession) configOptions() []sdk.SessionConfigOption {
	s.mu.Lock()
	model, effort, mode, models, configured := s.model, s.effort, s.mode, s.modelList, s.cfg.LLM.ReasoningEffort
	s.mu.Unlock()
	modelOpts := make(sdk.SessionConfigSelectOptionsUngrouped, 0, len(models))
	for _, m := range models {
		modelOpts = append(modelOpts, sdk.SessionConfigSelectOption{Name: m, Value: sdk.SessionConfigValueId(m)})
	}
	defDesc := "llm.reasoningEffort from the settings"
	if configured != "" {
		defDesc += " (" + configured + ")"
	}
	effortOpts := sdk.SessionConfigSelectOptionsUngrouped{{Name: "Default", Value: effortDefault, Description: &defDesc}}
	for _, e := range efforts {
		effortOpts = append(effortOpts, sdk.SessionConfigSelectOption{Name: e, Value: sdk.SessionConfigValueId(e)})
	}
	if effort == "" {
		effort = effortDefault
	}
	ask, apply := "Each edit is shown as a diff and asked about before it is written", "Edits are written as the agent makes them"
	modeOpts := sdk.SessionConfigSelectOptionsUngrouped{
		{Name: "Ask before edits", Value: modeAsk, Description: &ask},
		{Name: "Apply edits", Value: modeApply, Description: &apply},
	}
	cat := func(c sdk.SessionConfigOptionCategory) *sdk.SessionConfigOptionCategory { return &c }
	effortDesc := "Sent to reasoning models (the Responses API)"
	return []sdk.SessionConfigOption{
		{Select: &sdk.SessionConfigOptionSelect{Id: optModel, Name: "Model", Category: cat(sdk.SessionConfigOptionCategoryModel),
			CurrentValue: sdk.SessionConfigValueId(model), Options: sdk.SessionConfigSelectOptions{Ungrouped: &modelOpts}}},
		{Select: &sdk.SessionConfigOptionSelect{Id: optEffort, Name: "Reasoning effort", Category: cat(sdk.SessionConfigOptionCategoryThoughtLevel),
			Description: &effortDesc, CurrentValue: sdk.SessionConfigValueId(effort), Options: sdk.SessionConfigSelectOptions{Ungrouped: &effortOpts}}},
		{Select: &sdk.SessionConfigOptionSelect{Id: optMode, Name: "Review", Category: cat(sdk.SessionConfigOptionCategoryMode),
			CurrentValue: sdk.SessionConfigValueId(mode), Options: sdk.SessionConfigSelectOptions{Ungrouped: &modeOpts}}},
	}
}

// setOption changes one option; it reports whether the mode changed.
func (s *acpSession) setOption(id, value string) (modeChanged bool, err error) {
	bad := func(what string, allowed []string) error {
		return sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("unknown %s %q", what, value), "allowed": allowed})
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch id {
	case optModel:
		if !slices.Contains(s.modelList, value) {
			return false, bad("model", s.modelList)
		}
		s.model = value
	case optEffort:
		if value == effortDefault {
			s.effort = ""
			return false, nil
		}
		if !slices.Contains(efforts, value) {
			return false, bad("reasoning effort", append([]string{effortDefault}, efforts...))
		}
		s.effort = value
	case optMode:
		if value != modeAsk && value != modeApply {
			return false, bad("mode", []string{modeAsk, modeApply})
		}
		modeChanged = s.mode != value
		s.mode = value
	default:
		return false, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("unknown config option %q (model, reasoning_effort, mode)", id)})
	}
	return modeChanged, nil
}

// taskConfig is the session's configuration with its options applied, for
// one prompt.
func (s *acpSession) taskConfig() config.Config {
	s.mu.Lock()
	defer s.mu.Unlock()
	cfg := s.cfg
	if s.model != "" {
		cfg.LLM.Model = s.model
	}
	if s.effort != "" {
		cfg.LLM.ReasoningEffort = s.effort
	}
	// The session's additionalDirectories are declared, read-only, for
	// its sandboxed commands.
	cfg.Sandbox.AllowRead = append(append([]string(nil), cfg.Sandbox.AllowRead...), s.extraDirs...)
	return cfg
}

// SetSessionConfigOption implements sdk.Agent.
func (a *Agent) SetSessionConfigOption(_ context.Context, p sdk.SetSessionConfigOptionRequest) (_ sdk.SetSessionConfigOptionResponse, err error) {
	defer barrier(a.log, "session/set_config_option", &err)
	if p.ValueId == nil {
		return sdk.SetSessionConfigOptionResponse{}, sdk.NewInvalidParams(map[string]any{"error": "agentls's options take a value id, not a boolean"})
	}
	s, err := a.session(p.ValueId.SessionId)
	if err != nil {
		return sdk.SetSessionConfigOptionResponse{}, err
	}
	modeChanged, err := s.setOption(string(p.ValueId.ConfigId), string(p.ValueId.Value))
	if err != nil {
		return sdk.SetSessionConfigOptionResponse{}, err
	}
	a.optionsChanged(s, modeChanged)
	return sdk.SetSessionConfigOptionResponse{ConfigOptions: s.configOptions()}, nil
}

// UnstableSetSessionModel is session/set_model, which ACP removed in favour
// of the model config option; older clients still send it.
func (a *Agent) UnstableSetSessionModel(_ context.Context, p sdk.UnstableSetSessionModelRequest) (_ sdk.UnstableSetSessionModelResponse, err error) {
	defer barrier(a.log, "session/set_model", &err)
	s, err := a.session(p.SessionId)
	if err != nil {
		return sdk.UnstableSetSessionModelResponse{}, err
	}
	if _, err := s.setOption(optModel, string(p.ModelId)); err != nil {
		return sdk.UnstableSetSessionModelResponse{}, err
	}
	a.optionsChanged(s, false)
	return sdk.UnstableSetSessionModelResponse{}, nil
}

// optionsChanged tells the client the options' new values
// (config_option_update), and the mode when it changed.
func (a *Agent) optionsChanged(s *acpSession, modeChanged bool) {
	out := a.newStream(s)
	out.send(sdk.SessionUpdate{ConfigOptionUpdate: &sdk.SessionConfigOptionUpdate{ConfigOptions: s.configOptions()}})
	if modeChanged {
		s.mu.Lock()
		mode := s.mode
		s.mu.Unlock()
		out.send(sdk.SessionUpdate{CurrentModeUpdate: &sdk.SessionCurrentModeUpdate{CurrentModeId: sdk.SessionModeId(mode)}})
	}
}

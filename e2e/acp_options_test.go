package e2e

import (
	"testing"

	sdk "github.com/coder/acp-go-sdk"
)

func selectOption(opts []sdk.SessionConfigOption, id string) *sdk.SessionConfigOptionSelect {
	for _, o := range opts {
		if o.Select != nil && string(o.Select.Id) == id {
			return o.Select
		}
	}
	return nil
}

func optionValues(o *sdk.SessionConfigOptionSelect) []string {
	var out []string
	if o != nil && o.Options.Ungrouped != nil {
		for _, v := range *o.Options.Ungrouped {
			out = append(out, string(v.Value))
		}
	}
	return out
}

// The session's config options: a model picker from the endpoint's list
// (category model, what Zed's picker shows), reasoning effort and review;
// a change answers with the options and is announced as
// config_option_update, and the next prompt asks the model picked. Before,
// session/new had no options and set_config_option was refused.
func TestACPConfigOptions(t *testing.T) {
	r := startACP(t, "hello", `{"models":["fake-a","fake-b"],"turns":[{"text":"done"}]}`, false, nil)
	s, err := r.NewSession(r.ctx, sdk.NewSessionRequest{Cwd: r.root, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	model := selectOption(s.ConfigOptions, "model")
	if model == nil || model.Category == nil || *model.Category != sdk.SessionConfigOptionCategoryModel || model.CurrentValue != "test-model" {
		t.Fatalf("model option %+v", model)
	}
	if got := optionValues(model); len(got) != 3 || got[0] != "test-model" || got[1] != "fake-a" || got[2] != "fake-b" {
		t.Errorf("models offered %v, want the configured one and the endpoint's", got)
	}
	if e := selectOption(s.ConfigOptions, "reasoning_effort"); e == nil || e.CurrentValue != "default" || len(optionValues(e)) < 4 {
		t.Errorf("reasoning effort option %+v", e)
	}
	if m := selectOption(s.ConfigOptions, "mode"); m == nil || m.CurrentValue != "apply" {
		t.Errorf("review option %+v", m)
	}
	set := func(id, value string) (sdk.SetSessionConfigOptionResponse, error) {
		return r.SetSessionConfigOption(r.ctx, sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{
			SessionId: s.SessionId, ConfigId: sdk.SessionConfigId(id), Value: sdk.SessionConfigValueId(value)}})
	}
	res, err := set("model", "fake-b")
	if err != nil {
		t.Fatalf("set model: %v", err)
	}
	if m := selectOption(res.ConfigOptions, "model"); m == nil || m.CurrentValue != "fake-b" {
		t.Errorf("after set model: %+v", m)
	}
	if _, err := set("model", "no-such-model"); err == nil {
		t.Errorf("an unknown model was accepted")
	}
	if _, err := set("reasoning_effort", "high"); err != nil {
		t.Errorf("set effort: %v", err)
	}
	if _, err := set("mode", "ask"); err != nil {
		t.Errorf("set mode option: %v", err)
	}
	if _, err := r.SetSessionMode(r.ctx, sdk.SetSessionModeRequest{SessionId: s.SessionId, ModeId: "apply"}); err != nil {
		t.Errorf("set_mode: %v", err)
	}
	var updates, modeUpdates []string
	for _, u := range r.client.snapshot() {
		if u.ConfigOptionUpdate != nil {
			updates = append(updates, string(selectOption(u.ConfigOptionUpdate.ConfigOptions, "model").CurrentValue)+"/"+
				string(selectOption(u.ConfigOptionUpdate.ConfigOptions, "mode").CurrentValue))
		}
		if u.CurrentModeUpdate != nil {
			modeUpdates = append(modeUpdates, string(u.CurrentModeUpdate.CurrentModeId))
		}
	}
	if len(updates) != 4 || updates[0] != "fake-b/apply" || updates[2] != "fake-b/ask" || updates[3] != "fake-b/apply" {
		t.Errorf("config_option_update (model/mode): %v", updates)
	}
	if len(modeUpdates) != 1 || modeUpdates[0] != "ask" {
		t.Errorf("current_mode_update: %v", modeUpdates)
	}
	if res := r.prompt(t, s.SessionId, "hi"); res.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("stop reason %q", res.StopReason)
	}
	reqs := r.llm.Requests()
	if len(reqs) != 1 || reqs[0].Body.Model != "fake-b" {
		t.Errorf("the model was asked as %q, want fake-b", reqs[0].Body.Model)
	}
	// Resumed by another agentls process, the session goes on with the
	// model its last task used, and its title.
	r2 := connectACP(t, r.ctx, r.root, r.llm, r.llm.URL(), r.state, `{"verify":{"enabled":false}}`, false)
	res2, err := r2.ResumeSession(r.ctx, sdk.ResumeSessionRequest{SessionId: s.SessionId, Cwd: r.root, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if m := selectOption(res2.ConfigOptions, "model"); m == nil || m.CurrentValue != "fake-b" {
		t.Errorf("after resume in a new process, model %+v, want fake-b", m)
	}
	u := r2.waitUpdate(t, "session_info_update", func(u sdk.SessionUpdate) bool { return u.SessionInfoUpdate != nil })
	if u.SessionInfoUpdate.Title == nil || *u.SessionInfoUpdate.Title != "hi" {
		t.Errorf("title after resume %+v", u.SessionInfoUpdate)
	}
}

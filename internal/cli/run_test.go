package cli

import (
	"slices"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/config"
)

func TestFlagsOverTheConfiguration(t *testing.T) {
	cfg := config.Defaults()
	cfg.Tools.Allow = []string{"go test"}
	o := runOptions{model: "m2", baseURL: "http://x/v1", maxSteps: 7, noVerify: true, allow: []string{"make"}}
	got := o.apply(cfg)
	if got.LLM.Model != "m2" || got.LLM.BaseURL != "http://x/v1" || got.Agent.MaxSteps != 7 || got.Verify.Enabled {
		t.Errorf("apply = %+v %+v", got.LLM, got.Agent)
	}
	if !slices.Equal(got.Tools.Allow, []string{"go test", "make"}) || len(cfg.Tools.Allow) != 1 {
		t.Errorf("allow = %v (the configuration's %v must not change)", got.Tools.Allow, cfg.Tools.Allow)
	}
	if same := (runOptions{}).apply(cfg); same.LLM.Model != cfg.LLM.Model || same.LLM.BaseURL != cfg.LLM.BaseURL || same.Agent.MaxSteps != cfg.Agent.MaxSteps {
		t.Error("no flags changed the configuration")
	}
}

func TestReviewMode(t *testing.T) {
	on := config.Defaults()
	on.Agent.Review = true
	off := config.Defaults()
	for _, c := range []struct {
		name     string
		o        runOptions
		cfg      config.Config
		terminal bool
		want     bool
		err      string
	}{
		{"default", runOptions{}, off, true, false, ""},
		{"flag", runOptions{review: true, reviewSet: true}, off, true, true, ""},
		{"config", runOptions{}, on, true, true, ""},
		{"flag off wins", runOptions{reviewSet: true}, on, true, false, ""},
		{"dry run wins over config", runOptions{dryRun: true}, on, false, false, ""},
		{"flag needs a terminal", runOptions{review: true, reviewSet: true}, off, false, false, "--review asks"},
		{"config needs a terminal", runOptions{}, on, false, false, "agent.review is true"},
	} {
		got, err := c.o.reviewMode(c.cfg, c.terminal)
		if got != c.want || (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: %v, %v; want %v, %q", c.name, got, err, c.want, c.err)
		}
	}
}

func TestReviewedSaysWhatLanded(t *testing.T) {
	failed := agent.Result{Status: agent.StatusOK, Reason: "verifyFailed", Verified: false, FilesChanged: []string{"a", "b"}}
	if r := reviewed(failed, nil); r.Reason != "done" || len(r.FilesChanged) != 0 || exitCode(r) != exitOK {
		t.Errorf("nothing written: %+v (exit %d)", r, exitCode(r))
	}
	ok := agent.Result{Status: agent.StatusOK, Reason: "done", Verified: true, FilesChanged: []string{"a", "b"}}
	if r := reviewed(ok, []string{"a"}); !r.Verified || !slices.Equal(r.FilesChanged, []string{"a"}) {
		t.Errorf("one written: %+v", r)
	}
	if r := reviewed(failed, []string{"a"}); r.Reason != "verifyFailed" || exitCode(r) != exitFailed {
		t.Errorf("written and failing: %+v", r)
	}
	cancelled := agent.Result{Status: agent.StatusCancelled, Cancelled: true, Reason: "cancelled"}
	if r := reviewed(cancelled, nil); exitCode(r) != exitCancelled {
		t.Errorf("cancelled: exit %d", exitCode(r))
	}
}

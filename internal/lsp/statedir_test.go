package lsp

import (
	"path/filepath"
	"testing"
)

// The server keeps its state (sessions, reviews, the trust store) where
// agentls trust and agentls run do: a relative XDG_STATE_HOME is ignored,
// as the XDG spec asks, so a file trusted with agentls trust is trusted
// in the editor too.
func TestStateDirIsTheCLIs(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	for xdg, want := range map[string]string{
		"/xdg/state": "/xdg/state/agentls",
		"relative":   filepath.Join(home, ".local", "state", "agentls"),
		"":           filepath.Join(home, ".local", "state", "agentls"),
	} {
		s := newServer(Options{Getenv: func(k string) string {
			if k == "XDG_STATE_HOME" {
				return xdg
			}
			return ""
		}})
		if got := s.stateDir; got != want {
			t.Errorf("XDG_STATE_HOME=%q: state in %s, want %s", xdg, got, want)
		}
	}
}

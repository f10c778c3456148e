package doctor

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
)

// Editor is whether one editor's agentls set-up was found, and where.
type Editor struct {
	Editor string `json:"editor"`
	Found  bool   `json:"found"`
	Where  string `json:"where,omitempty"`
}

// editorsCheck looks where each editor keeps plugins and settings for an
// agentls plugin, or a set-up naming agentls. Finding none is no fault
// (agentls run and ACP clients need none), so the check only informs.
func editorsCheck(home string, getenv func(string) string) ([]Editor, Check) {
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	xdg := func(env, def string) string {
		if d := getenv(env); filepath.IsAbs(d) {
			return d
		}
		return filepath.Join(home, def)
	}
	data, conf := xdg("XDG_DATA_HOME", ".local/share"), xdg("XDG_CONFIG_HOME", ".config")
	type place struct {
		editor string
		globs  []string // a directory or file whose name says agentls
		files  []string // files whose text names agentls
	}
	places := []place{
		{"neovim", []string{
			data + "/nvim/site/pack/*/start/*agentls*", data + "/nvim/site/pack/*/opt/*agentls*",
			data + "/nvim/lazy/*agentls*", data + "/nvim/site/pack/*/start/*/lua/agentls",
		}, []string{conf + "/nvim/init.lua", conf + "/nvim/init.vim", conf + "/nvim/lua/plugins/*.lua", conf + "/nvim/lua/*.lua"}},
		{"vscode", []string{
			home + "/.vscode/extensions/*agentls*", home + "/.vscode-server/extensions/*agentls*",
			home + "/.vscode-oss/extensions/*agentls*", data + "/code-server/extensions/*agentls*",
		}, nil},
		{"emacs", []string{home + "/.emacs.d/*/agentls.el", home + "/.emacs.d/*/*/agentls.el", conf + "/emacs/*/agentls.el", conf + "/emacs/*/*/agentls.el"},
			[]string{home + "/.emacs", home + "/.emacs.el", home + "/.emacs.d/init.el", conf + "/emacs/init.el"}},
		{"helix", nil, []string{conf + "/helix/languages.toml"}},
		{"zed", nil, []string{conf + "/zed/settings.json"}},
		{"jetbrains", nil, []string{home + "/.jetbrains/acp.json"}},
	}
	var out []Editor
	var found []string
	for _, p := range places {
		e := Editor{Editor: p.editor}
		for _, g := range p.globs {
			if m, _ := filepath.Glob(g); len(m) > 0 {
				e.Found, e.Where = true, m[0]
				break
			}
		}
		for _, g := range p.files {
			if e.Found {
				break
			}
			m, _ := filepath.Glob(g)
			for _, f := range m {
				if names(f) {
					e.Found, e.Where = true, f
					break
				}
			}
		}
		if e.Found {
			found = append(found, e.Editor+" ("+e.Where+")")
		}
		out = append(out, e)
	}
	c := Check{Name: "editors", Status: Info, Summary: "no editor's agentls set-up found in " + home + " (agentls run and ACP clients need none; editors/ has each one's)"}
	if len(found) > 0 {
		c.Summary = "found: " + strings.Join(found, "; ")
	}
	return out, c
}

// names reports whether a small regular file's text names agentls.
func names(path string) bool {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > 1<<20 {
		return false
	}
	b, err := os.ReadFile(path)
	return err == nil && bytes.Contains(b, []byte("agentls"))
}

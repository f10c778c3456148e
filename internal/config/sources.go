package config

// The sources of settings (editor JSON, the workspace file, the
// environment) and their layering over the defaults.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
)

// FromJSON flattens a settings object (the value of settings.agentls, or an
// .agentls.json file) into a Source. Both nested ({"llm":{"model":…}}) and
// dotted ({"llm.model":…}) spellings are accepted.
func FromJSON(name string, data []byte) (Source, []Problem) {
	src := Source{Name: name, Values: map[string]json.RawMessage{}}
	if len(bytes.TrimSpace(data)) == 0 || string(bytes.TrimSpace(data)) == "null" {
		return src, nil
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return src, []Problem{{Key: "(all)", Source: name, Msg: syntaxProblem(data, err)}}
	}
	probs := flatten(name, "", top, src.Values)
	for k := range src.Values {
		if !known[k] {
			probs = append(probs, Problem{Key: k, Source: name, Msg: unknownMsg(data, k)})
			delete(src.Values, k)
		}
	}
	sort.Slice(probs, func(i, j int) bool { return probs[i].Key < probs[j].Key })
	return src, probs
}

// flatten descends into objects down to the known keys: the value of a
// known key is that setting's value even when it is an object (prices, MCP
// servers, or a mistake the setter reports under the key's name). Keys
// are visited in order, so a dotted spelling ("llm.model") comes after the
// nested one it repeats, and wins.
func flatten(source, prefix string, obj map[string]json.RawMessage, out map[string]json.RawMessage) []Problem {
	var probs []Problem
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := obj[k]
		key := k
		if prefix != "" {
			key = prefix + "." + k
		}
		var sub map[string]json.RawMessage
		if !known[key] && bytes.HasPrefix(bytes.TrimSpace(v), []byte("{")) && json.Unmarshal(v, &sub) == nil {
			probs = append(probs, flatten(source, key, sub, out)...)
			continue
		}
		if _, dup := out[key]; dup {
			probs = append(probs, Problem{Key: key, Source: source, Msg: "set twice (nested and dotted spelling); the dotted one is used"})
		}
		out[key] = v
	}
	return probs
}

// maxFileSize caps .agentls.json: settings are a few hundred bytes.
const maxFileSize = 1 << 20

// ReadFile reads a settings file the workspace holds (.agentls.json):
// opened without blocking and read only if it is a regular file of at most
// 1 MiB, so a named pipe, a device or a huge file in its place is a clear
// error rather than a hang or an allocation of its size. A missing file is
// an error that satisfies os.IsNotExist.
func ReadFile(p string) ([]byte, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s); it is ignored", p, fi.Mode().Type())
	}
	if fi.Size() > maxFileSize {
		return nil, fmt.Errorf("%s is %d bytes, more than settings can be (1 MiB); it is ignored", p, fi.Size())
	}
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxFileSize {
		return nil, fmt.Errorf("%s grew past 1 MiB while read; it is ignored", p)
	}
	return data, nil
}

// FromFile reads .agentls.json in root; a missing file is an empty source.
func FromFile(root string) (Source, []Problem) {
	p := filepath.Join(root, FileName)
	data, err := ReadFile(p)
	if os.IsNotExist(err) {
		return Source{Name: FileName}, nil
	}
	if err != nil {
		return Source{Name: FileName}, []Problem{{Key: "(all)", Source: FileName, Msg: err.Error()}}
	}
	return FromJSON(FileName, data)
}

// FromEnv reads the environment variables of the contract's table.
func FromEnv(getenv func(string) string) Source {
	src := Source{Name: "environment", Values: map[string]json.RawMessage{}}
	for _, f := range fields {
		for _, e := range f.env {
			if v := getenv(e); v != "" {
				b, _ := json.Marshal(v)
				src.Values[f.key] = b
				break
			}
		}
	}
	return src
}

// Resolve applies sources in order (first wins) over the defaults. A null
// or an empty string counts as not set: editors send them for settings the
// user left empty, and they must not hide the environment's API key.
func Resolve(sources ...Source) (Config, []Problem) {
	return resolve(sources, nil)
}

// ResolveWithOrigins is Resolve that also says, for each key a source set,
// the name of the source whose value is in use; keys left at their
// default are absent.
func ResolveWithOrigins(sources ...Source) (Config, map[string]string, []Problem) {
	origins := map[string]string{}
	c, probs := resolve(sources, origins)
	return c, origins, probs
}

func resolve(sources []Source, origins map[string]string) (Config, []Problem) {
	c := Defaults()
	var probs []Problem
	for _, f := range fields {
		for _, s := range sources {
			raw, ok := s.Values[f.key]
			if !ok || unset(raw) {
				continue
			}
			if f.notFromFile && s.Name == FileName {
				probs = append(probs, Problem{Key: f.key, Source: s.Name, Msg: "ignored: it starts a command, and the workspace file may be written by the model; set it in the editor's settings"})
				continue
			}
			if err := f.kind.set(&c, raw); err != nil {
				probs = append(probs, Problem{Key: f.key, Source: s.Name, Msg: err.Error()})
				continue // fall back to the next source
			}
			if origins != nil {
				origins[f.key] = s.Name
			}
			break
		}
	}
	return c, probs
}

func unset(raw json.RawMessage) bool {
	switch string(bytes.TrimSpace(raw)) {
	case "null", `""`:
		return true
	}
	return false
}

// WorkspaceScopeKey holds, inside the agentls settings an editor sends,
// the values set in the workspace's own scope (VS Code's workspace and
// folder settings, which live in files the model can write). They rank
// above the user's editor settings, as in the editor, but what widens
// power applies only once the user trusts them, like .agentls.json.
const WorkspaceScopeKey = "workspaceSettings"

// SplitWorkspaceScope takes the workspace-scope settings out of an
// agentls settings object: the user's settings without them, them, and
// whether the object held the key at all. The language server and agentls
// doctor read an editor's settings through it.
func SplitWorkspaceScope(raw []byte) (user, ws []byte, sent bool) {
	if len(raw) == 0 {
		return raw, nil, false
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(raw, &top) != nil {
		return raw, nil, false
	}
	v, ok := top[WorkspaceScopeKey]
	if !ok {
		return raw, nil, false
	}
	delete(top, WorkspaceScopeKey)
	user, err := json.Marshal(top)
	if err != nil {
		return raw, nil, false
	}
	if string(v) == "null" || string(v) == "{}" {
		v = nil
	}
	return user, v, true
}

// Load resolves the configuration for a workspace from editor settings (may
// be nil), the workspace file, and the process environment.
func Load(root string, settings []byte) (Config, []Problem) {
	ed, p1 := FromJSON("editor settings", settings)
	file, p2 := FromFile(root)
	c, p3 := Resolve(ed, file, FromEnv(os.Getenv))
	return c, append(append(p1, p2...), p3...)
}

// Redact replaces every occurrence of the configured API key in s.
func (c Config) Redact(s string) string {
	if len(c.LLM.APIKey) < 4 {
		return s
	}
	return strings.ReplaceAll(s, c.LLM.APIKey, "[redacted]")
}

// Package config resolves agentls settings from their sources, in the order
// the contract gives (first wins): editor settings (initializationOptions or
// workspace/didChangeConfiguration), .agentls.json in the workspace root, the
// environment, then defaults. A bad value is a Problem naming its key; the
// key then falls back to the next source, so one typo never stops the server.
//
// It imports nothing from this module.
package config

// This file is over 400 lines because the table of keys, their parsers and
// the layering of sources are one declaration that docs/configuration.md, the editors
// and the tests read from.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"github.com/agentls/agentls/internal/policy"
)

// FileName is the per-workspace configuration file.
const FileName = ".agentls.json"

// Config is the resolved configuration.
type Config struct {
	LLM      LLM
	Agent    Agent
	Verify   Verify
	Tools    Tools
	Sessions Sessions
	Sandbox  Sandbox
	// MCPServers has the shape other MCP clients use: name → server.
	MCPServers map[string]MCPServer
}

type LLM struct {
	BaseURL            string
	APIKey             string
	Model              string
	ContextTokens      int
	IdleTimeoutSeconds int // 0: 120 s remote, 300 s loopback
	// API is the wire API: "chat", "responses" or "auto" (Responses for
	// the models of api.openai.com that need it).
	API string
	// ReasoningEffort is sent to reasoning models when set (Responses
	// API only).
	ReasoningEffort string
	// Images says whether the model takes images: "true", "false", or
	// "" / "auto" for the built-in model table (assemble.TakesImages).
	Images string
	// Prices per million tokens, by model name; "*" is the fallback.
	Prices map[string]Price
}

type Price struct {
	Input  float64 `json:"input"`
	Output float64 `json:"output"`
}

type Agent struct {
	MaxSteps int
	// MaxCostUSD ends a task gracefully once its model calls cost this
	// much (at llm.prices or the built-in prices); 0: no cost budget.
	MaxCostUSD         float64
	MaxRetries         int
	Review             bool
	Memory             bool
	TaskTimeoutSeconds int // 0: none
	ToolTimeoutSeconds int
	MaxToolOutput      int // bytes
	// EditTool is how the model edits: "auto" (apply_patch for the GPT-5
	// and Codex families, edit_file for others), "edit_file" or
	// "apply_patch".
	EditTool string
	// PromptProfile is the system prompt's profile: "auto" (by model
	// name), "contract" or "terse".
	PromptProfile string
	// Backend replaces agentls's own loop with an external agent.
	Backend Backend
	// Isolation is where a task works: "none" (the editor's buffers, the
	// user's tree) or "worktree" (a git worktree of its own under the
	// state directory, merged back through review).
	Isolation string
}

// Backend is agent.backend: {"acp": {"command", "args", "env"}} makes the
// language server drive an external ACP agent; the zero value is agentls's
// own loop.
type Backend struct {
	ACP *ACPAgent `json:"acp,omitempty"`
}

// ACPAgent is the command that starts an ACP agent on stdio.
type ACPAgent struct {
	Command string            `json:"command"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	// Model and Mode pick the external agent's model and mode (its config
	// options of category model and mode, or its modes); "": its default.
	Model string `json:"model,omitempty"`
	Mode  string `json:"mode,omitempty"`
}

type Verify struct {
	Commands       []string // empty: detect from the workspace
	Enabled        bool
	TimeoutSeconds int
}

type Tools struct {
	// Approval is tools.approval: ApprovalSandboxed (the default) runs
	// inside the sandbox, without a question, every command the policy can
	// reduce to plain programs that no deny rule matches, and asks only to
	// leave the sandbox; ApprovalAlwaysAsk asks about every command
	// tools.allow does not cover; ApprovalNever refuses whatever would be
	// asked about.
	Approval    string
	Allow       []string
	Deny        []string
	SecretFiles []string
}

// DefaultMemoryMiB is sandbox.memoryMiB's default (proc.DefaultMemoryMax).
const DefaultMemoryMiB = 4096

// Sandbox confines what agentls runs for the model: run_command, the
// verify checks and MCP stdio servers.
type Sandbox struct {
	// Mode is "workspace-write" (writes only to the workspace, the temp
	// directory and the ecosystem's caches), "read-only" or "off".
	Mode string
	// Network lets sandboxed commands use the network.
	Network bool
	// WritableRoots are more directories sandboxed commands may write.
	WritableRoots []string
	// DenyRead are more paths ("~/" is the home directory) that sandboxed
	// commands read as empty, besides policy.DefaultDenyRead.
	DenyRead []string
	// AllowRead are more paths ("~/" is the home directory) sandboxed
	// commands may read (read-only), beyond the declared ones: the
	// workspace, the system, the workspace's languages' toolchains and
	// caches, and PATH (see `agentls sandbox show`).
	AllowRead []string
	// MemoryMiB caps each sandboxed command's memory, its whole tree's
	// (a cgroup's memory.max where agentls can make one, else each
	// process's RLIMIT_DATA); 0 means no cap.
	MemoryMiB int
}

type Sessions struct {
	MaxConcurrent int
}

type MCPServer struct {
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	URL     string            `json:"url,omitempty"`
	// Allow lists tool names that run without asking; "*" allows all.
	Allow []string `json:"allow,omitempty"`
	// Sandbox false runs a stdio server outside the sandbox (the user is
	// told when it starts); nil or true: sandboxed like run_command.
	Sandbox *bool `json:"sandbox,omitempty"`
}

// tools.approval values.
const (
	ApprovalSandboxed = "sandboxed"
	ApprovalAlwaysAsk = "always-ask"
	ApprovalNever     = "never"
)

// DefaultModel is used when no source names a model.
const DefaultModel = "gpt-4.1-mini"

// Problem is a configuration value that could not be used.
type Problem struct {
	Key    string
	Source string
	Msg    string
}

func (p Problem) String() string {
	return fmt.Sprintf("agentls: setting %q from %s: %s", p.Key, p.Source, p.Msg)
}

// Source is one layer of raw settings, as nested JSON objects.
type Source struct {
	Name   string
	Values map[string]json.RawMessage // flattened: "llm.model" → raw value
}

// field describes one key of the contract's table.
type field struct {
	key string
	env []string
	set func(c *Config, raw json.RawMessage) error
	// notFromFile: the key names a command to start, and the workspace
	// file is written by the model, so only the user's own sources count.
	notFromFile bool
}

func str(dst func(*Config) *string) func(*Config, json.RawMessage) error {
	return func(c *Config, raw json.RawMessage) error {
		var s string
		if err := strict(raw, &s); err != nil {
			return fmt.Errorf("want a string")
		}
		*dst(c) = s
		return nil
	}
}

func oneOf(values []string, dst func(*Config) *string) func(*Config, json.RawMessage) error {
	return func(c *Config, raw json.RawMessage) error {
		var s string
		if err := strict(raw, &s); err != nil || !slices.Contains(values, s) {
			return fmt.Errorf("want one of %s", strings.Join(values, ", "))
		}
		*dst(c) = s
		return nil
	}
}

func intIn(lo, hi int, dst func(*Config) *int) func(*Config, json.RawMessage) error {
	return func(c *Config, raw json.RawMessage) error {
		var f float64
		if err := strict(raw, &f); err != nil || f != float64(int(f)) {
			return fmt.Errorf("want a whole number")
		}
		n := int(f)
		if n < lo || n > hi {
			return fmt.Errorf("want a number from %d to %d, got %d", lo, hi, n)
		}
		*dst(c) = n
		return nil
	}
}

func boolean(dst func(*Config) *bool) func(*Config, json.RawMessage) error {
	return func(c *Config, raw json.RawMessage) error {
		var b bool
		if err := strict(raw, &b); err != nil {
			return fmt.Errorf("want true or false")
		}
		*dst(c) = b
		return nil
	}
}

func strs(dst func(*Config) *[]string) func(*Config, json.RawMessage) error {
	return func(c *Config, raw json.RawMessage) error {
		var s []string
		if err := strict(raw, &s); err != nil {
			return fmt.Errorf("want a list of strings")
		}
		*dst(c) = s
		return nil
	}
}

func strict(raw json.RawMessage, v any) error {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	return d.Decode(v)
}

var fields = []field{
	{key: "llm.baseURL", env: []string{"AGENTLS_BASE_URL", "OPENAI_BASE_URL"}, set: str(func(c *Config) *string { return &c.LLM.BaseURL })},
	{key: "llm.apiKey", env: []string{"AGENTLS_API_KEY", "OPENAI_API_KEY"}, set: str(func(c *Config) *string { return &c.LLM.APIKey })},
	{key: "llm.model", env: []string{"AGENTLS_MODEL"}, set: str(func(c *Config) *string { return &c.LLM.Model })},
	{key: "llm.contextTokens", set: intIn(1024, 10_000_000, func(c *Config) *int { return &c.LLM.ContextTokens })},
	{key: "llm.idleTimeoutSeconds", set: intIn(1, 3600, func(c *Config) *int { return &c.LLM.IdleTimeoutSeconds })},
	{key: "llm.api", set: oneOf([]string{"chat", "responses", "auto"}, func(c *Config) *string { return &c.LLM.API })},
	{key: "llm.reasoningEffort", set: oneOf([]string{"none", "minimal", "low", "medium", "high", "xhigh", "max"}, func(c *Config) *string { return &c.LLM.ReasoningEffort })},
	{key: "llm.images", set: func(c *Config, raw json.RawMessage) error {
		var b bool
		if err := strict(raw, &b); err == nil {
			c.LLM.Images = strconv.FormatBool(b)
			return nil
		}
		var s string
		if err := strict(raw, &s); err != nil || (s != "auto" && s != "true" && s != "false") {
			return fmt.Errorf(`want true, false or "auto"`)
		}
		c.LLM.Images = s
		return nil
	}},
	{key: "llm.prices", set: func(c *Config, raw json.RawMessage) error {
		var p map[string]Price
		if err := strict(raw, &p); err != nil {
			return fmt.Errorf(`want {"model": {"input": USD per 1M tokens, "output": USD per 1M tokens}}`)
		}
		c.LLM.Prices = p
		return nil
	}},
	{key: "agent.maxSteps", set: intIn(1, 100_000, func(c *Config) *int { return &c.Agent.MaxSteps })},
	{key: "agent.maxCostUSD", set: func(c *Config, raw json.RawMessage) error {
		var f float64
		if err := strict(raw, &f); err != nil || f < 0 || f > 1e6 {
			return fmt.Errorf("want a number of US dollars, 0 (no cost budget) to 1000000")
		}
		c.Agent.MaxCostUSD = f
		return nil
	}},
	{key: "agent.maxRetries", set: intIn(0, 100, func(c *Config) *int { return &c.Agent.MaxRetries })},
	{key: "agent.review", set: boolean(func(c *Config) *bool { return &c.Agent.Review })},
	{key: "agent.memory", set: boolean(func(c *Config) *bool { return &c.Agent.Memory })},
	{key: "agent.taskTimeoutSeconds", set: intIn(0, 7*24*3600, func(c *Config) *int { return &c.Agent.TaskTimeoutSeconds })},
	{key: "agent.toolTimeoutSeconds", set: intIn(1, 3600, func(c *Config) *int { return &c.Agent.ToolTimeoutSeconds })},
	{key: "agent.maxToolOutput", set: intIn(1024, 16<<20, func(c *Config) *int { return &c.Agent.MaxToolOutput })},
	{key: "agent.editTool", set: oneOf([]string{"auto", "edit_file", "apply_patch"}, func(c *Config) *string { return &c.Agent.EditTool })},
	{key: "agent.promptProfile", set: oneOf([]string{"auto", "contract", "terse"}, func(c *Config) *string { return &c.Agent.PromptProfile })},
	{key: "agent.isolation", set: oneOf([]string{"none", "worktree"}, func(c *Config) *string { return &c.Agent.Isolation })},
	{key: "agent.backend", notFromFile: true, set: func(c *Config, raw json.RawMessage) error {
		var b Backend
		if err := strict(raw, &b); err != nil {
			return fmt.Errorf(`want {"acp": {"command": "…", "args": […]}}: %v`, err)
		}
		if b.ACP != nil && b.ACP.Command == "" {
			return fmt.Errorf("agent.backend.acp needs a command")
		}
		c.Agent.Backend = b
		return nil
	}},
	{key: "verify.commands", set: strs(func(c *Config) *[]string { return &c.Verify.Commands })},
	{key: "verify.enabled", set: boolean(func(c *Config) *bool { return &c.Verify.Enabled })},
	{key: "verify.timeoutSeconds", set: intIn(1, 24*3600, func(c *Config) *int { return &c.Verify.TimeoutSeconds })},
	{key: "tools.approval", set: oneOf([]string{ApprovalSandboxed, ApprovalAlwaysAsk, ApprovalNever}, func(c *Config) *string { return &c.Tools.Approval })},
	{key: "tools.allow", set: strs(func(c *Config) *[]string { return &c.Tools.Allow })},
	{key: "tools.deny", set: strs(func(c *Config) *[]string { return &c.Tools.Deny })},
	{key: "tools.secretFiles", set: strs(func(c *Config) *[]string { return &c.Tools.SecretFiles })},
	{key: "sandbox.mode", set: oneOf([]string{"workspace-write", "read-only", "off"}, func(c *Config) *string { return &c.Sandbox.Mode })},
	{key: "sandbox.network", set: boolean(func(c *Config) *bool { return &c.Sandbox.Network })},
	{key: "sandbox.writableRoots", set: strs(func(c *Config) *[]string { return &c.Sandbox.WritableRoots })},
	{key: "sandbox.denyRead", set: strs(func(c *Config) *[]string { return &c.Sandbox.DenyRead })},
	{key: "sandbox.allowRead", set: strs(func(c *Config) *[]string { return &c.Sandbox.AllowRead })},
	{key: "sandbox.memoryMiB", set: intIn(0, 1<<24, func(c *Config) *int { return &c.Sandbox.MemoryMiB })},
	{key: "sessions.maxConcurrent", set: intIn(1, 64, func(c *Config) *int { return &c.Sessions.MaxConcurrent })},
	{key: "mcpServers", set: func(c *Config, raw json.RawMessage) error {
		var m map[string]MCPServer
		if err := strict(raw, &m); err != nil {
			return fmt.Errorf("want {\"name\": {\"command\", \"args\", \"env\"} or {\"url\"}}: %v", err)
		}
		for name, s := range m {
			if (s.Command == "") == (s.URL == "") {
				return fmt.Errorf("server %q needs exactly one of command or url", name)
			}
		}
		c.MCPServers = m
		return nil
	}},
}

var known = func() map[string]bool {
	k := map[string]bool{}
	for _, f := range fields {
		k[f.key] = true
	}
	return k
}()

// Defaults returns the configuration with no source set.
func Defaults() Config {
	return Config{
		LLM: LLM{
			BaseURL:       "https://api.openai.com/v1",
			Model:         DefaultModel,
			ContextTokens: 128_000,
			API:           "auto",
		},
		Agent: Agent{
			MaxSteps:           200,
			MaxRetries:         3,
			Memory:             true,
			ToolTimeoutSeconds: 120,
			MaxToolOutput:      64 << 10,
			EditTool:           "auto",
			PromptProfile:      "auto",
			Isolation:          "none",
		},
		Verify:   Verify{Enabled: true, TimeoutSeconds: 600},
		Tools:    Tools{Approval: ApprovalSandboxed, SecretFiles: policy.DefaultSecretFiles()},
		Sessions: Sessions{MaxConcurrent: 4},
		Sandbox:  Sandbox{Mode: "workspace-write", MemoryMiB: DefaultMemoryMiB},
	}
}

// Keys lists every configuration key, for documentation and editor settings.
func Keys() []string {
	ks := make([]string, len(fields))
	for i, f := range fields {
		ks[i] = f.key
	}
	return ks
}

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
			if err := f.set(&c, raw); err != nil {
				probs = append(probs, Problem{Key: f.key, Source: s.Name, Msg: err.Error()})
				continue // fall back to the next source
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

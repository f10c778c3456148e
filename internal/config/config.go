// Package config resolves agentls settings from their sources, in the order
// the contract gives (first wins): editor settings (initializationOptions or
// workspace/didChangeConfiguration), .agentls.json in the workspace root, the
// environment, then defaults. A bad value is a Problem naming its key; the
// key then falls back to the next source, so one typo never stops the server.
//
// It imports nothing from this module.
package config

import (
	"encoding/json"
	"fmt"
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
	// Delegate is how agentls reaches the NATS server of delegated jobs
	// (agentls submit, agentls worker, "Delegate task").
	Delegate Delegate
	// MCPServers has the shape other MCP clients use: name → server.
	MCPServers map[string]MCPServer
	// Hooks are hooks in the shared format (Claude Code's, Codex's):
	// {"PreToolUse": [{"matcher", "hooks": [{"type": "command", …}]}]},
	// kept as JSON for internal/hooks to read.
	Hooks json.RawMessage
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
	// "" / "auto" for the built-in model table (llm.TakesImages).
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
	// ReadBeforeEdit refuses an edit of a file the model has not read
	// in this task (edit_file, apply_patch's updates and overwrites),
	// with a message to read it first: an edit of imagined text is the
	// cheapest mistake to stop. false allows such edits.
	ReadBeforeEdit bool
	// PromptProfile is the system prompt's profile: "auto" (by model
	// name), "contract" or "terse".
	PromptProfile string
	// Backend replaces agentls's own loop with an external agent.
	Backend Backend
	// SubagentSteps bounds the model turns of each helper the explore tool
	// starts (a read-only sub-agent with a fresh context); 0: no explore
	// tool.
	SubagentSteps int
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

// Delegate is the connection to NATS JetStream for delegated jobs. It
// comes only from the user's own settings and the environment: never from
// the workspace file (the model writes it, and the URL says where tasks and
// credentials go) and never from a job.
type Delegate struct {
	URL         string // nats://host:4222 (a comma-separated list for a cluster)
	Credentials string // a .creds file (JWT and NKey seed)
	NKey        string // an NKey seed file
	TLSCA       string // CA certificate file for the server's TLS
	TLSCert     string // client certificate file (mutual TLS)
	TLSKey      string // client key file
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

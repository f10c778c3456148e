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

// field describes one key of the contract's table: how it is parsed, and
// the text the reference page (docs/reference/settings.md, generated by
// Docs) and agentls doctor show of it.
type field struct {
	key  string
	env  []string
	kind kind
	// def is the default in words, where the value Defaults() holds would
	// mislead (0 meaning "by the endpoint", an empty list meaning
	// "detected"); "" means Defaults()'s value.
	def string
	// doc says what the setting does, for a person: Markdown, one
	// paragraph.
	doc string
	// notFromFile: the key names a command to start, and the workspace
	// file is written by the model, so only the user's own sources count.
	notFromFile bool
}

// kind is how a key's raw value is parsed into a Config, how it is read
// back, and what the reference page calls its type.
type kind struct {
	typ string
	set func(c *Config, raw json.RawMessage) error
	get func(c *Config) any
}

func str(dst func(*Config) *string) kind {
	return kind{typ: "string", get: func(c *Config) any { return *dst(c) }, set: func(c *Config, raw json.RawMessage) error {
		var s string
		if err := strict(raw, &s); err != nil {
			return fmt.Errorf("want a string")
		}
		*dst(c) = s
		return nil
	}}
}

func oneOf(values []string, dst func(*Config) *string) kind {
	return kind{typ: "one of `" + strings.Join(values, "`, `") + "`", get: func(c *Config) any { return *dst(c) }, set: func(c *Config, raw json.RawMessage) error {
		var s string
		if err := strict(raw, &s); err != nil || !slices.Contains(values, s) {
			return fmt.Errorf("want one of %s", strings.Join(values, ", "))
		}
		*dst(c) = s
		return nil
	}}
}

func intIn(lo, hi int, dst func(*Config) *int) kind {
	return kind{typ: fmt.Sprintf("integer, %d to %d", lo, hi), get: func(c *Config) any { return *dst(c) }, set: func(c *Config, raw json.RawMessage) error {
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
	}}
}

func boolean(dst func(*Config) *bool) kind {
	return kind{typ: "boolean", get: func(c *Config) any { return *dst(c) }, set: func(c *Config, raw json.RawMessage) error {
		var b bool
		if err := strict(raw, &b); err != nil {
			return fmt.Errorf("want true or false")
		}
		*dst(c) = b
		return nil
	}}
}

func strs(dst func(*Config) *[]string) kind {
	return kind{typ: "list of strings", get: func(c *Config) any { return *dst(c) }, set: func(c *Config, raw json.RawMessage) error {
		var s []string
		if err := strict(raw, &s); err != nil {
			return fmt.Errorf("want a list of strings")
		}
		*dst(c) = s
		return nil
	}}
}

func strict(raw json.RawMessage, v any) error {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	return d.Decode(v)
}

var fields = []field{
	{key: "llm.baseURL", env: []string{"AGENTLS_BASE_URL", "OPENAI_BASE_URL"},
		kind: str(func(c *Config) *string { return &c.LLM.BaseURL }),
		doc:  "The OpenAI-compatible endpoint: its chat completions or Responses API, and `GET /models`. From a workspace file it applies only once you trust the file; held back, it stops the task rather than falling back to another endpoint."},
	{key: "llm.apiKey", env: []string{"AGENTLS_API_KEY", "OPENAI_API_KEY"},
		kind: str(func(c *Config) *string { return &c.LLM.APIKey }),
		def:  "none (local servers need none)",
		doc:  "The endpoint's key, sent as `Authorization: Bearer`. Prefer the environment. It is never logged, echoed, or written to a transcript, session, recording or error, and no child process gets it."},
	{key: "llm.model", env: []string{"AGENTLS_MODEL"},
		kind: str(func(c *Config) *string { return &c.LLM.Model }),
		doc:  "The model every task uses unless it names its own (`model` in `agentls.run`, `--model`)."},
	{key: "llm.contextTokens",
		kind: intIn(1024, 10_000_000, func(c *Config) *int { return &c.LLM.ContextTokens }),
		doc:  "The model's context window: the conversation is compacted before it outgrows it."},
	{key: "llm.idleTimeoutSeconds",
		kind: intIn(1, 3600, func(c *Config) *int { return &c.LLM.IdleTimeoutSeconds }),
		def:  "120 remote, 300 for loopback servers",
		doc:  "How long a model's answer may be silent before the call fails (and is retried if nothing had streamed yet)."},
	{key: "llm.api",
		kind: oneOf([]string{"chat", "responses", "auto"}, func(c *Config) *string { return &c.LLM.API }),
		doc:  "The wire API: chat completions, the Responses API, or `auto`, which picks Responses only for the models of `api.openai.com` that need it or reason (see [Models](../models.md))."},
	{key: "llm.reasoningEffort",
		kind: oneOf([]string{"none", "minimal", "low", "medium", "high", "xhigh", "max"}, func(c *Config) *string { return &c.LLM.ReasoningEffort }),
		def:  "none sent",
		doc:  "Sent to reasoning models as `reasoning.effort` (Responses API only)."},
	{key: "llm.images",
		kind: kind{typ: "`true`, `false` or `\"auto\"`", get: func(c *Config) any { return c.LLM.Images }, set: func(c *Config, raw json.RawMessage) error {
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
		def: "`auto`",
		doc: "Whether images in a prompt (ACP image blocks) go to the model. `auto`: to models the built-in table knows take them (gpt-4o, gpt-4.1, o3, o4-mini, gpt-5, claude-*); others, and models it does not know, are sent none and the prompt is refused with a message naming the model. `true` or `false` decides for your model (a local vision model, say). At most 4 images of 5 MB each, PNG, JPEG, GIF or WebP, in one ACP message of at most 10 MB (the ACP SDK's limit: a larger one is refused with `-32600` under its id, and the connection carries on); session files keep a note `[image: name, N KB]`, not the image."},
	{key: "llm.prices",
		kind: kind{typ: "object", get: func(c *Config) any { return c.LLM.Prices }, set: func(c *Config, raw json.RawMessage) error {
			var p map[string]Price
			if err := strict(raw, &p); err != nil {
				return fmt.Errorf(`want {"model": {"input": USD per 1M tokens, "output": USD per 1M tokens}}`)
			}
			c.LLM.Prices = p
			return nil
		}},
		def: "a built-in table for well-known models (gpt-4o, gpt-4.1, o3, gpt-5, claude-sonnet-4, deepseek-chat, …; `internal/assemble/prices.go`)",
		doc: "`{\"model\": {\"input\": USD per 1M tokens, \"output\": …}}` overrides the built-in prices; `\"*\"` for models the table does not know. Costs shown and `agent.maxCostUSD` use them."},
	{key: "agent.maxSteps",
		kind: intIn(1, 100_000, func(c *Config) *int { return &c.Agent.MaxSteps }),
		doc:  "Model turns with tools per task. At 80% the model is told to wrap up, at the limit it gets one more turn, without tools, for a summary, the checks run on what changed, and the task ends with reason `maxSteps`."},
	{key: "agent.maxCostUSD",
		kind: kind{typ: "number (USD), 0 to 1000000", get: func(c *Config) any { return c.Agent.MaxCostUSD }, set: func(c *Config, raw json.RawMessage) error {
			var f float64
			if err := strict(raw, &f); err != nil || f < 0 || f > 1e6 {
				return fmt.Errorf("want a number of US dollars, 0 (no cost budget) to 1000000")
			}
			c.Agent.MaxCostUSD = f
			return nil
		}},
		def: "0 (no cost budget)",
		doc: "A task whose model calls cost this much at `llm.prices` ends as at `agent.maxSteps`, with reason `budget` (needs a price for the model)."},
	{key: "agent.maxRetries",
		kind: intIn(0, 100, func(c *Config) *int { return &c.Agent.MaxRetries }),
		doc:  "How many times the verify gate's failures go back to the model before the task ends with the checks failing."},
	{key: "agent.review",
		kind: boolean(func(c *Config) *bool { return &c.Agent.Review }),
		doc:  "`false`: apply edits at once; `true`: propose, then accept or reject (see [Review](../review.md))."},
	{key: "agent.memory",
		kind: boolean(func(c *Config) *bool { return &c.Agent.Memory }),
		doc:  "Summaries of earlier tasks join the prompt: what each changed and whether the checks passed, from how it ended, never from the model's answer (a task that changed nothing is remembered so, not as done)."},
	{key: "agent.taskTimeoutSeconds",
		kind: intIn(0, 7*24*3600, func(c *Config) *int { return &c.Agent.TaskTimeoutSeconds }),
		def:  "0 (none)",
		doc:  "A task still running after this long ends with reason `timeout`."},
	{key: "agent.toolTimeoutSeconds",
		kind: intIn(1, 3600, func(c *Config) *int { return &c.Agent.ToolTimeoutSeconds }),
		doc:  "How long a tool call may run (`run_command` may ask for up to 600)."},
	{key: "agent.maxToolOutput",
		kind: intIn(1024, 16<<20, func(c *Config) *int { return &c.Agent.MaxToolOutput }),
		doc:  "Bytes of a tool result the model gets (never over 30% of the context); the head and tail of longer output are kept."},
	{key: "agent.editTool",
		kind: oneOf([]string{"auto", "edit_file", "apply_patch"}, func(c *Config) *string { return &c.Agent.EditTool }),
		doc:  "How the model edits. `auto`: `apply_patch` for the GPT-5 and Codex families (`gpt-5*`, `*codex*`), `edit_file` for others (see [Tools offered to the model](../commands.md#tools-offered-to-the-model))."},
	{key: "agent.readBeforeEdit",
		kind: boolean(func(c *Config) *bool { return &c.Agent.ReadBeforeEdit }),
		doc:  "`true`: an edit (`edit_file`, `apply_patch`'s updates and overwrites) of a file the model has not read or written in this task, nor had whole in the prompt (`@path`), is refused with a message to read it first; `false` allows it. A file changed since it was read is not refused: the write's compare-and-swap deals with it (see [Models](../models.md#read-before-edit))."},
	{key: "agent.promptProfile",
		kind: oneOf([]string{"auto", "contract", "terse"}, func(c *Config) *string { return &c.Agent.PromptProfile }),
		doc:  "The system prompt's profile. `auto`: `terse` for the Codex family, `contract` for others (see [Models](../models.md#what-the-model-is-told-prompt-profiles))."},
	{key: "agent.subagentSteps",
		kind: intIn(0, 1000, func(c *Config) *int { return &c.Agent.SubagentSteps }),
		doc:  "Model turns of each helper the `explore` tool starts: a read-only sub-agent with a fresh context whose answer, not its reads, joins the task (see [Sub-agents](../subagents.md)); `0`: no `explore` tool."},
	{key: "agent.isolation",
		kind: oneOf([]string{"none", "worktree"}, func(c *Config) *string { return &c.Agent.Isolation }),
		doc:  "`none`: a task works in your tree (the editor's buffers); `worktree`: each task works in a git worktree of its own and its change comes back for review and merge (see [Worktree tasks](../worktrees.md))."},
	{key: "agent.backend", notFromFile: true,
		kind: kind{typ: "object", get: func(c *Config) any { return c.Agent.Backend }, set: func(c *Config, raw json.RawMessage) error {
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
		def: "agentls's own loop",
		doc: "`{\"acp\": {\"command\", \"args\", \"env\", \"model\", \"mode\"}}` drives an external ACP agent instead ([the bridge](../acp.md#the-bridge)). Read from the editor's settings only, never from `.agentls.json` (the model can write that file)."},
	{key: "verify.commands",
		kind: strs(func(c *Config) *[]string { return &c.Verify.Commands }),
		def:  "detected: go.mod → `go build`, `go vet`, `go test`; package.json → its test script; Cargo.toml → `cargo check`, `cargo test`; pyproject.toml/pytest.ini → `pytest -q`; Makefile → `make check` or `make test`",
		doc:  "The project's checks, run in the sandbox after a task changed files; their failures go back to the model and become diagnostics."},
	{key: "verify.enabled",
		kind: boolean(func(c *Config) *bool { return &c.Verify.Enabled }),
		doc:  "Run the checks at all. When the checks fail, they run once more on the changed files as the task found them (the user's unsaved text included): a finding that was there before, on the same line as the task's change maps it, is labelled \"there before this task\", shown apart to the model and in the summary, and neither fails the task nor sends the model back; one in a file the task created, on a line it changed, or in a file a command wrote always counts."},
	{key: "verify.timeoutSeconds",
		kind: intIn(1, 24*3600, func(c *Config) *int { return &c.Verify.TimeoutSeconds }),
		doc:  "How long the checks may run."},
	{key: "tools.approval",
		kind: oneOf([]string{ApprovalSandboxed, ApprovalAlwaysAsk, ApprovalNever}, func(c *Config) *string { return &c.Tools.Approval }),
		doc:  "`sandboxed`: any command the policy can reduce to plain programs that no deny rule matches runs in the sandbox without a question; you are asked only to leave it (network, a command the parser cannot see through, MCP tools). `always-ask`: every command `tools.allow` does not cover is asked about. `never`: nothing is asked; what would be is refused (see [Security model](../security.md))."},
	{key: "tools.allow",
		kind: strs(func(c *Config) *[]string { return &c.Tools.Allow }),
		def:  "none",
		doc:  "Rules for `run_command` and MCP tools that run without asking (see [Security model](../security.md) for exactly what a rule covers)."},
	{key: "tools.deny",
		kind: strs(func(c *Config) *[]string { return &c.Tools.Deny }),
		def:  "none",
		doc:  "Rules for `run_command` and MCP tools that never run, whatever the allow rules say."},
	{key: "tools.secretFiles",
		kind: strs(func(c *Config) *[]string { return &c.Tools.SecretFiles }),
		doc:  "Files never read, listed or sent to the model, at any depth; names match without regard to case. Setting it replaces the default list."},
	{key: "sandbox.mode",
		kind: oneOf([]string{"workspace-write", "read-only", "off"}, func(c *Config) *string { return &c.Sandbox.Mode }),
		doc:  "`workspace-write`: commands, checks and MCP servers write only to the workspace, the temp directory and the ecosystem's caches (through a layer of agentls's own); `read-only`; `off`."},
	{key: "sandbox.network",
		kind: boolean(func(c *Config) *bool { return &c.Sandbox.Network }),
		doc:  "Whether sandboxed commands have network (a command that failed for want of it can be run again with network when the user allows)."},
	{key: "sandbox.writableRoots",
		kind: strs(func(c *Config) *[]string { return &c.Sandbox.WritableRoots }),
		def:  "none",
		doc:  "More directories sandboxed commands may write."},
	{key: "sandbox.denyRead",
		kind: strs(func(c *Config) *[]string { return &c.Sandbox.DenyRead }),
		def:  "none",
		doc:  "More paths (`~/` is your home) that sandboxed commands read as empty, besides the credentials the [Security model](../security.md) lists."},
	{key: "sandbox.allowRead",
		kind: strs(func(c *Config) *[]string { return &c.Sandbox.AllowRead }),
		def:  "none",
		doc:  "More paths (`~/` is your home) sandboxed commands may read, read-only, besides the declared ones: the workspace, the system, the workspace's languages' toolchains and caches, `PATH` (`agentls sandbox show` prints them; see [The declaration](../security.md#the-declaration))."},
	{key: "sandbox.memoryMiB",
		kind: intIn(0, 1<<24, func(c *Config) *int { return &c.Sandbox.MemoryMiB }),
		def:  "4096",
		doc:  "Each sandboxed command's memory cap in MiB, its whole tree's (a memory cgroup where agentls can make one, else each process's `RLIMIT_DATA`); a command killed at the cap says so. 0 is no cap."},
	{key: "delegate.url", env: []string{"AGENTLS_NATS_URL", "NATS_URL"}, notFromFile: true,
		kind: str(func(c *Config) *string { return &c.Delegate.URL }),
		def:  "none",
		doc:  "The NATS server (JetStream on) of delegated tasks: `nats://host:4222`, a comma-separated list for a cluster. `agentls submit`, `agentls worker`, `agentls jobs` and the editor's \"Delegate task\" use it (docs/multi-machine.md). Read from your settings and the environment only, never from `.agentls.json` or a job."},
	{key: "delegate.credentials", env: []string{"AGENTLS_NATS_CREDS"}, notFromFile: true,
		kind: str(func(c *Config) *string { return &c.Delegate.Credentials }),
		def:  "none",
		doc:  "A NATS `.creds` file (user JWT and NKey seed) to authenticate to `delegate.url`."},
	{key: "delegate.nkey", env: []string{"AGENTLS_NATS_NKEY"}, notFromFile: true,
		kind: str(func(c *Config) *string { return &c.Delegate.NKey }),
		def:  "none",
		doc:  "An NKey seed file to authenticate to `delegate.url`."},
	{key: "delegate.tlsCA", env: []string{"AGENTLS_NATS_CA"}, notFromFile: true,
		kind: str(func(c *Config) *string { return &c.Delegate.TLSCA }),
		def:  "the system's roots",
		doc:  "A CA certificate file to verify the NATS server's TLS certificate."},
	{key: "delegate.tlsCert", env: []string{"AGENTLS_NATS_CERT"}, notFromFile: true,
		kind: str(func(c *Config) *string { return &c.Delegate.TLSCert }),
		def:  "none",
		doc:  "A client certificate file for mutual TLS with the NATS server (with `delegate.tlsKey`)."},
	{key: "delegate.tlsKey", env: []string{"AGENTLS_NATS_KEY"}, notFromFile: true,
		kind: str(func(c *Config) *string { return &c.Delegate.TLSKey }),
		def:  "none",
		doc:  "The client certificate's key file (with `delegate.tlsCert`)."},
	{key: "sessions.maxConcurrent",
		kind: intIn(1, 64, func(c *Config) *int { return &c.Sessions.MaxConcurrent }),
		doc:  "Sessions running at once; tasks of one session run one after another."},
	{key: "hooks",
		kind: kind{typ: "object", get: func(c *Config) any { return c.Hooks }, set: func(c *Config, raw json.RawMessage) error {
			var m map[string][]json.RawMessage
			if err := json.Unmarshal(raw, &m); err != nil {
				return fmt.Errorf(`want {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "…"}]}]}`)
			}
			c.Hooks = append(json.RawMessage(nil), raw...)
			return nil
		}},
		def: "none",
		doc: "Hooks in Claude Code's format (`{\"PreToolUse\": [{\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"…\"}]}]}`) on `PreToolUse`, `PostToolUse`, `UserPromptSubmit`, `Stop`, `SessionStart`; a workspace's `.claude/settings.json` and `.codex/hooks.json` hooks run too, once trusted (see [Hooks, skills and stop conditions](../hooks.md)). In `.agentls.json` it widens power: it applies once the file is trusted."},
	{key: "mcpServers",
		kind: kind{typ: "object", get: func(c *Config) any { return c.MCPServers }, set: func(c *Config, raw json.RawMessage) error {
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
		def: "none",
		doc: "`{\"name\": {\"command\", \"args\", \"env\", \"allow\", \"sandbox\"}}` or `{\"name\": {\"url\", \"allow\"}}`: MCP servers whose tools the model gets as `mcp__<server>__<tool>` (`\"sandbox\": false` runs a stdio server unconfined; you are told when it starts)."},
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
			ReadBeforeEdit:     true,
			PromptProfile:      "auto",
			Isolation:          "none",
			SubagentSteps:      20,
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

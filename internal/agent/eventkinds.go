package agent

// EventKindDoc documents one kind of Event: the JSON fields it carries
// besides kind and step, and what it means. EventKinds is the table the
// reference page (docs/reference/events.md) is generated from; a test
// holds it to the Kind constants and to Event's fields.
type EventKindDoc struct {
	Kind   string
	Fields []string // JSON names of Event's fields this kind sets
	Doc    string   // Markdown
}

// EventKinds lists every event kind, in the order a task usually emits them.
var EventKinds = []EventKindDoc{
	{KindState, []string{"from", "to"}, "The machine moved from one state to another (`idle`, `planning`, `executing`, `tools`, `verifying`, `reporting`)."},
	{KindText, []string{"text"}, "A streamed delta of the model's answer."},
	{KindPlan, []string{"plan"}, "The model's plan, each time it sets it (`update_plan`): `plan: {plan: [{step, status: pending|in_progress|completed}], explanation?}`; under the bridge, the external agent's plan."},
	{KindToolCall, []string{"call"}, "The model called a tool: `call: {id, name, arguments}` (the arguments as the model wrote them, a JSON string)."},
	{KindToolResult, []string{"call", "output", "isError", "run"}, "A tool's result, as the model gets it (capped), and whether it failed. A command's (`run_command`) has `run: {approval: unasked|allowed|approved, sandboxed, exitCode, timedOut?, network?}`: whether it ran without a question (in the sandbox), by a `tools.allow` rule or your earlier \"always\", or because you said yes; whether the sandbox confined it; how it ended."},
	{KindVerify, []string{"verify"}, "The project's checks ran: `verify: {passed, commands, summary, problems, located?, feedback?, skipped?}`; `feedback` is what the model is told of a failure."},
	{KindUsage, []string{"usage", "taskUsage"}, "Tokens of this model call (`usage`) and of the task so far (`taskUsage`)."},
	{KindRetry, []string{"text"}, "A model call failed and is retried; `text` says why."},
	{KindCompaction, []string{"text"}, "The conversation was compacted to fit `llm.contextTokens`; `text` says what was dropped."},
	{KindBudget, []string{"text"}, "The task is near or at its budget (`agent.maxSteps`, `agent.maxCostUSD`); `text` says which, for a person."},
	{KindNotice, []string{"text"}, "Something about the task for a person: a mention that was not read, and why; a stop condition that failed or passed; a Stop hook that sent the model back."},
	{KindNested, []string{"call", "nested"}, "A step of a sub-agent (the `explore` tool) inside the task's call `call`: `nested` is the helper's own event (its `toolCall`, `toolResult`, `notice`, `budget`, `retry` and `end`), shown under that call, never as a task of its own."},
	{KindThought, []string{"text"}, "An external ACP agent's thinking (`agent_thought_chunk`), under the bridge: not its answer."},
	{KindCommands, []string{"commands"}, "An external ACP agent's slash commands (`commands: [{name, description, hint?}]`), whenever it announces them."},
	{KindOptions, []string{"options"}, "An external ACP agent's session settings (`options: [{id, name, category, current, values}]`): its config options (model, thought level, its own) and its models and modes as `id: \"model\"` / `\"mode\"` when offered the older way; when its session opens and whenever they change."},
	{KindEnd, []string{"result"}, "The task ended: `result` is the task's result (status, reason, summary, usage, files changed); a review task with proposals left has `outcome: \"awaiting review\"` there."},
}

// The agentls/event stream (docs/commands.md, "What the server sends"): its shape,
// how it reads as text in the output channel, and the task list the status
// bar and the commands work from. No vscode import.

export interface ToolCall {
  id?: string;
  name: string;
  arguments?: string;
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  estimated?: boolean;
}

export interface VerifyReport {
  passed: boolean;
  commands?: string[];
  feedback?: string;
  summary: string;
  problems?: number;
  located?: string[];
}

/**
 * Why the checks failed, for a person: the located problems
 * ("file:line: message"), else the first lines of the checks' output; at
 * most ten lines. Beside another language server, VS Code may show only one
 * of two equal diagnostics, so the conversation says it too.
 */
export function verifyReasons(v: VerifyReport): string[] {
  if (v.passed) return [];
  let why = v.located && v.located.length > 0 ? v.located : (v.feedback ?? '').trim().split('\n').filter((l) => l.trim() !== '');
  if (why.length > 10) why = [...why.slice(0, 10), `… ${why.length - 10} more`];
  return why.map((l) => shorten(l, 300));
}

export interface Result {
  status: string;
  verified?: boolean;
  cancelled?: boolean;
  filesChanged?: string[];
  usage?: Usage;
  cost?: number;
  steps?: number;
  summary?: string;
  error?: string;
  reason?: string;
  /** agentls.status: what became of the changes ("awaiting review", "undone", "rejected"). */
  outcome?: string;
  /** Edits (edit_file, write_file, …) that failed: with no file changed, the task did not end "ok". */
  failedEdits?: number;
}

export interface AgentEvent {
  taskId: string;
  session?: string;
  kind: string;
  step?: number;
  from?: string;
  to?: string;
  text?: string;
  call?: ToolCall;
  output?: string;
  isError?: boolean;
  verify?: VerifyReport;
  usage?: Usage;
  taskUsage?: Usage;
  /** kind plan: the model's plan (update_plan). */
  plan?: { plan: { step: string; status: string }[]; explanation?: string };
  result?: Result;
  /** The task's prompt, on its first event only. */
  task?: string;
  /** toolResult of a command: how it ran, in words ("exit 0 · in the sandbox, unasked"). */
  ran?: string;
  /** end: how the task ended, in words ("cancelled by you", "stopped: step limit"). */
  ended?: string;
  /** nested: a sub-agent's step in one line ("" when not worth one). */
  line?: string;
}

/**
 * Which tasks need a header from their first event: those this client did
 * not type (a code action's "Fix with agentls"). A typed task is expected
 * by its prompt before the request, since its first event may beat the
 * answer.
 */
export class Heads {
  private readonly expected = new Map<string, number>();

  expect(prompt: string): void {
    this.expected.set(prompt, (this.expected.get(prompt) ?? 0) + 1);
  }

  /** The typed task's request failed: no event will come. */
  unexpect(prompt: string): void {
    const n = this.expected.get(prompt) ?? 0;
    if (n <= 1) this.expected.delete(prompt);
    else this.expected.set(prompt, n - 1);
  }

  /** The prompt to head ev's task with, or undefined; known: the client tracks the task already. */
  headFor(ev: AgentEvent, known: boolean): string | undefined {
    if (typeof ev.task !== 'string' || ev.task === '') return undefined;
    if (this.expected.has(ev.task)) {
      this.unexpect(ev.task);
      return undefined;
    }
    return known ? undefined : ev.task;
  }
}

/** Short one-line form of a tool call: "read_file hello.txt". */
export function toolSummary(c: ToolCall | undefined): string {
  if (!c) return '(tool)';
  let args: Record<string, unknown> = {};
  try {
    const v = JSON.parse(c.arguments ?? '{}');
    if (v && typeof v === 'object') args = v as Record<string, unknown>;
  } catch {
    // Arguments the model botched still name the tool.
  }
  for (const k of ['path', 'pattern', 'command']) {
    const v = args[k];
    if (typeof v === 'string' && v !== '') return `${c.name} ${shorten(v, 80)}`;
  }
  return c.name;
}

export function shorten(s: string, n: number): string {
  const t = s.trim().replace(/\s+/g, ' ');
  return t.length <= n ? t : t.slice(0, n).trimEnd() + '…';
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function countLines(s: unknown): number {
  if (typeof s !== 'string' || s === '') return 0;
  return s.split('\n').length - (s.endsWith('\n') ? 1 : 0);
}

/**
 * What a tool did, in lines that match it: an edit's lines (old → new), a
 * write's lines, else the lines of the tool's output.
 */
export function toolSize(c: ToolCall | undefined, output: string | undefined): string {
  let args: Record<string, unknown> = {};
  try {
    const v = JSON.parse(c?.arguments ?? '{}');
    if (v && typeof v === 'object') args = v as Record<string, unknown>;
  } catch {
    // fall through to the output's size
  }
  if (c?.name === 'edit_file' && typeof args.new_string === 'string') {
    return `${plural(countLines(args.old_string), 'line')} → ${plural(countLines(args.new_string), 'line')}`;
  }
  if (c?.name === 'write_file' && typeof args.content === 'string') {
    return `${plural(countLines(args.content), 'line')} written`;
  }
  return plural(countLines(output), 'line');
}

/**
 * The server's hint for a missing or rejected key names llm.apiKey, a
 * setting VS Code ignores (keys do not belong in settings.json); here the
 * key is set with a command, so the hint names it.
 */
export function vscodeHint(msg: string): string {
  return msg.replace(/,? or llm\.apiKey in the configuration/g, ', or run "agentls: Set API Key"');
}

/** A composed task's text as sent: trailing white space trimmed, lines kept. */
export function composedTask(text: string): string {
  return text.replace(/\r\n/g, '\n').trim();
}

/** How a result's status reads: checks still failing is never plain "ok". */
export function statusWord(r: Result | undefined): string {
  if (!r) return 'ended';
  if (r.cancelled) return 'cancelled by you';
  // "ok" would mislead for a task whose changes are undone, rejected or
  // still waiting for review; the server says which.
  if (r.outcome) return r.outcome;
  if (r.reason === 'verifyFailed') return 'done, checks failing';
  if (r.status === 'ok' && r.verified) return 'ok, verified';
  return r.status;
}

/** A task's state in the task lists: running, needs you (a review waits), failed, done. */
export function taskState(t: { status?: string; outcome?: string; reason?: string } | undefined): string {
  if (!t || t.status === 'running' || t.status === 'queued') return 'running';
  if (t.outcome === 'awaiting review') return 'needs you';
  if (t.status === 'error' || t.reason === 'verifyFailed') return 'failed';
  return 'done';
}

/** Model facts for the context meter and the cost (agentls.info). */
export interface ModelInfo {
  model?: string;
  contextTokens?: number;
  priceInput?: number;
  priceOutput?: number;
  /** tools.approval as it applies, and a task's budget: for the status item. */
  approval?: string;
  maxSteps?: number;
  maxCostUSD?: number;
}

/**
 * How commands are approved and what is left of a task's budget:
 * "sandboxed · 27 steps left · $0.40 left"; '' when the server did not say.
 */
export function autonomyText(info: ModelInfo, t?: { step?: number; usage?: Usage }): string {
  if (!info.approval) return '';
  const parts = [info.approval];
  if ((info.maxSteps ?? 0) > 0) parts.push(`${Math.max(0, info.maxSteps! - (t?.step ?? 0))} steps left`);
  if ((info.maxCostUSD ?? 0) > 0) {
    const u = t?.usage;
    const spent = u ? (u.inputTokens * (info.priceInput ?? 0) + u.outputTokens * (info.priceOutput ?? 0)) / 1e6 : 0;
    parts.push(`$${Math.max(0, info.maxCostUSD! - spent).toFixed(2)} left`);
  }
  return parts.join(' · ');
}

/** A command's output as the model got it, a line each under its call. */
export function outputLines(output: string | undefined): string[] {
  const t = (output ?? '').trim();
  return t === '' ? [] : t.split('\n');
}

/** "1167 in / 69 out tokens · context 1% of 128k · $0.0012". */
export function usageLine(total: Usage | undefined, last: Usage | undefined, info: ModelInfo, cost?: number): string {
  if (!total) return '';
  let s = `${total.inputTokens} in / ${total.outputTokens} out tokens`;
  const win = info.contextTokens ?? 0;
  if (last && win > 0) s += ` · context ${Math.round((100 * last.inputTokens) / win)}% of ${Math.round(win / 1000)}k`;
  let c = cost;
  if (!(c && c > 0) && ((info.priceInput ?? 0) > 0 || (info.priceOutput ?? 0) > 0)) {
    c = (total.inputTokens * (info.priceInput ?? 0) + total.outputTokens * (info.priceOutput ?? 0)) / 1e6;
  }
  if (c && c > 0) s += ` · $${c.toFixed(4)}`;
  return s;
}

function baseName(u: string): string {
  const i = u.lastIndexOf('/');
  return decodeURIComponent(i >= 0 ? u.slice(i + 1) : u);
}

/**
 * Renders events as text for an output channel. Text deltas stream onto one
 * line as they come; anything else starts a fresh line, so a tool call that
 * interrupts a sentence does not end up glued to it.
 */
export class StreamRenderer {
  private open: string | undefined; // task whose text line is unfinished

  /** A header for a task this client started. */
  start(taskId: string, prompt: string, session?: string): string {
    return this.line(`━━ ${taskId}${session ? ` (session ${session})` : ''}: ${prompt}`);
  }

  render(ev: AgentEvent): string {
    const id = ev.taskId;
    switch (ev.kind) {
      case 'text': {
        const t = ev.text ?? '';
        if (t === '') return '';
        let out = '';
        if (this.open !== id) {
          out += this.close() + `[${id}] `;
          this.open = id;
        }
        out += t.replace(/\n/g, `\n[${id}] `);
        if (t.endsWith('\n')) {
          // The line is finished; drop the dangling prefix we just wrote.
          out = out.slice(0, out.length - `[${id}] `.length);
          this.open = undefined;
        }
        return out;
      }
      case 'state':
        // Tool calls and the end line already say when the agent goes to
        // tools, back to the model, or idle; the rest are worth a line.
        if (ev.to === 'planning' || ev.to === 'verifying' || ev.to === 'reporting') return this.line(`[${id}] · ${ev.to}`);
        return '';
      case 'toolCall':
        return this.line(`[${id}] → ${toolSummary(ev.call)}`);
      case 'toolResult': {
        const name = ev.call?.name ?? 'tool';
        if (ev.ran) {
          // A command: how it ran and ended, then its output.
          let s = `[${id}] ← ${name} ${ev.isError ? 'failed · ' : ''}${ev.ran}`;
          for (const l of outputLines(ev.output)) s += `\n[${id}]     │ ${l}`;
          return this.line(s);
        }
        if (ev.isError) return this.line(`[${id}] ← ${name} failed: ${shorten(ev.output ?? '', 300)}`);
        return this.line(`[${id}] ← ${name} ok (${toolSize(ev.call, ev.output)})`);
      }
      case 'verify': {
        const v = ev.verify;
        if (!v) return this.line(`[${id}] checks: (no report)`);
        if (v.passed) return this.line(`[${id}] ✓ checks passed: ${v.summary}`);
        let s = `[${id}] ✗ checks failed: ${v.summary}`;
        if (v.problems) s += ` (${plural(v.problems, 'problem')} in Problems)`;
        const fb = (v.feedback ?? '').split('\n').filter((l) => l.trim() !== '').slice(0, 20);
        for (const l of fb) s += `\n[${id}]     ${l}`;
        return this.line(s);
      }
      case 'usage':
        // Token totals live on the task's line (status bar, conversation
        // panel) and in the end line; a line per model call is noise.
        return '';
      case 'retry':
      case 'compaction':
      case 'budget':
      case 'notice':
        return this.line(`[${id}] · ${ev.text ?? ev.kind}`);
      case 'plan': {
        const mark = (s: string) => (s === 'completed' ? '[x]' : s === 'in_progress' ? '[>]' : '[ ]');
        let s = `[${id}] · plan${ev.plan?.explanation ? `: ${ev.plan.explanation}` : ''}`;
        for (const st of ev.plan?.plan ?? []) s += `\n[${id}]     ${mark(st.status)} ${shorten(st.step, 200)}`;
        return this.line(s);
      }
      case 'nested':
        // A sub-agent's step, under the task (the server's one line).
        return ev.line ? this.line(`[${id}]     ↳ ${ev.line}`) : '';
      case 'end':
        return this.line(`[${id}] ■ ${endSummary(ev.result, ev.ended)}`);
      default:
        return this.line(`[${id}] ${ev.kind}`);
    }
  }

  private close(): string {
    if (this.open === undefined) return '';
    this.open = undefined;
    return '\n';
  }

  private line(s: string): string {
    return this.close() + s + '\n';
  }
}

/** One line saying how a task ended. */
export function endSummary(r: Result | undefined, ended?: string): string {
  if (!r) return ended || 'ended';
  const parts: string[] = [ended || statusWord(r)];
  // The server's words name the reason already ("stopped: step limit").
  if (!ended && r.reason && r.reason !== 'done' && r.reason !== r.status && r.reason !== 'verifyFailed' && r.reason !== 'cancelled') parts.push(`(${r.reason})`);
  const files = r.filesChanged ?? [];
  if (files.length > 0) parts.push(`— ${plural(files.length, 'file')} changed: ${files.map(baseName).join(', ')}`);
  if (r.usage) parts.push(`— ${r.usage.inputTokens}/${r.usage.outputTokens} tokens`);
  if (r.cost) parts.push(`$${r.cost.toFixed(4)}`);
  let s = parts.join(' ');
  const tail = r.cancelled ? '' : r.status === 'error' ? r.error : r.summary;
  if (tail) s += `: ${shorten(tail, 200)}`;
  return s;
}

export interface TaskInfo {
  taskId: string;
  session?: string;
  prompt?: string;
  state: string;
  running: boolean;
  result?: Result;
  review?: boolean;
  usage?: Usage; // the task so far
  last?: Usage; // the last model call (its prompt is the context used)
  step?: number; // the latest model turn
  /** How it ended, in the server's words (the end event's "ended"). */
  ended?: string;
}

/** What the status bar item shows. */
export interface StatusView {
  text: string;
  tooltip: string;
  /** The command a click runs: cancel while a task runs. */
  command: 'cancel' | 'run' | 'transcript';
  taskId?: string;
}

/**
 * The tasks of this connection as the events tell them. Tasks started by
 * someone else (a "Fix with agentls" code action) show up on their first
 * event, without a prompt.
 */
export class TaskTracker {
  private tasks = new Map<string, TaskInfo>();
  private order: string[] = [];
  private lastEnded: string | undefined;

  started(taskId: string, prompt: string, session?: string, review?: boolean): TaskInfo {
    const t = this.ensure(taskId);
    t.prompt = prompt;
    t.session = session ?? t.session;
    t.review = review ?? t.review;
    return t;
  }

  apply(ev: AgentEvent): TaskInfo {
    const t = this.ensure(ev.taskId);
    if (ev.session) t.session = ev.session;
    if (typeof ev.step === 'number' && ev.step > (t.step ?? 0)) t.step = ev.step;
    if (ev.kind === 'state' && ev.to) t.state = ev.to;
    if (ev.kind === 'usage') {
      t.usage = ev.taskUsage ?? ev.usage ?? t.usage;
      t.last = ev.usage ?? t.last;
    }
    if (ev.kind === 'end') {
      t.running = false;
      t.state = 'idle';
      t.result = ev.result ?? { status: 'ok' };
      t.ended = ev.ended;
      this.lastEnded = t.taskId;
    }
    return t;
  }

  /**
   * The server's task list (agentls.status): an ended task's outcome
   * ("awaiting review", "undone", "rejected", or none once accepted) as it
   * is now. True when one changed.
   */
  followOutcomes(tasks: { taskId?: string; outcome?: string }[]): boolean {
    let changed = false;
    for (const s of tasks) {
      const t = s.taskId ? this.tasks.get(s.taskId) : undefined;
      if (!t || t.running || !t.result || t.result.outcome === s.outcome) continue;
      // The end's own words said the old outcome: they no longer hold.
      if (t.ended && t.ended === t.result.outcome) t.ended = undefined;
      t.result = { ...t.result, outcome: s.outcome };
      if (!s.outcome) delete t.result.outcome;
      changed = true;
    }
    return changed;
  }

  get(taskId: string): TaskInfo | undefined {
    return this.tasks.get(taskId);
  }

  /** The newest task still running, if any. */
  newestRunning(): TaskInfo | undefined {
    for (let i = this.order.length - 1; i >= 0; i--) {
      const t = this.tasks.get(this.order[i])!;
      if (t.running) return t;
    }
    return undefined;
  }

  /** The newest task, running or not. */
  newest(): TaskInfo | undefined {
    const id = this.order[this.order.length - 1];
    return id === undefined ? undefined : this.tasks.get(id);
  }

  all(): TaskInfo[] {
    return this.order.map((id) => this.tasks.get(id)!);
  }

  view(info: ModelInfo = {}): StatusView {
    const running = this.all().filter((t) => t.running);
    if (running.length > 0) {
      const t = running[running.length - 1];
      const more = running.length > 1 ? ` (+${running.length - 1})` : '';
      const auto = autonomyText(info, t);
      return {
        text: `$(sync~spin) agentls: ${shorten(t.prompt ?? t.taskId, 40)} · ${t.state}${more}${auto ? ` · ${auto}` : ''}`,
        tooltip: `agentls task ${t.taskId} is ${t.state}.${auto ? ` Commands: ${auto} (tools.approval, agent.maxSteps).` : ''} Click to cancel it.`,
        command: 'cancel',
        taskId: t.taskId,
      };
    }
    const last = this.lastEnded === undefined ? undefined : this.tasks.get(this.lastEnded);
    if (!last || !last.result) {
      return { text: '$(hubot) agentls', tooltip: 'Run an agent task', command: 'run' };
    }
    const r = last.result;
    let icon = '$(error)';
    // The icon says verified; the word says what became of the changes.
    let label = last.ended || r.outcome || r.status;
    if (r.outcome === 'awaiting review') {
      icon = '$(eye)';
    } else if (r.status === 'ok' && (r.failedEdits ?? 0) > 0 && (r.filesChanged ?? []).length === 0) {
      icon = '$(warning)';
    } else if (r.status === 'ok' && r.reason === 'verifyFailed') {
      icon = '$(warning)';
      label = last.ended || r.outcome || 'done, checks failing';
    } else if (r.status === 'ok') {
      icon = r.verified ? '$(pass-filled)' : '$(check)';
    } else if (r.status === 'cancelled') {
      icon = '$(circle-slash)';
    }
    return {
      text: `${icon} agentls: ${last.taskId} ${label}`,
      tooltip: `${last.taskId}: ${endSummary(r, last.ended)}\nClick to run another task.`,
      command: 'run',
      taskId: last.taskId,
    };
  }

  private ensure(taskId: string): TaskInfo {
    let t = this.tasks.get(taskId);
    if (!t) {
      t = { taskId, state: 'queued', running: true };
      this.tasks.set(taskId, t);
      this.order.push(taskId);
    }
    return t;
  }
}

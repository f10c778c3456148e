// The conversation panel's blocks as HTML, apart from the webview so they
// can be tested in plain node: a tool call with a command's output folded
// under it, the plan, a task's label. Everything the model wrote is
// escaped. No vscode import.
import { AgentEvent, outputLines, shorten, toolSummary } from './events';
import { escapeHtml } from './markdown';

/**
 * A tool call's row: one line; a command's says how it ran and ended, and
 * its output (the model's capped copy) is a collapsed block under it.
 */
export function toolHtml(ev: AgentEvent, what: string): string {
  const lines = ev.kind === 'toolResult' ? outputLines(ev.output) : [];
  const out = lines.length > 0 ? `<pre>${escapeHtml(lines.join('\n').slice(0, 64 * 1024))}</pre>` : '';
  const cls = ev.ran ? 'tool command' : 'tool';
  return `<details class="${cls}"><summary>→ ${escapeHtml(toolSummary(ev.call))} · ${escapeHtml(what)}</summary>${out}</details>`;
}

/** What a tool result says on its row. */
export function toolWhat(ev: AgentEvent, size: string): string {
  if (ev.ran) return `${ev.isError ? 'failed · ' : ''}${ev.ran}`;
  return ev.isError ? `failed: ${shorten(ev.output ?? '', 120)}` : `ok (${size})`;
}

/** The model's plan: one block per task, drawn again where it is. */
export function planHtml(plan: AgentEvent['plan']): string {
  const steps = plan?.plan ?? [];
  const done = steps.filter((s) => s.status === 'completed').length;
  const mark = (s: string) => (s === 'completed' ? '☑' : s === 'in_progress' ? '▶' : '☐');
  const items = steps
    .map((s) => `<li class="${escapeHtml(s.status)}">${mark(s.status)} ${escapeHtml(shorten(s.step, 200))}</li>`)
    .join('');
  const why = plan?.explanation ? `<div class="why">${escapeHtml(shorten(plan.explanation, 300))}</div>` : '';
  return `<div class="plan"><div class="head">Plan (${done} of ${steps.length} done)</div>${why}<ul>${items}</ul></div>`;
}

/** The label a task's blocks go under when another task wrote last. */
export function labelHtml(taskId: string, prompt: string | undefined): string {
  return `<div class="label">┄ ${escapeHtml(taskId)}${prompt ? ` · ${escapeHtml(shorten(prompt, 80))}` : ''}</div>`;
}

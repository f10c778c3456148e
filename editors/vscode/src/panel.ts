// The conversation panel: a webview that shows the agent's conversation as
// it streams (rendered Markdown, each tool call one collapsed line, the end
// of each task), with a model / tokens / cost line on top and an input box
// at the bottom whose text continues the session (agentls.continue). The
// extension owns the state (blocks); the webview only draws what it is sent,
// so a panel closed and opened again shows the whole conversation.
import * as vscode from 'vscode';

import { AgentEvent, ModelInfo, TaskInfo, autonomyText, statusWord, toolSize, usageLine, shorten, verifyReasons } from './events';
import { escapeHtml, renderMarkdown } from './markdown';
import { PanelState } from './attention';
import { labelHtml, planHtml, toolHtml, toolWhat } from './panelhtml';

export interface PanelHost {
  send(text: string): void;
  stop(): void;
  pickModel(): void;
}

interface Block {
  key: string;
  html: string;
}

/** A verify event: the outcome line and, on a failure, why. */
function verifyHtml(v: NonNullable<AgentEvent['verify']>): string {
  const head = `${v.passed ? '✓ checks passed' : '✗ checks failed'}: ${escapeHtml(v.summary)}`;
  const why = verifyReasons(v);
  const body = why.length > 0 ? `<pre class="why">${escapeHtml(why.join('\n'))}</pre>` : '';
  return `<div class="tool verify">${head}${body}</div>`;
}

export class ConversationPanel {
  private panel: vscode.WebviewPanel | undefined;
  private blocks: Block[] = [];
  private text = new Map<string, { key: string; md: string }>(); // taskId -> open text block
  // taskId + tool-call id -> the row of the call in flight. Keyed per call,
  // not by id alone: a server may reuse ids across turns, and an earlier
  // turn's row must not be overwritten by a later call.
  private calls = new Map<string, string>();
  private seq = 0;
  private meta = '';
  private running = false;
  // The task whose block the panel added last: a block of another task
  // goes under a label naming it, so two tasks never mix unnamed.
  private lastTask: string | undefined;
  private current: string | undefined; // the task of the event being drawn
  private prompts = new Map<string, string>();

  constructor(private readonly host: PanelHost) {}

  get visible(): boolean {
    return this.panel !== undefined;
  }

  /** In front with the focus, on screen, or not shown (a tab behind another counts as not shown). */
  state(): PanelState {
    if (!this.panel || !this.panel.visible) return 'hidden';
    return this.panel.active ? 'focused' : 'visible';
  }

  show(preserveFocus = false): void {
    if (this.panel) {
      this.panel.reveal(undefined, preserveFocus);
      return;
    }
    const p = vscode.window.createWebviewPanel(
      'agentls.conversation',
      'agentls',
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus },
      { enableScripts: true, retainContextWhenHidden: true },
    );
    this.panel = p;
    p.webview.html = this.html(p.webview);
    p.onDidDispose(() => (this.panel = undefined));
    p.webview.onDidReceiveMessage((m: { type: string; text?: string }) => {
      if (m.type === 'ready') this.redraw();
      else if (m.type === 'send' && m.text && m.text.trim() !== '') this.host.send(m.text);
      else if (m.type === 'stop') this.host.stop();
      else if (m.type === 'model') this.host.pickModel();
    });
  }

  /** The user's message, shown as it was typed. */
  user(text: string, review?: boolean, worktree?: boolean): void {
    this.lastTask = undefined; // the task it starts comes under it
    const how = worktree ? ' · in a worktree' : review ? ' · review mode' : '';
    this.upsert(`u${++this.seq}`, `<div class="user"><div class="who">You${how}</div>${renderMarkdown(text)}</div>`);
  }

  error(text: string): void {
    this.upsert(`e${++this.seq}`, `<div class="end err">${escapeHtml(text)}</div>`);
  }

  event(ev: AgentEvent, t: TaskInfo, info: ModelInfo): void {
    const id = ev.taskId;
    this.current = id;
    if (t.prompt) this.prompts.set(id, t.prompt);
    switch (ev.kind) {
      case 'text': {
        let open = this.text.get(id);
        if (!open) {
          open = { key: `t${++this.seq}`, md: '' };
          this.text.set(id, open);
        }
        open.md += ev.text ?? '';
        this.upsert(open.key, `<div class="agent">${renderMarkdown(open.md)}</div>`);
        break;
      }
      case 'notice':
        // What the server did not do with the prompt (a mention not read).
        this.text.delete(id);
        this.upsert(`n${++this.seq}`, `<div class="end">· ${escapeHtml(ev.text ?? '')}</div>`);
        break;
      case 'toolCall': {
        this.text.delete(id);
        const key = `c${++this.seq}`;
        if (ev.call?.id) this.calls.set(`${id}\u0000${ev.call.id}`, key);
        this.upsert(key, this.tool(ev, '…'));
        break;
      }
      case 'nested':
        // A sub-agent's step, under the task.
        if (ev.line) {
          this.text.delete(id);
          this.upsert(`n${++this.seq}`, `<div class="tool nested">↳ ${escapeHtml(ev.line)}</div>`);
        }
        break;
      case 'plan': {
        // One plan per task, drawn again where it is.
        this.text.delete(id);
        this.upsert(`plan-${id}`, planHtml(ev.plan));
        break;
      }
      case 'toolResult': {
        this.text.delete(id);
        const what = toolWhat(ev, toolSize(ev.call, ev.output));
        const ck = `${id}\u0000${ev.call?.id ?? ''}`;
        const key = this.calls.get(ck) ?? `c${++this.seq}`;
        this.calls.delete(ck);
        this.upsert(key, this.tool(ev, what));
        break;
      }
      case 'verify': {
        // The model's next words answer the checks: they start a new
        // block below this one, never glued onto the text above it.
        this.text.delete(id);
        const v = ev.verify;
        if (v) this.upsert(`v${++this.seq}`, verifyHtml(v));
        break;
      }
      case 'end': {
        this.text.delete(id);
        const r = ev.result;
        const msg = r?.cancelled ? '' : r?.status === 'error' ? r?.error ?? '' : '';
        this.upsert(`end-${id}`, `<div class="end">■ ${escapeHtml(id)} ${escapeHtml(ev.ended || statusWord(r))}${msg ? ': ' + escapeHtml(shorten(msg, 300)) : ''}</div>`);
        break;
      }
    }
    this.current = undefined;
    this.running = t.running;
    this.setMeta(info, t);
  }

  setMeta(info: ModelInfo, t?: TaskInfo): void {
    const parts = [`model ${info.model ?? '?'}`];
    if (t?.usage) parts.push(usageLine(t.usage, t.last, info, t.result?.cost));
    if (t) parts.push(t.running ? `${t.taskId} ${t.state}` : `${t.taskId} ${t.ended || statusWord(t.result)}`);
    const auto = autonomyText(info, t);
    if (auto) parts.push(auto);
    this.meta = parts.join(' · ');
    this.running = t?.running ?? this.running;
    void this.panel?.webview.postMessage({ type: 'meta', text: this.meta, running: this.running });
  }

  private tool(ev: AgentEvent, what: string): string {
    return toolHtml(ev, what);
  }

  private upsert(key: string, html: string): void {
    const b = this.blocks.find((x) => x.key === key);
    if (b) {
      b.html = html;
    } else {
      const id = this.current;
      if (id !== undefined && this.lastTask !== undefined && this.lastTask !== id) {
        const lk = `l${++this.seq}`;
        const lh = labelHtml(id, this.prompts.get(id));
        this.blocks.push({ key: lk, html: lh });
        void this.panel?.webview.postMessage({ type: 'block', key: lk, html: lh });
      }
      if (id !== undefined) this.lastTask = id;
      this.blocks.push({ key, html });
    }
    void this.panel?.webview.postMessage({ type: 'block', key, html });
  }

  private redraw(): void {
    void this.panel?.webview.postMessage({ type: 'reset', blocks: this.blocks, meta: this.meta, running: this.running });
  }

  private html(webview: vscode.Webview): string {
    const nonce = Math.random().toString(36).slice(2) + Math.random().toString(36).slice(2);
    const csp = `default-src 'none'; style-src ${webview.cspSource} 'unsafe-inline'; script-src 'nonce-${nonce}';`;
    return `<!DOCTYPE html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<style>
body { font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); color: var(--vscode-foreground); margin: 0; display: flex; flex-direction: column; height: 100vh; }
#meta { padding: 4px 8px; border-bottom: 1px solid var(--vscode-panel-border); color: var(--vscode-descriptionForeground); display: flex; gap: 8px; align-items: center; }
#meta span { flex: 1; }
#log { flex: 1; overflow-y: auto; padding: 8px; }
.user { background: var(--vscode-editor-inactiveSelectionBackground); border-radius: 4px; padding: 4px 8px; margin: 8px 0; }
.who { font-size: 0.85em; color: var(--vscode-descriptionForeground); }
.agent p { margin: 4px 0; }
.tool { font-family: var(--vscode-editor-font-family); font-size: 0.9em; color: var(--vscode-descriptionForeground); margin: 2px 0; }
.tool pre { max-height: 12em; overflow: auto; background: var(--vscode-textCodeBlock-background); padding: 4px; }
.end { margin: 6px 0 12px; font-weight: bold; }
.label { margin: 8px 0 2px; font-size: 0.85em; color: var(--vscode-descriptionForeground); border-top: 1px dashed var(--vscode-panel-border); }
.plan { border-left: 3px solid var(--vscode-focusBorder); padding: 2px 8px; margin: 6px 0; }
.plan .head { font-weight: bold; }
.plan ul { list-style: none; padding-left: 4px; margin: 2px 0; }
.plan li.completed { color: var(--vscode-descriptionForeground); }
.plan li.in_progress { font-weight: bold; }
.err { color: var(--vscode-errorForeground); }
pre, code { font-family: var(--vscode-editor-font-family); }
pre { background: var(--vscode-textCodeBlock-background); padding: 6px; overflow-x: auto; }
#bottom { border-top: 1px solid var(--vscode-panel-border); padding: 6px; display: flex; gap: 6px; }
#input { flex: 1; min-height: 3.5em; resize: vertical; font-family: inherit; color: var(--vscode-input-foreground); background: var(--vscode-input-background); border: 1px solid var(--vscode-input-border, transparent); }
button { color: var(--vscode-button-foreground); background: var(--vscode-button-background); border: none; padding: 4px 10px; cursor: pointer; }
button.secondary { background: var(--vscode-button-secondaryBackground); color: var(--vscode-button-secondaryForeground); }
</style></head><body>
<div id="meta"><span id="metatext">agentls</span><button id="model" class="secondary" title="Pick the model for the next tasks">Model</button><button id="stop" class="secondary" disabled>Stop</button></div>
<div id="log" aria-live="polite"></div>
<div id="bottom"><textarea id="input" placeholder="Ask a follow-up… (Ctrl+Enter sends; @path or @path:10-40 attaches a file)"></textarea><button id="send">Send</button></div>
<script nonce="${nonce}">
const vscode = acquireVsCodeApi();
const log = document.getElementById('log');
const input = document.getElementById('input');
const stop = document.getElementById('stop');
function block(key, html) {
  let el = document.getElementById('b-' + key);
  if (!el) { el = document.createElement('div'); el.id = 'b-' + key; log.appendChild(el); }
  const open = el.querySelector('details[open]') !== null;
  el.innerHTML = html;
  if (open) { const d = el.querySelector('details'); if (d) d.open = true; }
  log.scrollTop = log.scrollHeight;
}
function meta(text, running) { document.getElementById('metatext').textContent = text; stop.disabled = !running; }
window.addEventListener('message', (e) => {
  const m = e.data;
  if (m.type === 'block') block(m.key, m.html);
  else if (m.type === 'meta') meta(m.text, m.running);
  else if (m.type === 'reset') { log.innerHTML = ''; for (const b of m.blocks) block(b.key, b.html); meta(m.meta || 'agentls', m.running); }
});
function send() { const t = input.value; if (t.trim() === '') return; vscode.postMessage({ type: 'send', text: t }); input.value = ''; }
document.getElementById('send').addEventListener('click', send);
input.addEventListener('keydown', (e) => { if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); send(); } });
stop.addEventListener('click', () => vscode.postMessage({ type: 'stop' }));
document.getElementById('model').addEventListener('click', () => vscode.postMessage({ type: 'model' }));
vscode.postMessage({ type: 'ready' });
</script></body></html>`;
  }
}

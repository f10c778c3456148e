// A task that needs you says so where you are: which task a question of the
// server's belongs to, how many tasks wait for you (the Tasks view's badge),
// and the notification a task's end raises when its panel is not in front.
// No vscode import: the unit tests run it in plain node.
import { AgentEvent, Result, shorten, statusWord, taskState } from './events';

/** A tool call asked for and not answered yet, by task. */
interface OpenCall {
  taskId: string;
  args: string[];
}

/** What a notification says and offers; undefined: none is raised. */
export interface Notice {
  level: 'info' | 'warning' | 'error';
  text: string;
  actions: string[];
}

/** The buttons of a task's notification. */
export const SHOW = 'Show';
export const REVIEW = 'Review Changes';

/**
 * Tracks what needs the user: questions of the server waiting for an answer
 * (the server names the asking task in the request's taskId; an older
 * server's question is laid at the door of the running task whose open tool
 * call it names) and tasks whose proposals wait for review (as
 * agentls.status says).
 */
export class Attention {
  private open = new Map<string, OpenCall>(); // taskId + call id -> call
  private running = new Set<string>();
  private asking = new Map<number, string | undefined>(); // question -> taskId
  private reviewing = new Set<string>();
  private seq = 0;

  /** Follows the event stream: tool calls open and close, tasks run and end. */
  event(ev: AgentEvent): void {
    const id = ev.taskId;
    if (ev.kind === 'end') {
      this.running.delete(id);
      for (const k of [...this.open.keys()]) if (this.open.get(k)!.taskId === id) this.open.delete(k);
      return;
    }
    this.running.add(id);
    if (ev.kind === 'toolCall' && ev.call) {
      this.open.set(`${id}\u0000${ev.call.id ?? ''}`, { taskId: id, args: argStrings(ev.call.arguments) });
    } else if (ev.kind === 'toolResult' && ev.call) {
      this.open.delete(`${id}\u0000${ev.call.id ?? ''}`);
    }
  }

  /**
   * The task a question is about: the one the server names in the
   * request's taskId; from a server that names none, the guess below.
   */
  askingTask(p: { message: string; taskId?: unknown }): string | undefined {
    if (typeof p.taskId === 'string' && p.taskId !== '') return p.taskId;
    return this.questionTask(p.message);
  }

  /**
   * An older server's question: the running task whose open tool call
   * has an argument the question quotes (the command, the file), else the
   * only running task; undefined when that is not clear.
   */
  questionTask(message: string): string | undefined {
    const named = new Set<string>();
    for (const c of this.open.values()) {
      if (c.args.some((a) => a.length >= 2 && message.includes(a))) named.add(c.taskId);
    }
    if (named.size === 1) return [...named][0];
    if (named.size === 0 && this.running.size === 1) return [...this.running][0];
    return undefined;
  }

  /** A question is shown; returns its key for answered(). */
  asked(taskId: string | undefined): number {
    const k = ++this.seq;
    this.asking.set(k, taskId);
    return k;
  }

  answered(key: number): void {
    this.asking.delete(key);
  }

  /** The task has a question open. */
  isAsking(taskId: string): boolean {
    return [...this.asking.values()].includes(taskId);
  }

  /** The server's task list: the tasks whose proposals wait for review. */
  setTasks(tasks: { taskId?: string; outcome?: string }[]): void {
    this.reviewing = new Set(tasks.filter((t) => t.outcome === 'awaiting review' && t.taskId).map((t) => t.taskId!));
  }

  /** The server said the task's proposals wait for review. */
  awaitingReview(taskId: string): boolean {
    return this.reviewing.has(taskId);
  }

  /** How many tasks need you: a question open, or proposals to review. */
  count(): number {
    const tasks = new Set(this.reviewing);
    let unknown = 0;
    for (const t of this.asking.values()) {
      if (t === undefined) unknown++;
      else tasks.add(t);
    }
    return tasks.size + unknown;
  }

  /** The badge's tooltip. */
  badgeTooltip(): string {
    const n = this.count();
    return n === 1 ? '1 agentls task needs you' : `${n} agentls tasks need you`;
  }
}

function argStrings(args: string | undefined): string[] {
  try {
    const v = JSON.parse(args ?? '{}');
    if (v && typeof v === 'object') return Object.values(v).filter((x): x is string => typeof x === 'string' && x.trim() !== '').map((x) => x.trim());
  } catch {
    // Botched arguments name nothing.
  }
  return [];
}

/** How a task is named in a notification: "t3 (fix the parser)". */
export function taskName(taskId: string | undefined, prompt: string | undefined): string {
  if (!taskId) return 'a task';
  const p = shorten(String(prompt ?? '').split('\n')[0], 50);
  return p ? `${taskId} (${p})` : taskId;
}

/** A question of the server, naming the task it stops. */
export function questionText(message: string, taskId: string | undefined, prompt: string | undefined): string {
  return taskId ? `agentls ${taskName(taskId, prompt)} needs you: ${message}` : message;
}

/** Where the conversation panel is: in front with the focus, on screen, or not shown. */
export type PanelState = 'focused' | 'visible' | 'hidden';

/**
 * The notification a task's end raises, in place of the server's plain
 * closing message (serverText, "agentls t3 ok: …"): none while its panel
 * has the focus, where the end shows already; its changes waiting for
 * review (Review Changes, Show); failed, as an error (Show); else done
 * (Show). A task you cancelled keeps the plain message.
 */
export function endNotice(
  taskId: string,
  prompt: string | undefined,
  r: Result | undefined,
  opts: { panel: PanelState; awaitingReview: boolean; ended?: string; serverText?: string },
): Notice | undefined {
  if (opts.panel === 'focused') return undefined;
  const name = taskName(taskId, prompt);
  if (opts.awaitingReview || r?.outcome === 'awaiting review') {
    return { level: 'warning', text: `agentls ${name} needs you: its changes wait for your review.`, actions: [REVIEW, SHOW] };
  }
  const word = opts.ended || statusWord(r);
  if (r?.cancelled) return { level: 'info', text: opts.serverText ?? `agentls ${name} ${word}.`, actions: [] };
  if (!r || r.status === 'error' || r.reason === 'verifyFailed') {
    const why = r?.error ? `: ${shorten(r.error, 200)}` : '';
    return { level: 'error', text: opts.serverText ?? `agentls ${name} failed (${word})${why}`, actions: [SHOW] };
  }
  return { level: 'info', text: opts.serverText ?? `agentls ${name} is done: ${word}.`, actions: [SHOW] };
}

/** The task id of the server's closing message ("agentls t3 ok: …"), if it is one. */
export function endMessageTask(message: string): string | undefined {
  return /^agentls (t\d+) /.exec(message)?.[1];
}

/** The Tasks view row's context value: what its menu offers. */
export function taskContext(t: { status?: string; undoable?: boolean; outcome?: string; review?: boolean }): string {
  let v = 'agentlsTask';
  if (t.status === 'running' || t.status === 'queued') v += '.running';
  if (t.undoable) v += '.undoable';
  if (t.outcome === 'awaiting review') v += '.review';
  return v;
}

/** An open review diff tab: the task and the file (protocol URI) it proposes for. */
export interface ReviewTab {
  taskId: string;
  file: string;
}

/**
 * What becomes of open review diff tabs once the proposals changed:
 * remaining maps a task to the files it still proposes changes to
 * (undefined: the server knows no proposal of it any more). A tab whose file
 * is still proposed is read again; the others are closed, never left
 * showing a proposal that is gone.
 */
export function sortReviewTabs<T extends ReviewTab>(tabs: T[], remaining: Map<string, Set<string> | undefined>): { close: T[]; refresh: T[] } {
  const close: T[] = [];
  const refresh: T[] = [];
  for (const t of tabs) {
    const left = remaining.get(t.taskId);
    (left && left.has(t.file) ? refresh : close).push(t);
  }
  return { close, refresh };
}

/** The word said when review diff tabs close: which files, whose, and why. */
export function closedText(tabs: ReviewTab[], why: string): string {
  const names = [...new Set(tabs.map((t) => decodeURIComponent(t.file.split('/').pop() ?? t.file)))];
  const tasks = [...new Set(tabs.map((t) => t.taskId))];
  return `agentls: closed the review diff of ${names.join(', ')}: ${tasks.join(', ')} proposes nothing there any more (${why}).`;
}

/** The task of a "Show Task Changes" document (agentls-diff:/t3.diff). */
export function taskDiffTask(path: string): string | undefined {
  return /^\/([^/]+)\.diff$/.exec(path)?.[1];
}

/**
 * The word said when "Show Task Changes" tabs close: the task's diff is
 * empty now (reason: the server's, e.g. that it was undone).
 */
export function taskDiffClosedText(taskIds: string[], why: string, reason?: string): string {
  const r = reason ? `: ${reason}` : '';
  return `agentls: closed the changes of ${taskIds.join(', ')} (${why})${r}.`;
}

/** The label and description of one Tasks view row; asking: a question of it waits. */
export function taskRow(t: any, asking = false): { label: string; description: string } {
  const word = asking ? 'waiting for your answer' : statusWord(t);
  const state = asking ? 'needs you' : taskState(t);
  return { label: `${t.taskId} ${word}`, description: `${state} · ${String(t.task ?? '').split('\n')[0]}` };
}

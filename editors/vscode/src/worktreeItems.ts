/**
 * The pure part of worktree tasks (agent.isolation "worktree"): how a
 * worktree reads in the QuickPick and what a merge answered says. No vscode
 * import, so the unit tests run it in plain node.
 */

export interface Worktree {
  id: string;
  taskId?: string;
  task?: string;
  state?: string;
  path?: string;
  uri?: string;
  branch?: string;
  pending?: string[];
}

export const worktreeActions = ['Merge', 'Review', 'Continue', 'Open', 'Discard'] as const;
export type WorktreeAction = (typeof worktreeActions)[number];

/** How a worktree is called: its task's short id (t15), as everywhere else, else its own id. */
export function worktreeName(w: Worktree): string {
  return w.taskId || w.id;
}

/** Newest first: the worktree made last leads the picker. */
export function newestFirst(list: (Worktree & { created?: string })[]): Worktree[] {
  return [...list].sort((a, b) => (b.created ?? '').localeCompare(a.created ?? ''));
}

/** A worktree as the QuickPick shows it. */
export function worktreeItem(w: Worktree): { label: string; description: string; detail?: string; worktree: Worktree } {
  const task = (w.task ?? '').replace(/\s+/g, ' ').trim();
  return {
    label: task.length > 60 ? task.slice(0, 60) + '…' : task || worktreeName(w),
    description: `${w.state ?? ''} · ${worktreeName(w)}`,
    detail: w.pending && w.pending.length > 0 ? `waiting: ${w.pending.join(', ')}` : undefined,
    worktree: w,
  };
}

/** What agentls.worktreeMerge answered, as a sentence; warn: show it as a warning. */
export function mergeMessage(res: { id?: string; merged?: number; conflicts?: { uri: string; range?: { start: { line: number } } }[] }): {
  text: string;
  warn: boolean;
} {
  const conflicts = res.conflicts ?? [];
  if (conflicts.length === 0) return { text: `agentls: merged ${res.merged ?? 0} change(s) of ${res.id ?? ''}.`, warn: false };
  const where = conflicts.map((c) => `${String(c.uri).split('/').pop()}:${(c.range?.start.line ?? 0) + 1}`);
  return {
    text: `agentls: merged ${res.merged ?? 0} change(s) of ${res.id ?? ''}; ${conflicts.length} over your own edits stay proposed: ${where.join(', ')}`,
    warn: true,
  };
}

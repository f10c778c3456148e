import * as vscode from 'vscode';

import { PROPOSAL_SCHEME, parse } from './review';
import { Worktree, WorktreeAction, mergeMessage, newestFirst, worktreeActions, worktreeItem, worktreeName } from './worktreeItems';

/** What worktree commands need from the extension: the server's commands and the test probe. */
export interface WorktreeHost {
  exec(command: string, args: object): Promise<any>;
  probeWrite(kind: string, data: Record<string, unknown>): void;
}

/**
 * agentls: Worktree Tasks: pick one of the workspace's worktree tasks (each
 * works in a git worktree of its own), then merge it (every change the user
 * has not edited over; the others stay proposed as diagnostics), review it
 * change by change (quick fixes, Accept/Reject), continue it (a follow-up in
 * the same worktree), open its folder in a new window, or discard it (the
 * worktree and its branch removed).
 */
/** Returns the action done, or undefined when nothing was done. */
export async function worktreeTasks(host: WorktreeHost, arg?: { id?: string; action?: WorktreeAction }): Promise<WorktreeAction | undefined> {
  const res = await host.exec('agentls.worktrees', {});
  if (!res) return;
  const list: Worktree[] = newestFirst(res.worktrees ?? []);
  let w = arg?.id ? list.find((x) => x.id === arg.id || x.taskId === arg.id) ?? { id: arg.id } : undefined;
  if (!w) {
    const items = list.map(worktreeItem);
    host.probeWrite('worktreePicker', { items: items.map((i) => `${i.label} ${i.description} ${i.detail ?? ''}`) });
    if (items.length === 0) {
      void vscode.window.showInformationMessage('agentls: no worktree tasks in this workspace (run one with agent.isolation "worktree").');
      return;
    }
    const pick = await vscode.window.showQuickPick(items, { title: 'agentls: Worktree Tasks', placeHolder: 'Which worktree?' });
    if (!pick) return;
    w = pick.worktree;
  }
  const action =
    arg?.action ?? ((await vscode.window.showQuickPick([...worktreeActions], { title: `agentls: ${worktreeName(w)}`, placeHolder: 'What to do?' })) as WorktreeAction | undefined);
  if (!action) return;
  switch (action) {
    case 'Merge': {
      const r = await host.exec('agentls.worktreeMerge', { id: w.id });
      if (!r) return;
      const m = mergeMessage(r);
      if (m.warn === false) await closeProposalTabs(r.taskId);
      void (m.warn ? vscode.window.showWarningMessage(m.text) : vscode.window.showInformationMessage(m.text));
      return 'Merge';
    }
    case 'Review': {
      const r = await host.exec('agentls.worktreeReview', { id: w.id });
      if (r) void vscode.window.showInformationMessage(`agentls: ${w.id}'s changes are up for review: quick fixes in the files, or Accept/Reject Changes.`);
      return r ? 'Review' : undefined;
    }
    case 'Continue': {
      const task = await vscode.window.showInputBox({ title: `agentls: follow-up in ${w.id}`, prompt: 'What should the agent do next in this worktree?' });
      if (!task || !task.trim()) return;
      const r = await host.exec('agentls.worktreeContinue', { id: w.id, task });
      if (r) void vscode.window.showInformationMessage(`agentls: task ${r.taskId} continues in worktree ${w.id}.`);
      return undefined;
    }
    case 'Open':
      if (w.path) await vscode.commands.executeCommand('vscode.openFolder', vscode.Uri.file(w.path), { forceNewWindow: true });
      return undefined;
    case 'Discard': {
      // Discarding throws the task's work away: asked first.
      const lost = w.pending && w.pending.length > 0 ? ` Its change to ${w.pending.join(', ')} is lost.` : '';
      const ok = await vscode.window.showWarningMessage(`agentls: discard worktree ${worktreeName(w)}?${lost}`, { modal: true }, 'Discard');
      host.probeWrite('discardAsked', { name: worktreeName(w), answer: ok ?? null });
      if (ok !== 'Discard') return;
      const r = await host.exec('agentls.worktreeDiscard', { id: w.id });
      if (r) void vscode.window.showInformationMessage(`agentls: discarded worktree ${worktreeName(w)}.`);
      return r ? 'Discard' : undefined;
    }
  }
}

/** Closes the review diff tabs of a task whose proposals are all merged. */
async function closeProposalTabs(taskId: string | undefined): Promise<void> {
  if (!taskId) return;
  const tabs = vscode.window.tabGroups.all
    .flatMap((g) => g.tabs)
    .filter((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.scheme === PROPOSAL_SCHEME && parse(t.input.modified).taskId === taskId);
  if (tabs.length > 0) await vscode.window.tabGroups.close(tabs);
}

// "Delegate Agent Task" and "Delegated Jobs": a task for an agentls worker
// on another machine (agentls.delegate), and the jobs delegated so far
// (agentls.jobs), a finished one of which comes back as a worktree task
// (agentls.jobFetch) into the Worktree Tasks flow: review, merge, continue,
// discard. docs/multi-machine.md.
import * as vscode from 'vscode';

import { Job, fetchable, jobItem, notFetchableText, refusalText } from './jobItems';

/** What the job commands need from the extension. */
export interface JobsHost {
  /** workspace/executeCommand; the server's error as text instead of a toast. */
  call(command: string, args: object): Promise<{ result?: any; error?: string }>;
  /** The Worktree Tasks flow for one worktree (its actions picker). */
  worktreeTasks(arg: { id: string }): Promise<void>;
  probeWrite(kind: string, data: Record<string, unknown>): void;
}

/**
 * Asks for the task and delegates it. The server answers with the job or
 * refuses saying why (the commit is not pushed, no delegate.url): the
 * refusal is said as is. Its own message tells that the job is out.
 */
export async function delegateTask(host: JobsHost, arg?: { task?: string }): Promise<void> {
  const task =
    arg?.task ??
    (await vscode.window.showInputBox({
      title: 'agentls: Delegate Agent Task',
      prompt: 'A task for an agentls worker on another machine; it runs on the commit you pushed, and its change comes back for review.',
      placeHolder: 'e.g. make TestParseDates pass without changing the test',
      ignoreFocusOut: true,
    }));
  if (!task || task.trim() === '') return;
  const r = await host.call('agentls.delegate', { task });
  host.probeWrite('delegate', { task, result: r.result ?? null, error: r.error ?? null });
  if (r.error !== undefined) {
    void vscode.window.showWarningMessage(`agentls: did not delegate: ${refusalText('agentls.delegate', r.error)}`);
  }
}

/**
 * Lists the delegated jobs, newest first. A finished one picked is fetched
 * (unless it is here already, brought in when it ended) and opens the
 * worktree actions; one that is not finished says where it is.
 */
export async function delegatedJobs(host: JobsHost): Promise<void> {
  const r = await host.call('agentls.jobs', {});
  if (r.error !== undefined) {
    const text = `agentls: cannot list delegated jobs: ${refusalText('agentls.jobs', r.error)}`;
    host.probeWrite('jobsList', { items: [], error: text });
    void vscode.window.showWarningMessage(text);
    return;
  }
  const jobs: Job[] = r.result?.jobs ?? [];
  const items = jobs.map(jobItem);
  host.probeWrite('jobsList', { items: items.map((i) => `${i.label} · ${i.description}${i.detail ? ` · ${i.detail}` : ''}`) });
  if (items.length === 0) {
    void vscode.window.showInformationMessage('agentls: no delegated jobs yet ("agentls: Delegate Agent Task" sends one).');
    return;
  }
  const pick = await vscode.window.showQuickPick(items, { title: 'agentls: Delegated Jobs', placeHolder: 'A finished job brings its change here for review', matchOnDescription: true });
  if (!pick) return;
  const j = pick.job;
  if (!fetchable(j)) {
    void vscode.window.showInformationMessage(notFetchableText(j));
    return;
  }
  const wts = await host.call('agentls.worktrees', {});
  let id = j.id;
  const here = (wts.result?.worktrees ?? []).some((w: { id?: string }) => w.id === j.id);
  if (!here) {
    const f = await host.call('agentls.jobFetch', { id: j.id });
    host.probeWrite('jobFetch', { id: j.id, result: f.result ?? null, error: f.error ?? null });
    if (f.error !== undefined) {
      void vscode.window.showWarningMessage(`agentls: could not fetch job ${j.id}: ${refusalText('agentls.jobFetch', f.error)}`);
      return;
    }
    id = f.result?.worktree || j.id;
  }
  await host.worktreeTasks({ id });
}

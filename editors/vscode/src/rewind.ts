import * as vscode from 'vscode';

/** What rewind needs from the extension: the server's commands and the test probe. */
export interface RewindHost {
  exec(command: string, args: object): Promise<any>;
  probeWrite(kind: string, data: Record<string, unknown>): void;
}

export interface RewindArgs {
  taskId?: string;
  session?: string;
  step?: number;
}

/** A step as the QuickPick shows it. */
export function stepItem(s: any): vscode.QuickPickItem & { step: number } {
  if (s.step === 0) return { label: '0', description: 'before the first step', step: 0 };
  return {
    label: String(s.step),
    description: `${s.taskId ?? ''} · ${s.summary ?? ''}`,
    detail: (s.files ?? []).join(', ') || undefined,
    step: s.step,
  };
}

/**
 * agentls: Rewind Task: pick a step of the task's session (every model turn
 * that changed files; 0 is before the first) and rewind to it through
 * agentls.rewind. The files go back to that step, keeping what the user
 * typed since; the conversation is cut there, so a follow-up goes on from it.
 */
export async function rewindTask(host: RewindHost, taskId: string | undefined, arg?: RewindArgs): Promise<void> {
  const target = arg?.session && !arg.taskId ? { session: arg.session } : { taskId: arg?.taskId ?? taskId };
  if (!('session' in target) && !target.taskId) return;
  let step = arg?.step;
  if (step === undefined) {
    const res = await host.exec('agentls.checkpoints', target);
    if (!res) return;
    const steps: any[] = res.steps ?? [];
    const items = [stepItem({ step: 0 }), ...steps.map(stepItem)];
    host.probeWrite('rewindPicker', { items: items.map((i) => `${i.label} ${i.description ?? ''}`) });
    if (steps.length === 0) {
      void vscode.window.showInformationMessage('agentls: this session has no steps (no task of it changed files).');
      return;
    }
    const pick = await vscode.window.showQuickPick(items, { title: 'agentls: Rewind Task', placeHolder: 'Rewind to which step?' });
    if (!pick) return;
    step = pick.step;
  }
  const res = await host.exec('agentls.rewind', { ...target, step });
  if (!res) return;
  const conflicts: any[] = res.conflicts ?? [];
  if (!res.applied) {
    void vscode.window.showWarningMessage(`agentls: did not rewind: ${res.reason ?? 'no answer'}`);
  } else if (conflicts.length > 0) {
    const where = conflicts.map((c) => `${String(c.uri).split('/').pop()}:${(c.line ?? 0) + 1}`);
    void vscode.window.showWarningMessage(`agentls: rewound session ${res.session} to step ${res.step} except where the files changed since: ${where.join(', ')}`);
  } else {
    void vscode.window.showInformationMessage(`agentls: rewound session ${res.session} to step ${res.step}.`);
  }
}

// Native diff review: a review task's proposal for a file is a virtual
// document (scheme agentls-proposal) holding what the proposal makes of the
// file's current text (agentls.proposal), shown against the file with
// vscode.diff. Accept / Reject buttons in the diff editor's title apply or
// drop that file's proposals.
import * as vscode from 'vscode';

import { ReviewTab, closedText, sortReviewTabs } from './attention';

export const PROPOSAL_SCHEME = 'agentls-proposal';

type Exec = (command: string, args: object) => Promise<any>;

export class ProposalProvider implements vscode.TextDocumentContentProvider {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  constructor(private readonly exec: Exec) {}

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    // The left side of a new file's diff: the file is not there yet.
    if (new URLSearchParams(uri.query).get('absent') === '1') return '';
    const { taskId, file } = parse(uri);
    const res = await this.exec('agentls.proposal', { taskId, uri: file });
    return typeof res?.proposed === 'string' ? res.proposed : '';
  }

  refresh(uri: vscode.Uri): void {
    this.changed.fire(uri);
  }
}

/** The proposal document of one file of a task. */
export function proposalUri(taskId: string, file: vscode.Uri, protocolUri: string): vscode.Uri {
  return vscode.Uri.from({
    scheme: PROPOSAL_SCHEME,
    path: file.path,
    query: new URLSearchParams({ task: taskId, file: protocolUri }).toString(),
  });
}

export function parse(uri: vscode.Uri): { taskId: string; file: string } {
  const q = new URLSearchParams(uri.query);
  return { taskId: q.get('task') ?? '', file: q.get('file') ?? '' };
}

/** Opens one diff editor per file with proposals; returns how many. */
export async function openReviewDiffs(exec: Exec, taskId: string, toCode: (u: string) => vscode.Uri): Promise<number> {
  const res = await exec('agentls.proposal', { taskId });
  const uris: string[] = res?.uris ?? [];
  for (const u of uris) {
    const file = toCode(u);
    const name = file.path.split('/').pop() ?? file.path;
    // A file the proposal creates is not on disk: VS Code's diff would say
    // "file not found" for it, so its left side is an empty document.
    const left = (await exists(file)) ? file : file.with({ scheme: PROPOSAL_SCHEME, query: 'absent=1' });
    await vscode.commands.executeCommand('vscode.diff', left, proposalUri(taskId, file, u), `${name} ↔ agentls ${taskId} (review)`, {
      preview: false,
    });
  }
  return uris.length;
}

async function exists(u: vscode.Uri): Promise<boolean> {
  if (u.scheme !== 'file') return true;
  if (vscode.workspace.textDocuments.some((d) => d.uri.toString() === u.toString())) return true;
  try {
    await vscode.workspace.fs.stat(u);
    return true;
  } catch {
    return false;
  }
}

/**
 * Review diff tabs follow the proposals: after an accept, reject, undo,
 * merge, discard or rewind (why names it), each open proposal tab is read
 * again while its task still proposes a change to its file, and closed with
 * a word when not. Returns the tabs closed and read again.
 */
export async function syncReviewTabs(exec: Exec, provider: ProposalProvider, why: string): Promise<{ closed: ReviewTab[]; refreshed: ReviewTab[] }> {
  const tabs: (ReviewTab & { tab: vscode.Tab; uri: vscode.Uri })[] = [];
  for (const g of vscode.window.tabGroups.all) {
    for (const tab of g.tabs) {
      const input = tab.input;
      if (input instanceof vscode.TabInputTextDiff && input.modified.scheme === PROPOSAL_SCHEME) {
        tabs.push({ ...parse(input.modified), tab, uri: input.modified });
      }
    }
  }
  if (tabs.length === 0) return { closed: [], refreshed: [] };
  const remaining = new Map<string, Set<string> | undefined>();
  for (const taskId of new Set(tabs.map((t) => t.taskId))) {
    const res = await exec('agentls.proposal', { taskId });
    remaining.set(taskId, res && Array.isArray(res.uris) ? new Set<string>(res.uris) : undefined);
  }
  const { close, refresh } = sortReviewTabs(tabs, remaining);
  for (const t of refresh) provider.refresh(t.uri);
  // Closed only if still open: the user may have closed one meanwhile.
  const goneUris = new Set(close.map((t) => t.uri.toString()));
  const now = vscode.window.tabGroups.all
    .flatMap((g) => g.tabs)
    .filter((tab) => tab.input instanceof vscode.TabInputTextDiff && goneUris.has(tab.input.modified.toString()));
  const still = new Set(now.map((tab) => (tab.input as vscode.TabInputTextDiff).modified.toString()));
  const gone = close.filter((t) => still.has(t.uri.toString()));
  if (now.length > 0) {
    await vscode.window.tabGroups.close(now);
    void vscode.window.showInformationMessage(closedText(gone, why));
  }
  const strip = (t: ReviewTab) => ({ taskId: t.taskId, file: t.file });
  return { closed: gone.map(strip), refreshed: refresh.map(strip) };
}

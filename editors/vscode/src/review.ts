// Native diff review: a review task's proposal for a file is a virtual
// document (scheme agentls-proposal) holding what the proposal makes of the
// file's current text (agentls.proposal), shown against the file with
// vscode.diff. Accept / Reject buttons in the diff editor's title apply or
// drop that file's proposals.
import * as vscode from 'vscode';

export const PROPOSAL_SCHEME = 'agentls-proposal';

type Exec = (command: string, args: object) => Promise<any>;

export class ProposalProvider implements vscode.TextDocumentContentProvider {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  constructor(private readonly exec: Exec) {}

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
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
    await vscode.commands.executeCommand('vscode.diff', file, proposalUri(taskId, file, u), `${name} ↔ agentls ${taskId} (review)`, {
      preview: false,
    });
  }
  return uris.length;
}

// The activity-bar view: the server's tasks (agentls.status), newest first.
// Selecting one opens the conversation panel.
import * as vscode from 'vscode';
import { statusWord, taskState } from './events';

export interface StatusSource {
  /** agentls.status without showing errors; undefined when the server is not up. */
  status(): Promise<{ tasks?: any[] } | undefined>;
}

/** The label and description of one task row (pure, unit-tested). */
export function taskRow(t: any): { label: string; description: string } {
  const word = statusWord(t);
  return { label: `${t.taskId} ${word}`, description: `${taskState(t)} · ${String(t.task ?? '').split('\n')[0]}` };
}

export class TasksView implements vscode.TreeDataProvider<any> {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;

  constructor(private readonly src: StatusSource) {}

  refresh(): void {
    this.changed.fire();
  }

  async getChildren(el?: any): Promise<any[]> {
    if (el) return [];
    const st = await this.src.status();
    const tasks = [...(st?.tasks ?? [])];
    return tasks.reverse();
  }

  getTreeItem(t: any): vscode.TreeItem {
    const row = taskRow(t);
    const item = new vscode.TreeItem(row.label);
    item.description = row.description;
    item.tooltip = String(t.task ?? '');
    item.command = { command: 'agentls.showConversation', title: 'Show Conversation' };
    return item;
  }
}

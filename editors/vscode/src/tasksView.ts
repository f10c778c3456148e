// The activity-bar view: the server's tasks (agentls.status), newest first,
// each with its state (running, needs you, failed, done). Selecting one
// opens the conversation panel; its context menu offers what the task can
// do now (undo, rewind, review, cancel). The view's badge counts the tasks
// that need you.
import * as vscode from 'vscode';
import { taskContext, taskRow } from './attention';

export interface StatusSource {
  /** agentls.status without showing errors; undefined when the server is not up. */
  status(): Promise<{ tasks?: any[] } | undefined>;
  /** The task waits for an answer to a question now. */
  asking(taskId: string): boolean;
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
    const row = taskRow(t, this.src.asking(String(t.taskId)));
    const item = new vscode.TreeItem(row.label);
    item.id = String(t.taskId);
    item.description = row.description;
    item.tooltip = String(t.task ?? '');
    item.contextValue = taskContext(t);
    item.command = { command: 'agentls.showConversation', title: 'Show Conversation' };
    return item;
  }
}

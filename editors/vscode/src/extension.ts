// The agentls extension: starts the agentls language server, gives its
// commands a VS Code face (input box, status bar, output channel) and keeps
// its settings in sync. Edits, progress, diagnostics, code actions and the
// refactor preview for review mode come through vscode-languageclient as
// plain LSP; this file adds only what LSP has no UI for. Over 400 lines:
// one class holds the client and every command that needs it; the panel,
// the diff review and the event text live in their own files.
import { execFile } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as vscode from 'vscode';
import {
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
  LanguageClient,
  MessageActionItem,
  MessageType,
  ShowMessageParams,
  LanguageClientOptions,
  ServerOptions,
  State,
  TransportKind,
} from 'vscode-languageclient/node';

import { rewindTask, RewindArgs } from './rewind';
import { worktreeTasks } from './worktrees';
import { JobsHost, delegateTask, delegatedJobs } from './jobs';
import { WorktreeAction } from './worktreeItems';
import { AgentEvent, ModelInfo, StreamRenderer, TaskTracker, endSummary, statusWord, usageLine, vscodeHint, Heads, composedTask } from './events';
import { ConversationPanel } from './panel';
import { doctorMessage, doctorText, parseDoctor } from './doctor';
import { TasksView } from './tasksView';
import { Attention, REVIEW, SHOW, endMessageTask, endNotice, questionText, taskDiffClosedText, taskDiffTask } from './attention';
import { Probe } from './probe';
import { PROPOSAL_SCHEME, ProposalProvider, openReviewDiffs, parse as parseProposal, syncReviewTabs } from './review';
import { resolveServerPath } from './serverPath';
import { explicitSettings, plainTextKeyScopes, serverKeys } from './settings';

/** Secret storage key of the API key ("agentls: Set API Key"). */
const SECRET_KEY = 'agentls.llm.apiKey';
/** The prompt the server gives an agentls.verify task (its first event names it). */
const VERIFY_PROMPT = 'verify the workspace';

interface RunArgs {
  task?: string;
  review?: boolean;
  /** "worktree": this task in a git worktree of its own (agentls.run's isolation). */
  isolation?: string;
  /** agentls.continue: the session to continue. */
  session?: string;
}

/**
 * Keeps the client from announcing change annotations. With them, the
 * server marks review edits needsConfirmation, and VS Code's Refactor
 * Preview opens with every change unticked: Apply then applies nothing.
 * Review happens in the diff editor instead, so an accepted change is
 * applied as is.
 */
const noChangeAnnotations = {
  fillClientCapabilities(caps: any): void {
    if (caps?.workspace?.workspaceEdit) delete caps.workspace.workspaceEdit.changeAnnotationSupport;
    // A question then names the task that asks (taskId); a client that
    // does not say so gets the standard members only.
    caps.experimental = { ...(caps.experimental ?? {}), agentls: { questionTaskId: true } };
  },
  initialize(): void {},
  getState(): { kind: 'static' } {
    return { kind: 'static' };
  },
  clear(): void {},
  dispose(): void {},
};
interface TaskArgs {
  taskId?: string;
  uri?: string;
}

class Agentls {
  private client: LanguageClient | undefined;
  private readonly output = vscode.window.createOutputChannel('agentls');
  private readonly serverLog = vscode.window.createOutputChannel('agentls server');
  private readonly doctorLog = vscode.window.createOutputChannel('agentls doctor');
  /** The activity-bar view of the server's tasks. */
  private readonly heads = new Heads();
  /** What needs the user: open questions, proposals to review (the view's badge). */
  private readonly attention = new Attention();
  readonly tasksView = new TasksView({ status: () => this.quietStatus(), asking: (id) => this.attention.isAsking(id) });
  /** The Tasks view (set by activate): its badge counts the tasks that need you. */
  treeView: vscode.TreeView<any> | undefined;
  private readonly status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 100);
  private tracker = new TaskTracker();
  private renderer = new StreamRenderer();
  private info: ModelInfo = {};
  readonly panel = new ConversationPanel({
    send: (text) => void this.continueTask({ task: text }),
    stop: () => void this.cancelTask(),
    pickModel: () => void this.pickModel(),
  });
  // Quiet: a diff tab whose proposal was merged or rejected meanwhile reads
  // as empty rather than raising an error toast.
  readonly proposals = new ProposalProvider((c, a) => this.exec(c, a, true));
  // agentls.diff texts by document URI, served read-only (TASK_DIFF_SCHEME).
  readonly taskDiffs = new Map<string, string>();
  readonly taskDiffsChanged = new vscode.EventEmitter<vscode.Uri>();
  /** Everything appended to the output channel, for the test probe. */
  private transcript = '';
  private readonly keys: string[];

  constructor(
    private readonly ctx: vscode.ExtensionContext,
    private readonly probe: Probe,
  ) {
    const props = (ctx.extension.packageJSON?.contributes?.configuration?.properties ?? {}) as Record<string, unknown>;
    this.keys = serverKeys(props);
    ctx.subscriptions.push(this.output, this.serverLog, this.status);
    this.updateStatus();
    this.status.show();
  }

  settings(): Record<string, unknown> {
    const cfg = vscode.workspace.getConfiguration('agentls');
    return explicitSettings(this.keys, (k) => cfg.inspect(k));
  }

  /** The agentls binary to run, as resolveServerPath finds it. */
  serverPath(): ReturnType<typeof resolveServerPath> {
    const cfg = vscode.workspace.getConfiguration('agentls');
    return resolveServerPath(
      {
        // The user's own value only: a workspace must never choose the
        // program the extension starts (the setting is machine scope too).
        setting: cfg.inspect<string>('server.path')?.globalValue,
        extensionPath: this.ctx.extensionPath,
        workspaceFolder: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
        env: process.env,
        platform: process.platform,
        home: os.homedir(),
      },
      isExecutable,
    );
  }

  /** The binary's environment. The key travels here only: initializationOptions
   * show up in LSP traces and logs. */
  async serverEnv(): Promise<Record<string, string | undefined>> {
    const env: Record<string, string | undefined> = { ...process.env };
    const secret = await this.ctx.secrets.get(SECRET_KEY);
    if (secret) env.AGENTLS_API_KEY = secret;
    return env;
  }

  /**
   * "agentls: Doctor": runs `agentls doctor --json` on the workspace with
   * this window's settings and the key from secret storage, shows its report
   * in the "agentls doctor" output channel and says in a notification
   * whether a task can run. The binary never prints the key.
   */
  async doctor(): Promise<void> {
    const found = this.serverPath();
    if (found.path === undefined) {
      void vscode.window.showErrorMessage(found.reason);
      return;
    }
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const args = ['doctor', '--json', '--settings', JSON.stringify(this.settings())];
    const env = await this.serverEnv();
    const stdout = await new Promise<string>((resolve) => {
      execFile(found.path!, args, { cwd: folder, env, maxBuffer: 4 << 20, timeout: 120000 }, (_err, out, errOut) =>
        resolve(out || errOut || String(_err ?? '')),
      );
    });
    const report = parseDoctor(stdout);
    this.doctorLog.clear();
    if (!report) {
      this.doctorLog.append(stdout);
      this.doctorLog.show(true);
      this.probe.write('doctor', { error: stdout.slice(0, 2000) });
      void vscode.window.showErrorMessage('agentls doctor did not report; see the "agentls doctor" output.');
      return;
    }
    this.doctorLog.append(doctorText(report));
    this.doctorLog.show(true);
    this.probe.write('doctor', { exit: report.exit, checks: report.checks.map((c) => ({ name: c.name, status: c.status, summary: c.summary })), text: doctorText(report) });
    const m = doctorMessage(report);
    const show = m.level === 'info' ? vscode.window.showInformationMessage : m.level === 'warning' ? vscode.window.showWarningMessage : vscode.window.showErrorMessage;
    void show(m.text);
  }

  async start(): Promise<void> {
    const cfg = vscode.workspace.getConfiguration('agentls');
    const scopes = plainTextKeyScopes(cfg.inspect('llm.apiKey'));
    if (scopes.length > 0) {
      void vscode.window.showWarningMessage(
        `agentls.llm.apiKey in ${scopes.join(' and ')} is ignored: keys do not belong in plain-text settings. ` +
          'Use "agentls: Set API Key" (secret storage) or the AGENTLS_API_KEY environment variable.',
      );
    }
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const found = this.serverPath();
    if (found.path === undefined) {
      this.probe.write('noServer', { reason: found.reason, tried: found.tried });
      this.status.text = '$(error) agentls: no server';
      this.status.tooltip = found.reason;
      const pick = await vscode.window.showErrorMessage(found.reason, 'Open Settings');
      if (pick) void vscode.commands.executeCommand('workbench.action.openSettings', 'agentls.server.path');
      return;
    }

    const env = await this.serverEnv();
    const args = cfg.inspect<string[]>('server.args')?.globalValue ?? [];
    const serverOptions: ServerOptions = {
      command: found.path,
      args: ['serve', ...args],
      transport: TransportKind.stdio,
      options: { env, cwd: folder },
    };
    const initializationOptions = this.settings();
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ scheme: 'file' }, { scheme: 'untitled' }],
      outputChannel: this.serverLog,
      initializationOptions,
      diagnosticCollectionName: 'agentls',
      middleware: {
        window: {
          // The server shows a review task's whole diff as a .diff file;
          // the extension opens VS Code's own diff editor instead
          // (openDiffIfReview), so that document would be a second,
          // read-only copy of the same review.
          showDocument: async (params, next) => {
            if (isReviewDiffFile(params.uri) && vscode.workspace.getConfiguration('agentls').get<boolean>('review.openDiff', true)) {
              this.probe.write('showDocumentHandled', { uri: params.uri });
              return { success: true };
            }
            const res = await next(params, new vscode.CancellationTokenSource().token);
            return 'success' in res ? res : { success: false };
          },
        },
      },
    };
    const client = new LanguageClient('agentls', 'agentls', serverOptions, clientOptions);
    client.registerFeature(noChangeAnnotations as any);
    this.client = client;
    client.onNotification('agentls/event', (ev: AgentEvent) => this.onEvent(ev));
    // The server's questions (may this command run, may this file change)
    // name the task they stop and count on the Tasks view's badge while
    // they wait. Registered before start, it takes the place of the
    // client's own handler.
    client.onRequest('window/showMessageRequest', (p: ShowMessageParams & { actions?: MessageActionItem[]; taskId?: string }) => this.askUser(p));
    // The server's closing message of a task becomes a notification with
    // buttons (endNotice); every other message shows as before.
    client.onNotification('window/showMessage', (p: ShowMessageParams) => this.onShowMessage(p));
    client.onDidChangeState((e) => {
      if (e.newState === State.Stopped && this.client === client) {
        this.status.text = '$(error) agentls: server stopped';
        this.status.tooltip = 'The agentls server stopped; see the "agentls server" output. Run "agentls: Restart Server".';
        this.probe.write('serverStopped');
      }
    });
    try {
      await client.start();
    } catch (err) {
      this.probe.write('startFailed', { error: String(err) });
      void vscode.window.showErrorMessage(`agentls: could not start ${found.path}: ${errorText(err)}`);
      return;
    }
    this.updateStatus();
    this.tasksView.refresh();
    await this.refreshInfo();
    this.probe.write('ready', { serverPath: found.path, source: found.source, settings: initializationOptions });
  }

  async stop(): Promise<void> {
    const c = this.client;
    this.client = undefined;
    if (c) {
      try {
        await c.stop(5000);
      } catch {
        // A server that died already is stopped enough.
      }
    }
  }

  async restart(): Promise<void> {
    await this.stop();
    this.tracker = new TaskTracker();
    await this.start();
  }

  configChanged(e: vscode.ConfigurationChangeEvent): void {
    if (!e.affectsConfiguration('agentls')) return;
    if (e.affectsConfiguration('agentls.server')) {
      void this.restart();
      return;
    }
    const settings = this.settings();
    void this.client?.sendNotification(DidChangeConfigurationNotification.type, { settings: { agentls: settings } });
    this.probe.write('config', { settings });
  }

  /** The model picked for the next tasks ("agentls: Pick Model"). */
  private get model(): string | undefined {
    return this.ctx.workspaceState.get<string>('agentls.model') || undefined;
  }

  private async refreshInfo(): Promise<void> {
    const c = this.client;
    if (!c?.isRunning()) return;
    try {
      this.info = (await c.sendRequest(ExecuteCommandRequest.type, {
        command: 'agentls.info',
        arguments: [this.model ? { model: this.model } : {}],
      })) ?? {};
    } catch {
      this.info = { model: this.model };
    }
    this.panel.setMeta(this.info, this.tracker.newest());
  }

  private onEvent(ev: AgentEvent): void {
    if (!ev || typeof ev.taskId !== 'string') return;
    if (ev.result?.error) ev.result.error = vscodeHint(ev.result.error);
    const head = this.heads.headFor(ev, this.tracker.get(ev.taskId) !== undefined);
    if (head !== undefined) {
      // A task this client did not type (a code action's): a header like a typed one's.
      this.tracker.started(ev.taskId, head, ev.session);
      this.append(this.renderer.start(ev.taskId, head, ev.session));
      this.panel.user(head);
    }
    const t = this.tracker.apply(ev);
    this.attention.event(ev);
    this.append(this.renderer.render(ev));
    this.panel.event(ev, t, this.info);
    if (ev.kind === 'usage') this.updateStatus();
    this.probe.write('event', { event: ev });
    if (ev.kind === 'state' || ev.kind === 'end') this.updateStatus();
    if (ev.kind === 'end' || (ev.kind === 'state' && ev.from === 'idle')) this.tasksView.refresh();
    if (ev.kind === 'end') {
      const uris = (ev.result?.filesChanged ?? []).map(String);
      this.probe.write('end', {
        taskId: t.taskId,
        result: ev.result,
        summary: endSummary(ev.result),
        status: this.status.text,
        output: this.transcript,
        docs: openDocs(),
        filesChanged: uris,
      });
      if (vscode.workspace.getConfiguration('agentls').get<boolean>('review.openDiff', true)) {
        void this.openDiffIfReview(t.taskId);
      }
      void this.saveHiddenChanges(uris, 'ended');
    }
  }

  /**
   * Saves the files of changed (the task's filesChanged: paths under the
   * workspace or URIs) that hold unsaved changes although no tab shows
   * them: the agent's edit of a file you had not opened. With
   * files.autoSave off VS Code keeps such an edit in a hidden model, so
   * the disk (what the next task's checks, git and your other tools read)
   * would still have the old text and nothing on screen would say so. A
   * file with a tab is yours to save. VS Code's files.refactoring.autoSave
   * false keeps them unsaved, as it does for refactorings.
   */
  private async saveHiddenChanges(changed: string[], why: string): Promise<void> {
    if (changed.length === 0) return;
    const root = vscode.workspace.workspaceFolders?.[0]?.uri;
    const want = new Set(
      changed.map((f) => (/^[a-z][a-z0-9+.-]*:/i.test(f) ? vscode.Uri.parse(f) : root ? vscode.Uri.joinPath(root, f) : vscode.Uri.file(f)).toString()),
    );
    await this.saveHidden((u) => want.has(u), why);
  }

  /** The file documents with unsaved changes now (see saveNewHiddenChanges). */
  private dirtyDocs(): Set<string> {
    return new Set(vscode.workspace.textDocuments.filter((d) => d.uri.scheme === 'file' && d.isDirty).map((d) => d.uri.toString()));
  }

  /**
   * After a merge or rewind, whose files the extension does not know
   * beforehand: the documents that became unsaved meanwhile while no tab
   * shows them (nobody can type into those) are the server's edits; they
   * are saved as saveHiddenChanges says.
   */
  private async saveNewHiddenChanges(before: Set<string>, why: string): Promise<void> {
    await this.saveHidden((u) => !before.has(u), why);
  }

  private async saveHidden(want: (uri: string) => boolean, why: string): Promise<void> {
    if (!vscode.workspace.getConfiguration('files').get<boolean>('refactoring.autoSave', true)) return;
    const shown = new Set<string>();
    for (const tab of vscode.window.tabGroups.all.flatMap((g) => g.tabs)) {
      const input = tab.input;
      if (input instanceof vscode.TabInputText) shown.add(input.uri.toString());
      else if (input instanceof vscode.TabInputTextDiff) shown.add(input.original.toString()).add(input.modified.toString());
    }
    const saved: string[] = [];
    for (const doc of vscode.workspace.textDocuments) {
      const u = doc.uri.toString();
      if (doc.uri.scheme !== 'file' || !doc.isDirty || !want(u) || shown.has(u)) continue;
      if (await doc.save()) saved.push(u);
    }
    if (saved.length > 0) this.probe.write('hiddenSaved', { why, files: saved });
  }

  private append(s: string): void {
    if (s === '') return;
    this.output.append(s);
    this.transcript += s;
  }

  private updateStatus(): void {
    const v = this.tracker.view(this.info);
    const t = v.taskId ? this.tracker.get(v.taskId) : undefined;
    const usage = t?.usage ? usageLine(t.usage, t.last, this.info, t.result?.cost) : '';
    this.status.text = v.text;
    this.status.tooltip = usage ? `${v.tooltip}\n${usage}` : v.tooltip;
    this.status.command =
      v.command === 'cancel'
        ? { title: 'Cancel agentls task', command: 'agentls.cancelTask', arguments: [{ taskId: v.taskId }] }
        : { title: 'Run agentls task', command: 'agentls.runTask' };
  }

  /** workspace/executeCommand; undefined after an error the user was shown. */
  private async exec(command: string, args: object, quiet = false): Promise<any> {
    const c = this.client;
    if (!c || !c.isRunning()) {
      void vscode.window.showErrorMessage('agentls: the server is not running (see the "agentls server" output).');
      this.probe.write('commandResult', { command, error: 'not running' });
      return undefined;
    }
    const r = await this.call(command, args);
    if (r.error === undefined) return r.result;
    if (quiet) return undefined;
    // The server's errors may name the command already.
    void vscode.window.showErrorMessage(r.error.startsWith(`${command}:`) ? r.error : `${command}: ${r.error}`);
    return undefined;
  }

  /** workspace/executeCommand: its answer, or the server's error as text (shown by the caller). */
  async call(command: string, args: object): Promise<{ result?: any; error?: string }> {
    const c = this.client;
    if (!c || !c.isRunning()) {
      this.probe.write('commandResult', { command, error: 'not running' });
      return { error: 'the server is not running (see the "agentls server" output)' };
    }
    try {
      const res = await c.sendRequest(ExecuteCommandRequest.type, { command, arguments: [args] });
      this.probe.write('commandResult', { command, args, result: res });
      return { result: res ?? {} };
    } catch (err) {
      this.probe.write('commandResult', { command, args, error: errorText(err) });
      return { error: errorText(err) };
    }
  }

  async runTask(arg?: RunArgs): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    const sel = editor && !editor.selection.isEmpty;
    let isolation = arg?.isolation;
    let task = arg?.task;
    if (task === undefined) {
      const typed = await askTask(sel === true, arg?.review === true);
      if (!typed) return;
      task = typed.task;
      isolation = isolation ?? typed.isolation;
    }
    if (!task || task.trim() === '') return;
    const c = this.client;
    const args: Record<string, unknown> = { task };
    if (arg?.session) args.session = arg.session;
    if (this.model) args.model = this.model;
    // Only a file of the workspace is context: the server refuses any
    // other (the review .diff it opened lies in its state directory).
    const inWorkspace = editor && (editor.document.uri.scheme === 'untitled' || (editor.document.uri.scheme === 'file' && vscode.workspace.getWorkspaceFolder(editor.document.uri) !== undefined));
    if (editor && c && inWorkspace) {
      args.uri = c.code2ProtocolConverter.asUri(editor.document.uri);
      args.range = c.code2ProtocolConverter.asRange(editor.selection);
    }
    if (arg?.review !== undefined) args.review = arg.review;
    if (isolation) args.isolation = isolation;
    this.panel.show(true);
    this.panel.user(task, arg?.review, isolation === 'worktree');
    this.heads.expect(task);
    const res = await this.exec(arg?.session ? 'agentls.continue' : 'agentls.run', args);
    if (!res?.taskId) {
      this.heads.unexpect(task);
      this.panel.error(`${arg?.session ? 'agentls.continue' : 'agentls.run'} failed (see the notification)`);
      return;
    }
    this.tracker.started(res.taskId, task, res.session, arg?.review ?? this.tracker.get(res.taskId)?.review);
    this.append(this.renderer.start(res.taskId, task, res.session));
    // The Output panel stays where the user left it: the conversation
    // panel shows the run, and Show Transcript opens the stream.
    this.updateStatus();
    this.tasksView.refresh();
  }

  /** Untitled documents opened by Compose Agent Task, by URI. */
  private readonly composing = new Set<string>();

  /** A task of several lines: an untitled document that Send Composed Task runs. */
  async composeTask(): Promise<void> {
    const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: '' });
    this.composing.add(doc.uri.toString());
    await vscode.window.showTextDocument(doc, { preview: false });
    void vscode.commands.executeCommand('setContext', 'agentls.composing', true);
    void vscode.window.showInformationMessage('agentls: write the task (several lines if you like), then "agentls: Send Composed Task" (Ctrl+Alt+A S).');
  }

  async sendComposedTask(): Promise<void> {
    const ed = vscode.window.activeTextEditor;
    if (!ed || !this.composing.has(ed.document.uri.toString())) {
      void vscode.window.showInformationMessage('agentls: no composed task here. Run "agentls: Compose Agent Task (multi-line)" first.');
      return;
    }
    const task = composedTask(ed.document.getText());
    if (task === '') {
      void vscode.window.showInformationMessage('agentls: the task is empty.');
      return;
    }
    this.composing.delete(ed.document.uri.toString());
    void vscode.commands.executeCommand('setContext', 'agentls.composing', this.composing.size > 0);
    // Closed first: the editor context is the file under it, not this draft.
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    await this.runTask({ task });
  }

  /** agentls.status for the tasks view: nothing shown when the server is not up. */
  private async quietStatus(): Promise<{ tasks?: any[] } | undefined> {
    const c = this.client;
    if (!c || !c.isRunning()) return undefined;
    try {
      const st = await c.sendRequest(ExecuteCommandRequest.type, { command: 'agentls.status', arguments: [{}] });
      if (Array.isArray(st?.tasks)) {
        this.attention.setTasks(st.tasks);
        this.updateBadge();
        // What became of an ended task's changes (accepted, undone) is the
        // server's to say: the status item follows it.
        if (this.tracker.followOutcomes(st.tasks)) this.updateStatus();
      }
      return st;
    } catch {
      return undefined;
    }
  }

  /** The Tasks view's badge: how many tasks need you; none at zero. */
  private updateBadge(): void {
    const n = this.attention.count();
    if (this.treeView) this.treeView.badge = n > 0 ? { value: n, tooltip: this.attention.badgeTooltip() } : undefined;
    this.probe.write('badge', { count: n });
  }

  /** Tasks view and badge again, after anything that changes what needs you. */
  private async refreshAttention(): Promise<void> {
    this.tasksView.refresh();
    await this.quietStatus();
  }

  /** A question of the server's, as VS Code's own notification naming its task. */
  private async askUser(p: ShowMessageParams & { actions?: MessageActionItem[]; taskId?: string }): Promise<MessageActionItem | null> {
    const taskId = this.attention.askingTask(p);
    const key = this.attention.asked(taskId);
    this.updateBadge();
    this.tasksView.refresh();
    const text = questionText(p.message, taskId, taskId ? this.tracker.get(taskId)?.prompt : undefined);
    this.probe.write('question', { taskId: taskId ?? null, text, actions: (p.actions ?? []).map((a) => a.title) });
    try {
      const show =
        p.type === MessageType.Error ? vscode.window.showErrorMessage : p.type === MessageType.Warning ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
      const pick = await show(text, ...(p.actions ?? []));
      return pick ?? null;
    } finally {
      this.attention.answered(key);
      this.updateBadge();
      this.tasksView.refresh();
    }
  }

  /** window/showMessage: a task's closing message is its end notice; the rest show as they are. */
  private onShowMessage(p: ShowMessageParams): void {
    const id = endMessageTask(p.message);
    const t = id ? this.tracker.get(id) : undefined;
    if (t && !t.running) {
      void this.notifyEnd(t, p.message);
      return;
    }
    const show = p.type === MessageType.Error ? vscode.window.showErrorMessage : p.type === MessageType.Warning ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
    void show(p.message);
  }

  /** A task ended: a notification where you are, unless its panel has the focus. */
  private async notifyEnd(t: { taskId: string; prompt?: string; result?: any; ended?: string }, serverText: string): Promise<void> {
    await this.quietStatus();
    const awaitingReview = this.attention.awaitingReview(t.taskId);
    const n = endNotice(t.taskId, t.prompt, t.result, { panel: this.panel.state(), awaitingReview, ended: t.ended, serverText });
    this.probe.write('endNotice', { taskId: t.taskId, panel: this.panel.state(), notice: n ?? null });
    if (!n) return;
    if (n.actions.length === 0) {
      void vscode.window.showInformationMessage(n.text);
      return;
    }
    const show = n.level === 'error' ? vscode.window.showErrorMessage : n.level === 'warning' ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
    const pick = await show(n.text, ...n.actions);
    this.probe.write('endNoticeAnswer', { taskId: t.taskId, pick: pick ?? null });
    if (pick === SHOW) this.showConversation();
    else if (pick === REVIEW) await this.reviewDiff({ taskId: t.taskId });
  }

  /** Open review diff tabs follow what just happened to the proposals (why: accepted, undone, …). */
  async syncReviewTabs(why: string): Promise<void> {
    const r = await syncReviewTabs((c, a) => this.exec(c, a, true), this.proposals, why);
    if (r.closed.length > 0 || r.refreshed.length > 0) this.probe.write('reviewTabs', { why, ...r });
    await this.syncTaskDiffTabs(why);
  }

  /**
   * "Show Task Changes" tabs follow the state as review tabs do: each is
   * read again from agentls.diff after an undo, rewind, merge or review; a
   * task whose diff is empty now (undone) has its tab closed, with the
   * server's reason.
   */
  private async syncTaskDiffTabs(why: string): Promise<void> {
    const open = vscode.window.tabGroups.all
      .flatMap((g) => g.tabs)
      .filter((tab) => tab.input instanceof vscode.TabInputText && tab.input.uri.scheme === TASK_DIFF_SCHEME);
    if (open.length === 0) return;
    const refreshed: string[] = [];
    const closed: string[] = [];
    const reasons: string[] = [];
    const gone: vscode.Tab[] = [];
    for (const tab of open) {
      const uri = (tab.input as vscode.TabInputText).uri;
      const taskId = taskDiffTask(uri.path);
      if (!taskId) continue;
      const res = await this.exec('agentls.diff', { taskId }, true);
      if (res && typeof res.diff === 'string' && res.diff !== '') {
        if (this.taskDiffs.get(uri.toString()) !== res.diff) {
          this.taskDiffs.set(uri.toString(), res.diff);
          this.taskDiffsChanged.fire(uri);
          refreshed.push(taskId);
        }
        continue;
      }
      this.taskDiffs.delete(uri.toString());
      gone.push(tab);
      closed.push(taskId);
      if (res?.reason) reasons.push(String(res.reason));
    }
    if (gone.length > 0) {
      await vscode.window.tabGroups.close(gone);
      void vscode.window.showInformationMessage(taskDiffClosedText(closed, why, reasons[0]));
    }
    if (closed.length > 0 || refreshed.length > 0) this.probe.write('taskDiffTabs', { why, closed, refreshed, reasons });
  }

  private syncTimer: ReturnType<typeof setTimeout> | undefined;

  /**
   * Proposal diagnostics were published again (an accept, reject or edit of
   * a file): the review tabs and the badge follow, once the burst is over.
   */
  proposalsChanged(): void {
    if (this.syncTimer) clearTimeout(this.syncTimer);
    this.syncTimer = setTimeout(() => {
      this.syncTimer = undefined;
      void this.syncReviewTabs('changed');
      void this.refreshAttention();
    }, 200);
  }

  /** agentls.verify: the project's checks alone, no model; failures land in Problems. */
  async verify(): Promise<void> {
    this.panel.show(true);
    this.panel.user('Run the project\'s checks (agentls.verify)');
    this.heads.expect(VERIFY_PROMPT);
    const res = await this.exec('agentls.verify', {});
    if (!res?.taskId) {
      this.heads.unexpect(VERIFY_PROMPT);
      this.panel.error('agentls.verify failed (see the notification)');
      return;
    }
    this.tracker.started(res.taskId, 'verify', res.session);
    this.append(this.renderer.start(res.taskId, 'verify', res.session));
    this.updateStatus();
    this.tasksView.refresh();
  }

  async cancelTask(arg?: TaskArgs): Promise<void> {
    const id = arg?.taskId ?? this.tracker.newestRunning()?.taskId;
    const res = await this.exec('agentls.cancel', id ? { taskId: id } : {});
    if (res && !res.cancelled) void vscode.window.showInformationMessage('agentls: no running task to cancel.');
  }

  /** The task a command acts on: the argument's, else the newest. */
  private pickTask(arg?: TaskArgs): string | undefined {
    const id = arg?.taskId ?? this.tracker.newest()?.taskId;
    if (!id) void vscode.window.showInformationMessage('agentls: no task yet. Run "agentls: Run Agent Task" first.');
    return id;
  }

  async review(command: 'agentls.accept' | 'agentls.reject', arg?: TaskArgs): Promise<void> {
    const taskId = this.pickTask(arg);
    if (!taskId) return;
    const res = await this.exec(command, arg?.uri ? { taskId, uri: arg.uri } : { taskId });
    if (res && res.applied === false && command === 'agentls.accept') {
      void vscode.window.showWarningMessage(`agentls: the changes of ${taskId} were not applied.`);
    }
    await this.syncReviewTabs(command === 'agentls.accept' ? 'accepted' : 'rejected');
    void this.refreshAttention();
  }

  /**
   * Undo asks which task: the server's tasks whose changes can be undone
   * (undoable), newest first. A refusal is the server's reason, never a
   * raw error.
   */
  async undoTask(arg?: TaskArgs): Promise<void> {
    let taskId = arg?.taskId;
    if (!taskId) {
      const st = await this.exec('agentls.status', {});
      if (!st) return;
      const tasks = undoCandidates(st.tasks ?? []);
      const items = tasks.map((t) => ({
        label: `${t.taskId} ${statusWord(t)}`,
        description: t.task,
        detail: (t.filesChanged ?? []).map((u: string) => u.split('/').pop()).join(', ') || undefined,
        taskId: t.taskId as string,
      }));
      this.probe.write('undoPicker', { items: items.map((i) => i.taskId) });
      if (items.length === 0) {
        void vscode.window.showInformationMessage('agentls: no task has changes to undo.');
        return;
      }
      const pick = await vscode.window.showQuickPick(items, { title: 'agentls: Undo Task', placeHolder: 'Which task\'s changes to undo?' });
      if (!pick) return;
      taskId = pick.taskId;
    }
    const res = await this.exec('agentls.undo', { taskId });
    if (!res) return;
    await this.saveHiddenChanges(this.tracker.get(taskId)?.result?.filesChanged ?? [], 'undone');
    await this.syncReviewTabs('undone');
    void this.refreshAttention();
    const conflicts: any[] = res.conflicts ?? [];
    const where = conflicts.map((c) => (typeof c === 'string' ? c : `${String(c.uri).split('/').pop()}:${(c.line ?? 0) + 1}`));
    if (res.applied && conflicts.length > 0) {
      void vscode.window.showWarningMessage(`agentls: undid ${taskId} except where the files changed since: ${where.join(', ')}`);
    } else if (res.applied) {
      void vscode.window.showInformationMessage(`agentls: undid ${taskId}.`);
    } else {
      void vscode.window.showWarningMessage(`agentls: did not undo ${taskId}: ${res.reason || where.join(', ') || 'nothing to undo'}`);
    }
  }

  async rewindTask(arg?: RewindArgs): Promise<void> {
    const host = { exec: (c: string, x: object) => this.exec(c, x), probeWrite: (k: string, d: Record<string, unknown>) => this.probe.write(k, d) };
    const before = this.dirtyDocs();
    await rewindTask(host, arg?.taskId || arg?.session ? arg?.taskId : this.pickTask(), arg);
    await this.saveNewHiddenChanges(before, 'rewound');
    await this.syncReviewTabs('rewound');
    void this.refreshAttention();
  }

  async worktreeTasks(arg?: { id?: string; action?: WorktreeAction }): Promise<void> {
    const host = { exec: (c: string, x: object) => this.exec(c, x), probeWrite: (k: string, d: Record<string, unknown>) => this.probe.write(k, d) };
    const before = this.dirtyDocs();
    const done = await worktreeTasks(host, arg);
    if (done === 'Merge') await this.saveNewHiddenChanges(before, 'merged');
    if (done) {
      await this.syncReviewTabs(done === 'Merge' ? 'merged' : done === 'Discard' ? 'discarded' : 'changed');
      void this.refreshAttention();
    }
  }

  private jobsHost(): JobsHost {
    return {
      call: (c, x) => this.call(c, x),
      worktreeTasks: (x) => this.worktreeTasks(x),
      probeWrite: (k, d) => this.probe.write(k, d),
    };
  }

  /** "agentls: Delegate Agent Task": a task for a worker elsewhere (agentls.delegate). */
  async delegateTask(arg?: { task?: string }): Promise<void> {
    await delegateTask(this.jobsHost(), arg);
  }

  /** "agentls: Delegated Jobs": the jobs, a finished one fetched into Worktree Tasks. */
  async delegatedJobs(): Promise<void> {
    await delegatedJobs(this.jobsHost());
  }

  async showTranscript(arg?: TaskArgs): Promise<void> {
    const taskId = this.pickTask(arg);
    if (!taskId) return;
    const res = await this.exec('agentls.status', { taskId });
    if (res && typeof res.transcript === 'string' && res.transcript !== '') {
      const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(res.transcript));
      await vscode.window.showTextDocument(doc, { preview: true });
      return;
    }
    // Servers without a transcript file: the live stream is the transcript.
    this.output.show(true);
  }

  /** A follow-up in the newest task's session (a new task when there is none). */
  async continueTask(arg?: RunArgs): Promise<void> {
    const session = arg?.session ?? this.tracker.newest()?.session;
    const task =
      arg?.task ??
      (await vscode.window.showInputBox({ title: 'agentls: Continue', prompt: 'Follow-up for the agent', ignoreFocusOut: true }));
    if (!task || task.trim() === '') return;
    this.panel.show(true);
    await this.runTask({ task, session, review: arg?.review });
  }

  showConversation(): void {
    this.panel.show();
    this.panel.setMeta(this.info, this.tracker.newest());
  }

  async pickModel(): Promise<void> {
    const res = await this.exec('agentls.models', {});
    if (!res) return;
    const current = this.model ?? res.current;
    const items = (res.models as string[]).map((m) => ({ label: m, description: m === current ? 'current' : undefined }));
    const pick = await vscode.window.showQuickPick(items, { title: 'agentls: Pick Model', placeHolder: `now ${current ?? '?'}` });
    if (!pick) return;
    await this.ctx.workspaceState.update('agentls.model', pick.label);
    await this.refreshInfo();
    this.probe.write('model', { model: pick.label, info: this.info });
    void vscode.window.showInformationMessage(`agentls: the next tasks use ${pick.label}.`);
  }

  /** Task history: pick a task, then what to do with it. */
  async history(): Promise<void> {
    const res = await this.exec('agentls.status', {});
    const tasks: any[] = (res?.tasks ?? []).slice().reverse();
    if (tasks.length === 0) {
      void vscode.window.showInformationMessage('agentls: no tasks yet.');
      return;
    }
    const items = tasks.map((t) => ({
      label: `${t.taskId} ${statusWord(t)}`,
      description: t.task,
      detail: (t.filesChanged ?? []).map((u: string) => u.split('/').pop()).join(', ') || undefined,
      task: t,
    }));
    const pick = await vscode.window.showQuickPick(items, { title: 'agentls: Task History', matchOnDescription: true });
    if (!pick) return;
    const t = pick.task;
    const acts = ['Open Transcript', 'Continue', 'Rewind'];
    if (t.review) acts.push('Review Diff', 'Accept All', 'Reject All');
    else if (t.undoable ?? (t.filesChanged ?? []).length > 0) acts.push('Show Changes', 'Undo');
    this.probe.write('historyActions', { taskId: t.taskId, actions: acts });
    const act = await vscode.window.showQuickPick(acts, { title: `agentls ${t.taskId}` });
    if (act === 'Open Transcript') await this.showTranscript({ taskId: t.taskId });
    else if (act === 'Continue') await this.continueTask({ session: t.session });
    else if (act === 'Review Diff') await this.reviewDiff({ taskId: t.taskId });
    else if (act === 'Accept All') await this.review('agentls.accept', { taskId: t.taskId });
    else if (act === 'Reject All') await this.review('agentls.reject', { taskId: t.taskId });
    else if (act === 'Show Changes') await this.showTaskDiff({ taskId: t.taskId });
    else if (act === 'Undo') await this.undoTask({ taskId: t.taskId });
    else if (act === 'Rewind') await this.rewindTask({ taskId: t.taskId });
  }

  /**
   * "agentls: Run Project Command": a Markdown file of .agentls/commands,
   * picked from agentls.commands with its description, then its
   * arguments; it runs as the task "/name args" (the server expands it).
   */
  async runProjectCommand(): Promise<void> {
    const res = await this.exec('agentls.commands', {});
    if (!res) return;
    if (res.error) void vscode.window.showWarningMessage(`agentls: ${res.error}`);
    const cmds: { name: string; description?: string; argumentHint?: string }[] = res.commands ?? [];
    if (cmds.length === 0) {
      void vscode.window.showInformationMessage('agentls: this project has no commands (Markdown files in .agentls/commands/).');
      return;
    }
    const items = cmds.map((c) => ({ label: `/${c.name}`, description: c.argumentHint, detail: c.description, cmd: c }));
    this.probe.write('projectCommands', { items: items.map((i) => `${i.label} ${i.description ?? ''} — ${i.detail ?? ''}`) });
    const pick = await vscode.window.showQuickPick(items, { title: 'agentls: Run Project Command', matchOnDetail: true });
    if (!pick) return;
    const args = await vscode.window.showInputBox({
      title: `agentls: /${pick.cmd.name}`,
      prompt: pick.cmd.argumentHint ? `Arguments: ${pick.cmd.argumentHint}` : 'Arguments (optional)',
      ignoreFocusOut: true,
    });
    if (args === undefined) return;
    await this.runTask({ task: `/${pick.cmd.name} ${args}`.trim() });
  }

  /** "agentls: Show Task Changes": what an applied task changed (agentls.diff), as a diff document. */
  async showTaskDiff(arg?: TaskArgs): Promise<void> {
    const res = await this.exec('agentls.diff', arg?.taskId ? { taskId: arg.taskId } : {});
    if (!res) return;
    this.probe.write('taskDiff', { taskId: res.taskId, diff: res.diff, reason: res.reason });
    if (!res.diff) {
      void vscode.window.showInformationMessage(`agentls: ${res.reason ?? 'nothing to show'}`);
      return;
    }
    // A read-only virtual document (agentls-diff:/t3.diff): nothing to
    // save when it is closed.
    const uri = vscode.Uri.from({ scheme: TASK_DIFF_SCHEME, path: `/${res.taskId}.diff` });
    this.taskDiffs.set(uri.toString(), res.diff);
    this.taskDiffsChanged.fire(uri);
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.languages.setTextDocumentLanguage(doc, 'diff');
    await vscode.window.showTextDocument(doc, { preview: true });
  }

  /** After a task ends: a review task (by argument or agent.review) opens its diffs. */
  private async openDiffIfReview(taskId: string): Promise<void> {
    try {
      const st: any = await this.client?.sendRequest(ExecuteCommandRequest.type, { command: 'agentls.status', arguments: [{ taskId }] });
      const t = this.tracker.get(taskId);
      if (t && st) t.review = st.review === true;
      if (st?.review) await this.reviewDiff({ taskId });
    } catch {
      // A status the server cannot give is no reason to bother the user.
    }
  }

  /** Opens the native diff of each file a review task proposes to change. */
  async reviewDiff(arg?: TaskArgs): Promise<void> {
    const taskId = arg?.taskId ?? [...this.tracker.all()].reverse().find((t) => t.review && !t.running)?.taskId;
    const c = this.client;
    if (!taskId || !c) {
      void vscode.window.showInformationMessage('agentls: no review task yet. Run "agentls: Run Agent Task (Review)" first.');
      return;
    }
    const n = await openReviewDiffs((cmd, a) => this.exec(cmd, a), taskId, (u) => c.protocol2CodeConverter.asUri(u));
    this.probe.write('reviewDiff', { taskId, files: n });
  }

  /** Accept or reject the proposals of the file in the active diff editor. */
  async reviewFile(command: 'agentls.accept' | 'agentls.reject', uri?: vscode.Uri): Promise<void> {
    const u = uri ?? vscode.window.activeTextEditor?.document.uri;
    if (!u || u.scheme !== PROPOSAL_SCHEME) {
      void vscode.window.showInformationMessage('agentls: open a review diff first ("agentls: Review Changes").');
      return;
    }
    const { taskId, file } = parseProposal(u);
    const res = await this.exec(command, { taskId, uri: file });
    if (!res) return;
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    await this.syncReviewTabs(command === 'agentls.accept' ? 'accepted' : 'rejected');
    void this.refreshAttention();
  }

  async setApiKey(): Promise<void> {
    const key = await vscode.window.showInputBox({
      title: 'agentls: Set API Key',
      prompt: 'API key for the model server, kept in VS Code secret storage. Leave empty to remove it.',
      password: true,
      ignoreFocusOut: true,
    });
    if (key === undefined) return;
    if (key.trim() === '') {
      await this.ctx.secrets.delete(SECRET_KEY);
      void vscode.window.showInformationMessage('agentls: API key removed; restarting the server.');
    } else {
      await this.ctx.secrets.store(SECRET_KEY, key.trim());
      void vscode.window.showInformationMessage('agentls: API key saved in secret storage; restarting the server.');
    }
    this.probe.write('apiKeySet', { removed: key.trim() === '' });
    await this.restart();
  }
}

/** The server's whole-task review file (<state>/reviews/<task>-<session>.diff). */
function isReviewDiffFile(uri: string): boolean {
  return /\/reviews\/[^/]+\.diff$/.test(uri);
}

/** Tasks agentls.undo can revert now, newest first. */
function undoCandidates(tasks: any[]): any[] {
  return tasks.filter((t) => t && t.undoable === true).reverse();
}

function isExecutable(p: string): boolean {
  try {
    const st = fs.statSync(p);
    if (!st.isFile()) return false;
    if (process.platform === 'win32') return true;
    fs.accessSync(p, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function errorText(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (err && typeof err === 'object' && 'message' in err) return String((err as { message: unknown }).message);
  return String(err);
}

/** Text of the open file documents, for the test probe. */
function openDocs(): Record<string, string> {
  const docs: Record<string, string> = {};
  for (const d of vscode.workspace.textDocuments) {
    if (d.uri.scheme === 'file') docs[d.uri.toString()] = d.getText();
  }
  return docs;
}

/** The scheme of "agentls: Show Task Changes" documents. */
const TASK_DIFF_SCHEME = 'agentls-diff';

let agentls: Agentls | undefined;

/**
 * Asks for a task in a quick pick: what is typed is the task, and the item
 * picked says where it runs: in your files (Enter), or in a git worktree
 * of its own whose change comes back for review.
 */
function askTask(selection: boolean, review: boolean): Promise<{ task: string; isolation?: string } | undefined> {
  return new Promise((resolve) => {
    const qp = vscode.window.createQuickPick<vscode.QuickPickItem & { isolation?: string }>();
    qp.title = review ? 'agentls: Run Agent Task (Review)' : 'agentls: Run Agent Task';
    qp.placeholder = selection ? 'What should the agent do? (it sees your selection)' : 'What should the agent do? e.g. add a test for the parser';
    qp.ignoreFocusOut = true;
    const here: vscode.QuickPickItem = {
      label: review ? '$(eye) Run, proposing its changes' : '$(play) Run',
      description: review ? 'your files stay as they are until you accept' : 'in your files',
      alwaysShow: true,
    };
    const wt = {
      label: '$(git-branch) Run in a worktree',
      description: 'a git worktree of its own; its change comes back for review',
      alwaysShow: true,
      isolation: 'worktree',
    };
    qp.items = [here, wt];
    qp.onDidChangeValue(() => {
      if (qp.activeItems.length === 0) qp.activeItems = [here];
    });
    let done = false;
    qp.onDidAccept(() => {
      const item = qp.selectedItems[0] ?? qp.activeItems[0] ?? here;
      const task = qp.value;
      done = true;
      qp.hide();
      resolve(task.trim() === '' ? undefined : { task, isolation: (item as { isolation?: string }).isolation });
    });
    qp.onDidHide(() => {
      qp.dispose();
      if (!done) resolve(undefined);
    });
    qp.show();
  });
}

export async function activate(ctx: vscode.ExtensionContext): Promise<void> {
  const folder = vscode.workspace.workspaceFolders?.[0]?.name ?? '';
  const probe = Probe.fromEnv(process.env, folder);
  const a = new Agentls(ctx, probe);
  agentls = a;
  const reg = (id: string, f: (arg?: any) => unknown) => ctx.subscriptions.push(vscode.commands.registerCommand(id, f));
  reg('agentls.runTask', (arg?: RunArgs) => a.runTask(arg));
  reg('agentls.runTaskReview', (arg?: RunArgs) => a.runTask({ ...arg, review: true }));
  reg('agentls.continueTask', (arg?: RunArgs) => a.continueTask(arg));
  reg('agentls.showConversation', () => a.showConversation());
  reg('agentls.history', () => a.history());
  reg('agentls.pickModel', () => a.pickModel());
  reg('agentls.runProjectCommand', () => a.runProjectCommand());
  reg('agentls.showTaskDiff', (arg?: TaskArgs) => a.showTaskDiff(arg));
  reg('agentls.reviewDiff', (arg?: TaskArgs) => a.reviewDiff(arg));
  reg('agentls.acceptFile', (uri?: vscode.Uri) => a.reviewFile('agentls.accept', uri));
  reg('agentls.rejectFile', (uri?: vscode.Uri) => a.reviewFile('agentls.reject', uri));
  ctx.subscriptions.push(vscode.workspace.registerTextDocumentContentProvider(PROPOSAL_SCHEME, a.proposals));
  ctx.subscriptions.push(
    vscode.workspace.registerTextDocumentContentProvider(TASK_DIFF_SCHEME, {
      onDidChange: a.taskDiffsChanged.event,
      provideTextDocumentContent: (u) => a.taskDiffs.get(u.toString()) ?? '',
    }),
  );
  reg('agentls.cancelTask', (arg?: TaskArgs) => a.cancelTask(arg));
  reg('agentls.acceptTask', (arg?: TaskArgs) => a.review('agentls.accept', arg));
  reg('agentls.rejectTask', (arg?: TaskArgs) => a.review('agentls.reject', arg));
  reg('agentls.undoTask', (arg?: TaskArgs) => a.undoTask(arg));
  reg('agentls.rewindTask', (arg?: RewindArgs) => a.rewindTask(arg));
  reg('agentls.worktreeTasks', (arg?: { id?: string; action?: WorktreeAction }) => a.worktreeTasks(arg));
  reg('agentls.delegateTask', (arg?: { task?: string }) => a.delegateTask(arg));
  reg('agentls.delegatedJobs', () => a.delegatedJobs());
  reg('agentls.showTranscript', (arg?: TaskArgs) => a.showTranscript(arg));
  reg('agentls.setApiKey', () => a.setApiKey());
  reg('agentls.restartServer', () => a.restart());
  // Not agentls.verify: the language client registers the server's commands under their own ids.
  reg('agentls.verifyProject', () => a.verify());
  reg('agentls.doctor', () => a.doctor());
  reg('agentls.composeTask', () => a.composeTask());
  reg('agentls.sendComposedTask', () => a.sendComposedTask());
  reg('agentls.refreshTasks', () => a.tasksView.refresh());
  a.treeView = vscode.window.createTreeView('agentls.tasks', { treeDataProvider: a.tasksView });
  ctx.subscriptions.push(a.treeView);
  ctx.subscriptions.push(vscode.workspace.onDidChangeConfiguration((e) => a.configChanged(e)));
  ctx.subscriptions.push(vscode.languages.onDidChangeDiagnostics(() => a.proposalsChanged()));
  if (probe.enabled) {
    ctx.subscriptions.push(
      vscode.languages.onDidChangeDiagnostics((e) => {
        const diags = e.uris.map((u) => ({
          uri: u.toString(),
          diagnostics: vscode.languages
            .getDiagnostics(u)
            .filter((d) => d.source === 'agentls')
            .map((d) => ({ message: d.message, line: d.range.start.line, severity: d.severity, code: String(d.code ?? '') })),
        }));
        probe.write('diagnostics', { diags });
      }),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.document.uri.scheme === 'file' && e.contentChanges.length > 0) {
          probe.write('docChange', { uri: e.document.uri.toString(), text: e.document.getText() });
        }
      }),
    );
  }
  await a.start();
}

export async function deactivate(): Promise<void> {
  await agentls?.stop();
}

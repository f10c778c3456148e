// End-to-end test of the agentls extension in a real VS Code: code-server with
// the packaged extension installed, driven through headless Chromium the way a
// person would (command palette, input box, status bar, Refactor Preview's
// Apply button), against the real agentls binary and the scripted fake model.
// The extension's test probe (AGENTLS_VSCODE_TEST_RESULTS) writes what it
// saw to a file this script reads; the DOM is checked for what a person sees.
//
// Environment (set by test.sh): CODE_SERVER_ENTRY, EXTENSIONS_DIR, FAKELLM_BIN,
// ARTIFACTS_DIR, WORK_DIR. Prints PASS/FAIL/SKIP per case and a closing
// "N passed, N failed, N skipped" line, then each flaky case (failed once,
// passed when run again in fresh folders) and each failed one with its
// reasons, so the end of a CI log names them; exits 1 when any case failed
// twice.
'use strict';
const { spawn } = require('child_process');
const fs = require('fs');
const http = require('http');
const net = require('net');
const path = require('path');
const readline = require('readline');
const { chromium } = require('playwright-core');

const env = (k) => {
  const v = process.env[k];
  if (!v) throw new Error(`${k} is not set (run editors/vscode/test.sh)`);
  return v;
};
const ENTRY = env('CODE_SERVER_ENTRY');
const EXT_DIR = env('EXTENSIONS_DIR');
const FAKELLM = env('FAKELLM_BIN');
const ARTIFACTS = env('ARTIFACTS_DIR');
const WORK = env('WORK_DIR');
const RESULTS = path.join(WORK, 'probe.jsonl');
const SCRIPTS = path.join(__dirname, 'scripts');

class Skip extends Error {}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const children = [];

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

/** Starts fakellm with a script; resolves to its base URL and request log. */
async function startFakeLLM(name, extraArgs = []) {
  const reqLog = path.join(WORK, `${name}${RETRY.suffix}.requests.jsonl`);
  const p = spawn(FAKELLM, ['-script', path.join(SCRIPTS, `${name}.json`), '-requests', reqLog, ...extraArgs], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.push(p);
  let stderr = '';
  p.stderr.on('data', (d) => (stderr += d));
  const url = await new Promise((resolve, reject) => {
    const rl = readline.createInterface({ input: p.stdout });
    const timer = setTimeout(() => reject(new Error(`fakellm ${name} printed no URL in 10 s: ${stderr}`)), 10000);
    rl.once('line', (l) => {
      clearTimeout(timer);
      resolve(l.trim());
    });
    p.once('exit', (code) => reject(new Error(`fakellm ${name} exited ${code}: ${stderr}`)));
  });
  return { name, url, reqLog, stderr: () => stderr };
}

function writeFiles(dir, files) {
  for (const [rel, text] of Object.entries(files)) {
    const p = path.join(dir, rel);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, typeof text === 'string' ? text : JSON.stringify(text, null, 2));
  }
}

/** The probe's lines for one workspace folder. */
// A retried case works in fresh folders, so nothing of its first try (the
// probe log's lines, the model's request log) is read as its own.
const RETRY = { suffix: '' };

function probe(folder) {
  let text = '';
  try {
    text = fs.readFileSync(RESULTS, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l))
    .filter((r) => r.folder === folder);
}

async function waitFor(what, fn, timeoutMs = 30000, everyMs = 100) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

function waitProbe(folder, what, pred, timeoutMs) {
  return waitFor(what, () => probe(folder).find(pred), timeoutMs);
}

function assert(cond, msg) {
  if (!cond) throw new Error(msg);
}

// ---- driving the workbench like a person -----------------------------------

async function runPaletteCommand(page, title) {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget .quick-input-box input');
  await input.waitFor({ state: 'visible', timeout: 10000 });
  await input.fill('>' + title);
  await page
    .locator('.quick-input-widget .monaco-list-row', { hasText: title })
    .first()
    .waitFor({ state: 'visible', timeout: 10000 });
  await page.keyboard.press('Enter');
}

/** Runs "agentls: Run Agent Task" and types the task into its input box. */
async function runTaskFromPalette(page, task) {
  await runPaletteCommand(page, 'agentls: Run Agent Task');
  const title = page.locator('.quick-input-widget .quick-input-title', { hasText: 'Run Agent Task' });
  await title.waitFor({ state: 'visible', timeout: 10000 });
  await page.keyboard.type(task);
  await page.keyboard.press('Enter');
}

async function openFromExplorer(page, name) {
  const row = page.locator('.explorer-folders-view .monaco-list-row', { hasText: name }).first();
  await row.waitFor({ state: 'visible', timeout: 20000 });
  await row.dblclick();
  await page.locator('.tabs-container .tab', { hasText: name }).first().waitFor({ state: 'visible', timeout: 10000 });
}

async function statusBarText(page) {
  return (await page.locator('#workbench\\.parts\\.statusbar').innerText().catch(() => '')).replace(/\s+/g, ' ');
}

/** Visible text of an element; Monaco renders spaces as U+00A0. */
async function domText(locator) {
  const t = await locator.innerText().catch(() => '');
  return t.replace(/\u00a0/g, ' ');
}

async function editorText(page) {
  return domText(page.locator('.editor-instance .monaco-editor .view-lines').first());
}

async function openWindow(browser, port, dir) {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  page.setDefaultTimeout(15000);
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(dir)}`);
  await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: 60000 });
  const folder = path.basename(dir);
  const ready = await waitProbe(folder, 'the extension to start the server', (r) => ['ready', 'noServer', 'startFailed'].includes(r.kind), 60000);
  assert(ready.kind === 'ready', `extension did not start the server: ${JSON.stringify(ready)}`);
  return { page, folder, ready };
}

// Settings that widen power or start programs are the user's to set: the
// extension reads server.* from the user's settings only, and the server
// applies workspace values of tools.*, sandbox.*, verify.commands,
// mcpServers and llm.baseURL only once trusted. So a case's endpoint and
// log file go into the user's settings, and the rest into the workspace's.
const USER_BASE = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'security.workspace.trust.enabled': false,
  'telemetry.telemetryLevel': 'off',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'update.mode': 'none',
  'window.restoreWindows': 'none',
  'chat.disableAIFeatures': true,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
};

const USER_ONLY = ['agentls.server.', 'agentls.llm.baseURL', 'agentls.verify.commands', 'agentls.tools.', 'agentls.sandbox.', 'agentls.mcpServers'];

function workspaceSettings(llm, extra = {}) {
  const all = {
    'agentls.server.args': ['--log-file', path.join(ARTIFACTS, `agentls-${llm.name}.log`), '--log-level', 'debug'],
    'agentls.llm.baseURL': llm.url,
    'agentls.llm.model': 'test-model',
    'agentls.verify.enabled': false,
    'files.autoSave': 'off',
    ...extra,
  };
  const user = {};
  const ws = {};
  for (const [k, v] of Object.entries(all)) {
    (USER_ONLY.some((p) => k.startsWith(p)) ? user : ws)[k] = v;
  }
  writeFiles(path.join(WORK, 'user-data'), { 'User/settings.json': { ...USER_BASE, ...user } });
  return ws;
}

function endOf(folder, taskId) {
  return (r) => r.kind === 'end' && (!taskId || r.taskId === taskId);
}

// ---- the cases -------------------------------------------------------------

const cases = [];
const def = (name, fn) => cases.push({ name, fn });

def('run a task: selection sent, edit lands, progress, stream, status bar, screenshot', async ({ browser, port }) => {
  const llm = await startFakeLLM('edit');
  const dir = path.join(WORK, 'ws-edit' + RETRY.suffix);
  writeFiles(dir, {
    'hello.txt': 'hello world\nsecond line\n',
    '.vscode/settings.json': workspaceSettings(llm),
  });
  const { page, folder, ready } = await openWindow(browser, port, dir);
  assert(ready.settings?.llm?.baseURL === llm.url, `initializationOptions lack llm.baseURL: ${JSON.stringify(ready.settings)}`);
  // Workspace-scoped settings travel apart (workspaceSettings), so the
  // server can hold back what a workspace may not widen.
  assert((ready.settings?.workspaceSettings ?? ready.settings)?.verify?.enabled === false, `initializationOptions lack verify.enabled=false: ${JSON.stringify(ready.settings)}`);
  assert(ready.source === 'bundled', `server should come from the bundled bin/: got ${ready.source} (${ready.serverPath})`);

  await openFromExplorer(page, 'hello.txt');
  await page.locator('.editor-instance .monaco-editor .view-lines').first().click();
  await page.keyboard.press('Control+Home');
  await page.keyboard.press('Shift+End'); // select "hello world"

  const seen = new Set();
  let shotRunning = false;
  const watcher = (async () => {
    for (let i = 0; i < 300 && !probe(folder).some(endOf(folder)); i++) {
      const text = await statusBarText(page);
      seen.add(text);
      if (!shotRunning && /edit_file/.test(text)) {
        shotRunning = true;
        await page.screenshot({ path: path.join(ARTIFACTS, 'vscode-task-running.png') });
      }
      await sleep(50);
    }
  })();
  await runTaskFromPalette(page, 'greet from agentls on the selected line');
  const end = await waitProbe(folder, 'the task to end', endOf(folder), 30000);
  await watcher;
  assert(end.result?.status === 'ok', `task ended ${JSON.stringify(end.result)}`);

  // The selection went to the model as editor context.
  const reqs = fs.readFileSync(llm.reqLog, 'utf8');
  assert(/hello\.txt; selected lines 1/.test(reqs), 'the model never saw "hello.txt; selected lines 1…": uri/range not sent');

  // The edit landed in the editor buffer (unsaved: the editor owns it).
  const uri = Object.keys(end.docs).find((u) => u.endsWith('/hello.txt'));
  assert(uri && end.docs[uri] === 'hello from agentls\nsecond line\n', `buffer is ${JSON.stringify(end.docs[uri])}`);
  await waitFor('the editor to show the edit', async () => /hello from agentls/.test(await editorText(page)), 5000);

  // Progress ($/progress) and our status bar item were both visible while it ran.
  const texts = [...seen].join('\n');
  assert(/calling model|read_file|edit_file|planning/.test(texts), `no $/progress in the status bar; saw:\n${texts}`);
  assert(/agentls: greet from agentls/.test(texts), `status bar item never showed the running task; saw:\n${texts}`);
  await waitFor('status bar to show the finished task', async () => /agentls: t\d+ ok/.test(await statusBarText(page)), 5000);

  // The stream in the output channel: tool calls, results, text, usage, end.
  for (const want of ['→ read_file hello.txt', '← read_file ok', '→ edit_file hello.txt', 'Let me read the file', 'I changed the selected greeting', 'tokens: ', '■ ok']) {
    assert(end.output.includes(want), `output channel lacks ${JSON.stringify(want)}:\n${end.output}`);
  }
  // …but the Output panel does not pop up on a run (issue 25): the
  // conversation panel shows it, Show Transcript opens the stream.
  const outputPanel = page.locator('#workbench\\.parts\\.panel .view-lines').first();
  const panelText = (await outputPanel.innerText({ timeout: 1000 }).catch(() => '')).replace(/\u00a0/g, ' ');
  assert(!/→ edit_file hello\.txt/.test(panelText), `the Output panel popped up on a run:\n${panelText}`);

  await sleep(500);
  const shot = path.join(ARTIFACTS, 'vscode-task-finished.png');
  await page.screenshot({ path: shot });
  console.log(`  screenshot: ${shot}`);

  // Undo asks which task: only tasks with changes to undo, newest first.
  const skipped = [];
  await runPaletteCommand(page, 'agentls: Undo Task');
  const up = await waitProbe(folder, 'the undo picker', (r) => r.kind === 'undoPicker', 10000);
  assert(JSON.stringify(up.items) === JSON.stringify([end.taskId]), `undo offers ${JSON.stringify(up.items)}, want [${end.taskId}]`);
  await page.locator('.quick-input-widget .quick-input-title', { hasText: 'Undo Task' }).waitFor({ state: 'visible', timeout: 10000 });
  await page.locator('.quick-input-widget .monaco-list-row', { hasText: end.taskId }).first().waitFor({ state: 'visible', timeout: 10000 });
  await page.keyboard.press('Enter');
  const undo = await waitProbe(folder, 'agentls.undo to answer', (r) => r.kind === 'commandResult' && r.command === 'agentls.undo', 10000);
  assert(!undo.error && undo.result?.applied, `undo failed: ${JSON.stringify(undo)}`);
  await waitFor('the undo to restore the text', async () => /hello world/.test(await editorText(page)), 5000);
  // Nothing left to undo: a plain sentence, no picker, no raw error.
  await runPaletteCommand(page, 'agentls: Undo Task');
  const up2 = await waitFor('the second undo picker', () => probe(folder).filter((r) => r.kind === 'undoPicker')[1], 10000);
  assert(up2.items.length === 0, `an undone task is offered again: ${JSON.stringify(up2.items)}`);
  const toasts = page.locator('.notifications-toasts');
  await waitFor('"no task has changes to undo"', async () => /no task has changes to undo/.test(await domText(toasts)), 5000);
  const toastText = await domText(toasts);
  assert(!/jsonrpc|Request .* failed|-32\d\d\d/i.test(toastText), `a raw error is shown: ${toastText}`);
  await runPaletteCommand(page, 'agentls: Show Transcript');
  const st = await waitProbe(folder, 'agentls.status to answer', (r) => r.kind === 'commandResult' && r.command === 'agentls.status' && r.args?.taskId, 10000);
  assert(!st.error, `agentls.status failed: ${st.error}`);
  if (!st.result?.transcript) {
    skipped.push('transcript file (agentls.status has no transcript field yet)');
  } else {
    await page.locator('.tabs-container .tab', { hasText: '.md' }).first().waitFor({ state: 'visible', timeout: 5000 });
  }
  await page.close();
  return skipped;
});

def('cancel from the status bar item', async ({ browser, port }) => {
  const llm = await startFakeLLM('cancel');
  const dir = path.join(WORK, 'ws-cancel' + RETRY.suffix);
  writeFiles(dir, { 'notes.txt': 'nothing here\n', '.vscode/settings.json': workspaceSettings(llm) });
  const { page, folder } = await openWindow(browser, port, dir);
  await runTaskFromPalette(page, 'talk slowly');
  const item = page.locator('#workbench\\.parts\\.statusbar .statusbar-item', { hasText: 'agentls: talk slowly' });
  await item.waitFor({ state: 'visible', timeout: 10000 });
  await waitProbe(folder, 'streamed text', (r) => r.kind === 'event' && r.event.kind === 'text', 10000);
  await item.locator('a, .statusbar-item-label').first().click();
  const end = await waitProbe(folder, 'the task to end', endOf(folder), 10000);
  assert(end.result?.status === 'cancelled', `task should be cancelled, ended ${JSON.stringify(end.result)}`);
  await waitFor('status bar to show the cancelled task', async () => /agentls: t\d+ cancelled/.test(await statusBarText(page)), 5000);
  await page.close();
});

def('verification failures appear in Problems', async ({ browser, port }) => {
  const llm = await startFakeLLM('verify');
  const dir = path.join(WORK, 'ws-verify' + RETRY.suffix);
  writeFiles(dir, {
    'go.mod': 'module example.com/hello\n\ngo 1.22\n',
    'main.go': 'package main\n\nfunc main() {}\n',
    '.vscode/settings.json': workspaceSettings(llm, {
      'agentls.verify.enabled': true,
      'agentls.verify.commands': ['go build ./...'],
      'agentls.agent.maxRetries': 1,
    }),
  });
  const { page, folder } = await openWindow(browser, port, dir);
  await runTaskFromPalette(page, 'call greet from main');
  const end = await waitProbe(folder, 'the task to end', endOf(folder), 60000);
  const verify = probe(folder).find((r) => r.kind === 'event' && r.event.kind === 'verify');
  if (!verify) throw new Skip('the server ran no verification (no verify event): not landed yet');
  assert(!verify.event.verify.passed, `verification should fail: ${JSON.stringify(verify.event.verify)}`);
  assert(/verif|fail/i.test(end.result?.reason ?? '') || end.result?.verified === false, `end: ${JSON.stringify(end.result)}`);
  const diag = await waitProbe(
    folder,
    'agentls diagnostics on main.go',
    (r) => r.kind === 'diagnostics' && r.diags.some((d) => d.uri.endsWith('/main.go') && d.diagnostics.length > 0),
    15000,
  );
  const d = diag.diags.find((x) => x.uri.endsWith('/main.go')).diagnostics[0];
  assert(/greet/.test(d.message), `diagnostic should name greet: ${JSON.stringify(d)}`);
  await waitFor('status bar to say the checks fail', async () => /agentls: t\d+ done, checks failing/.test(await statusBarText(page)), 5000);
  await runPaletteCommand(page, 'View: Focus Problems');
  const problems = page.locator('.markers-panel');
  await waitFor('Problems to list the failure', async () => /undefined: greet/.test(await domText(problems)), 10000);
  await page.screenshot({ path: path.join(ARTIFACTS, 'vscode-verify-problems.png') });
  console.log(`  screenshot: ${path.join(ARTIFACTS, 'vscode-verify-problems.png')}`);
  // The conversation panel says why the checks failed, and the model's
  // answer to the failure comes after it, in a block of its own; the
  // second turn's reused tool-call id "c1" is a row of its own.
  const chat = await waitFor('the conversation panel', async () => {
    for (const f of page.frames()) {
      if ((await f.locator('#log').count().catch(() => 0)) > 0) return f;
    }
    return undefined;
  }, 15000);
  const log = chat.locator('#log');
  await waitFor('the failure text in the panel', async () => /undefined: greet/.test(await domText(log)), 10000);
  const all = await log.innerText();
  const failed = all.indexOf('✗ checks failed');
  const answer = all.indexOf('Reading main.go again.');
  assert(failed >= 0 && answer > failed, `the answer to the failure is not below it:\n${all}`);
  assert(!/does not exist yet\.\s*Reading main\.go again/.test(all), `the answer is glued onto the paragraph above:\n${all}`);
  const rows = await log.locator('details.tool summary').allInnerTexts();
  assert(rows.length === 2 && rows[0].includes('write_file main.go') && rows[1].includes('read_file main.go'),
    `want a row per tool call, reused id or not: ${JSON.stringify(rows)}`);
  await page.close();
});

def('review mode: settings change, proposal, native diff editor, Accept applies (no unticked Refactor Preview), screenshot', async ({ browser, port }) => {
  const llm = await startFakeLLM('review');
  const dir = path.join(WORK, 'ws-review' + RETRY.suffix);
  writeFiles(dir, { 'hello.txt': 'hello world\nsecond line\n', '.vscode/settings.json': workspaceSettings(llm) });
  const { page, folder } = await openWindow(browser, port, dir);
  // Switch review on through the settings file: the extension must send
  // workspace/didChangeConfiguration with it.
  writeFiles(dir, { '.vscode/settings.json': workspaceSettings(llm, { 'agentls.agent.review': true }) });
  await waitProbe(folder, 'didChangeConfiguration with agent.review', (r) => r.kind === 'config' && (r.settings?.workspaceSettings ?? r.settings)?.agent?.review === true, 15000);
  await openFromExplorer(page, 'hello.txt');
  await runTaskFromPalette(page, 'review this');
  const end = await waitProbe(folder, 'the task to end', endOf(folder), 30000);
  assert(end.result?.status === 'ok', `task ended ${JSON.stringify(end.result)}`);
  const uri = Object.keys(end.docs).find((u) => u.endsWith('/hello.txt'));
  assert(end.docs[uri] === 'hello world\nsecond line\n', `review mode applied the edit at once: ${JSON.stringify(end.docs[uri])}`);
  // The task's end opens VS Code's own diff editor: the file against the proposal.
  const rd = await waitProbe(folder, 'the review diff to open', (r) => r.kind === 'reviewDiff', 15000);
  assert(rd.files === 1, `reviewDiff: ${JSON.stringify(rd)}`);
  const diff = page.locator('.monaco-diff-editor').first();
  await diff.waitFor({ state: 'visible', timeout: 15000 });
  await waitFor('the proposal in the diff editor', async () => /second line, reviewed/.test(await domText(diff)), 10000);
  assert((await page.locator('.tabs-container .tab', { hasText: /hello\.txt ↔ agentls t\d+ \(review\)/ }).count()) === 1, 'no diff tab named after the task');
  await sleep(500);
  const shot = path.join(ARTIFACTS, 'vscode-review-diff.png');
  await page.screenshot({ path: shot });
  console.log(`  screenshot: ${shot}`);
  // The server's whole-task .diff file is not opened beside the native diff.
  const sd = await waitProbe(folder, 'the extension to take the review showDocument', (r) => r.kind === 'showDocumentHandled', 10000);
  assert(/\/reviews\/.*\.diff$/.test(sd.uri), `showDocument: ${JSON.stringify(sd)}`);
  assert((await page.locator('.tabs-container .tab', { hasText: /\.diff/ }).count()) === 0, 'a .diff text document was opened');
  // Ctrl+. at column 0 of the proposal's line, in the file itself, offers
  // Accept/Reject this change as quick fixes.
  await page.keyboard.press('F1');
  const qi = page.locator('.quick-input-widget .quick-input-box input');
  await qi.waitFor({ state: 'visible', timeout: 10000 });
  await qi.fill('hello.txt');
  await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'hello.txt' }).first().waitFor({ state: 'visible', timeout: 10000 });
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => !document.querySelector('.quick-input-widget') || getComputedStyle(document.querySelector('.quick-input-widget')).display === 'none');
  await page.keyboard.press('Control+Home');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Control+Period');
  const menu = page.locator('.action-widget');
  await waitFor('the quick fix menu with Accept/Reject this change',
    async () => /Accept this change/.test(await domText(menu)) && /Reject this change/.test(await domText(menu)), 10000);
  await page.screenshot({ path: path.join(ARTIFACTS, 'vscode-review-quickfix.png') });
  await page.keyboard.press('Escape');
  await page.locator('.tabs-container .tab', { hasText: /↔/ }).first().click();
  // Accept from the diff editor's title: applied as is, no Refactor Preview.
  await page.locator('.editor-actions a[aria-label*="Accept This File"]').first().click();
  const acc = await waitProbe(folder, 'agentls.accept to answer', (r) => r.kind === 'commandResult' && r.command === 'agentls.accept', 15000);
  assert(acc.result?.applied === true, `accept: ${JSON.stringify(acc)}`);
  assert(!(await page.getByRole('button', { name: 'Apply', exact: true }).isVisible().catch(() => false)), 'Refactor Preview opened');
  const changed = await waitProbe(folder, 'the accepted change in the document', (r) => r.kind === 'docChange' && r.uri.endsWith('/hello.txt') && /second line, reviewed/.test(r.text), 10000);
  assert(changed.text === 'hello world\nsecond line, reviewed\n', `document: ${JSON.stringify(changed.text)}`);
  // The palette's Accept Changes also applies directly (nothing left: an error, never a preview).
  await page.close();
});

def('conversation panel: Markdown, one line per tool call, model picker, follow-up from the input box, Stop, history, screenshot', async ({ browser, port }) => {
  const llm = await startFakeLLM('chat');
  const dir = path.join(WORK, 'ws-chat' + RETRY.suffix);
  writeFiles(dir, {
    'notes.txt': 'todo\n',
    'b.txt': 'beta two\n',
    '.vscode/settings.json': workspaceSettings(llm),
    '.agentls/commands/shout.md': '---\ndescription: Shout a word\nargument-hint: <word>\n---\nShout the word $ARGUMENTS.\n',
  });
  const { page, folder } = await openWindow(browser, port, dir);
  // The model picker lists the endpoint's /v1/models.
  await runPaletteCommand(page, 'agentls: Pick Model');
  const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: 'gpt-4o-mini' }).first();
  await row.waitFor({ state: 'visible', timeout: 10000 });
  assert(/test-model/.test(await domText(page.locator('.quick-input-widget .monaco-list-rows'))), 'the picker does not list test-model');
  await row.click();
  const m = await waitProbe(folder, 'the model to be set', (r) => r.kind === 'model', 10000);
  assert(m.model === 'gpt-4o-mini' && m.info?.priceInput > 0, `model: ${JSON.stringify(m)}`);

  await openFromExplorer(page, 'notes.txt');
  await runTaskFromPalette(page, 'tidy notes into a list');
  const end = await waitProbe(folder, 'the task to end', endOf(folder), 30000);
  assert(end.result?.status === 'ok', `task ended ${JSON.stringify(end.result)}`);
  const reqs = fs.readFileSync(llm.reqLog, 'utf8').split('\n').filter((l) => l).map((l) => JSON.parse(l));
  assert(reqs[0].body.model === 'gpt-4o-mini', `the task used ${reqs[0].body.model}, not the picked model`);

  // The panel is a webview: find its frame by the log element.
  const chat = await waitFor('the conversation panel', async () => {
    for (const f of page.frames()) {
      if ((await f.locator('#log').count().catch(() => 0)) > 0) return f;
    }
    return undefined;
  }, 15000);
  const log = chat.locator('#log');
  await waitFor('the answer rendered as Markdown', async () => (await log.locator('code', { hasText: 'list' }).count()) > 0, 10000);
  assert((await log.locator('strong', { hasText: 'notes.txt' }).count()) === 1, 'bold text not rendered');
  assert((await log.locator('li').count()) >= 2, 'list not rendered');
  const tools = log.locator('details.tool');
  // read_file, then edit_file (read before edit).
  assert((await tools.count()) === 2, `want one collapsed line per tool call, got ${await tools.count()}`);
  const summary = await tools.nth(1).locator('summary').innerText();
  assert(summary.includes('→ edit_file notes.txt · ok (1 line → 4 lines)'), `tool line: ${summary}`);
  assert(!(await tools.nth(1).evaluate((d) => d.open)), 'the tool call is not collapsed');
  const meta = await chat.locator('#metatext').innerText();
  assert(/model gpt-4o-mini · 41000 in \/ 70 out tokens · context 16% of 128k · \$0\.0062/.test(meta), `meta line: ${meta}`);

  // A two-line follow-up typed into the input box, sent with Ctrl+Enter.
  const input = chat.locator('#input');
  await input.fill('Is @b.txt fine too?\nThis is the second line of the follow-up.');
  await input.press('Control+Enter');
  const cont = await waitProbe(folder, 'agentls.continue to answer', (r) => r.kind === 'commandResult' && r.command === 'agentls.continue', 10000);
  assert(cont.args?.session && cont.args.session === probe(folder).find((r) => r.kind === 'event' && r.event.taskId === end.taskId)?.event.session,
    `the follow-up did not continue the session: ${JSON.stringify(cont.args)}`);
  const end2 = await waitProbe(folder, 'the follow-up to end', (r) => r.kind === 'end' && r.taskId === cont.result.taskId, 20000);
  assert(end2.result?.status === 'ok', `follow-up ended ${JSON.stringify(end2.result)}`);
  const req = fs.readFileSync(llm.reqLog, 'utf8').split('\n').filter((l) => l).map((l) => JSON.parse(l)).pop();
  const text = req.body.messages.map((x) => (typeof x.content === 'string' ? x.content : '')).join('\n');
  assert(text.includes('tidy notes into a list') && text.includes('Is @b.txt fine too?\nThis is the second line'), 'the request lacks the history or the two lines');
  assert(text.includes('Files the user mentioned with @') && text.includes('beta two'), '@b.txt was not attached');
  await waitFor('the follow-up answer in the panel', async () => (await log.locator('strong', { hasText: 'three' }).count()) > 0, 10000);
  assert((await log.locator('.user').count()) === 2, 'both user messages should show');
  await waitFor('Stop to be disabled when nothing runs', () => chat.locator('#stop').isDisabled(), 5000);
  await sleep(300);
  const shot = path.join(ARTIFACTS, 'vscode-conversation.png');
  await page.screenshot({ path: shot });
  console.log(`  screenshot: ${shot}`);

  // Undo asks which task, and a follow-up with no changes is not offered.
  await runPaletteCommand(page, 'agentls: Undo Task');
  const up = await waitProbe(folder, 'the undo picker', (r) => r.kind === 'undoPicker', 10000);
  assert(JSON.stringify(up.items) === JSON.stringify([end.taskId]), `undo offers ${JSON.stringify(up.items)}: want only ${end.taskId}, not the follow-up`);
  await page.locator('.quick-input-widget .quick-input-title', { hasText: 'Undo Task' }).waitFor({ state: 'visible', timeout: 10000 });
  await page.keyboard.press('Escape');

  // Task history: a task with changes offers Undo, a follow-up without none.
  await runPaletteCommand(page, 'agentls: Task History');
  const hist = page.locator('.quick-input-widget .monaco-list-rows');
  await hist.waitFor({ state: 'visible', timeout: 10000 });
  await waitFor('both tasks listed', async () => /t1 ok/.test(await domText(hist)) && /t2 ok/.test(await domText(hist)), 5000);
  await page.locator('.quick-input-widget .monaco-list-row', { hasText: 't2 ok' }).first().click();
  const acts = await waitProbe(folder, 'the history actions', (r) => r.kind === 'historyActions', 5000);
  assert(!acts.actions.includes('Undo') && acts.actions.includes('Continue') && acts.actions.includes('Rewind'), `actions for a task with no changes: ${acts.actions}`);
  // The probe is written just before the second picker opens: Escape only
  // once it shows, or it closes nothing.
  await page.locator('.quick-input-widget .quick-input-title', { hasText: 'agentls t2' }).waitFor({ state: 'visible', timeout: 10000 });
  await page.keyboard.press('Escape');
  await page.waitForFunction(() => !document.querySelector('.quick-input-widget') || getComputedStyle(document.querySelector('.quick-input-widget')).display === 'none');

  // What the applied task changed: "agentls: Show Task Changes" opens the
  // server's diff (agentls.diff) as a diff document.
  await runPaletteCommand(page, 'agentls: Show Task Changes');
  const td = await waitProbe(folder, 'the task diff', (r) => r.kind === 'taskDiff', 10000);
  assert(td.taskId === end.taskId && td.diff.includes('+++ b/notes.txt') && td.diff.includes('-todo') && td.diff.includes('+## Notes'),
    `taskDiff: ${JSON.stringify(td)}`);
  await waitFor('the diff document', async () => (await page.locator('.monaco-editor .view-lines', { hasText: /\+##.Notes/ }).count()) > 0, 15000);
  // The tab follows the state: undone, the task's changes are gone, so
  // its tab closes with the server's word instead of showing them still.
  const diffTab = page.locator('.tabs-container .tab', { hasText: `${end.taskId}.diff` });
  await diffTab.first().waitFor({ state: 'visible', timeout: 10000 });
  await runPaletteCommand(page, 'agentls: Undo Task');
  await page.locator('.quick-input-widget .quick-input-title', { hasText: 'Undo Task' }).waitFor({ state: 'visible', timeout: 10000 });
  await page.locator('.quick-input-widget .monaco-list-row', { hasText: end.taskId }).first().waitFor({ state: 'visible', timeout: 10000 });
  await page.keyboard.press('Enter');
  const undone = await waitProbe(folder, 'agentls.undo to answer', (r) => r.kind === 'commandResult' && r.command === 'agentls.undo', 10000);
  assert(undone.args?.taskId === end.taskId && undone.result?.applied, `undo: ${JSON.stringify(undone)}`);
  const tdt = await waitProbe(folder, 'the task diff tab to follow the undo', (r) => r.kind === 'taskDiffTabs', 10000);
  assert(tdt.why === 'undone' && JSON.stringify(tdt.closed) === JSON.stringify([end.taskId]) && /changes were undone/.test(tdt.reasons[0] ?? ''),
    `taskDiffTabs: ${JSON.stringify(tdt)}`);
  await waitFor('the task diff tab to close', async () => (await diffTab.count()) === 0, 10000);
  await waitFor('the word that it closed', async () => new RegExp(`closed the changes of ${end.taskId} \\(undone\\)`).test(await domText(page.locator('.notifications-toasts'))), 10000);

  // A project command, picked and given its argument.
  await runPaletteCommand(page, 'agentls: Run Project Command');
  const pcRow = page.locator('.quick-input-widget .monaco-list-row', { hasText: '/shout' }).first();
  await pcRow.waitFor({ state: 'visible', timeout: 10000 });
  const pc = await waitProbe(folder, 'the project command list', (r) => r.kind === 'projectCommands', 5000);
  assert(JSON.stringify(pc.items) === JSON.stringify(['/shout <word> — Shout a word']), `project commands: ${JSON.stringify(pc.items)}`);
  await pcRow.click();
  await page.locator('.quick-input-widget .quick-input-title', { hasText: '/shout' }).waitFor({ state: 'visible', timeout: 10000 });
  await page.keyboard.type('echo');
  await page.keyboard.press('Enter');
  const pcRun = await waitProbe(folder, 'the project command to run', (r) => r.kind === 'commandResult' && r.command === 'agentls.run' && r.args?.task === '/shout echo', 10000);
  const end3 = await waitProbe(folder, 'the project command task to end', (r) => r.kind === 'end' && r.taskId === pcRun.result.taskId, 20000);
  assert(end3.result?.status === 'ok', `project command task ended ${JSON.stringify(end3.result)}`);
  const pcReq = fs.readFileSync(llm.reqLog, 'utf8').split('\n').filter((l) => l).map((l) => JSON.parse(l)).pop();
  assert(pcReq.body.messages.some((x) => typeof x.content === 'string' && x.content.includes('Shout the word echo.')),
    'the model did not get the command\'s text');

  await page.close();
});

def('API key from "agentls: Set API Key" reaches the model, and nothing writes it down', async ({ browser, port }) => {
  const key = 'sk-vscode-test-4f1d2e9a7c';
  const llm = await startFakeLLM('key', ['-api-key', key]);
  const dir = path.join(WORK, 'ws-key' + RETRY.suffix);
  writeFiles(dir, { 'notes.txt': 'nothing here\n', '.vscode/settings.json': workspaceSettings(llm) });
  const { page, folder } = await openWindow(browser, port, dir);
  await runPaletteCommand(page, 'agentls: Set API Key');
  await page.locator('.quick-input-widget .quick-input-title', { hasText: 'Set API Key' }).waitFor({ state: 'visible' });
  assert((await page.locator('.quick-input-widget .quick-input-box input').getAttribute('type')) === 'password', 'the key input box is not a password box');
  await page.keyboard.type(key);
  await page.keyboard.press('Enter');
  await waitProbe(folder, 'the server to restart with the key', (r) => r.kind === 'ready' && probe(folder).some((x) => x.kind === 'apiKeySet' && x.time <= r.time), 20000);
  await runTaskFromPalette(page, 'say hello');
  const end = await waitProbe(folder, 'the task to end', endOf(folder), 20000);
  assert(end.result?.status === 'ok', `with the key set, the task should reach the model: ${JSON.stringify(end.result)}`);
  const auth = fs.readFileSync(llm.reqLog, 'utf8');
  assert(/"authorization":"Bearer /.test(auth), 'the model got no Authorization header');
  await page.close();
  await sleep(300);
  for (const f of [RESULTS, path.join(ARTIFACTS, `agentls-${llm.name}.log`), path.join(ARTIFACTS, 'code-server.log'), path.join(dir, '.vscode', 'settings.json'), path.join(WORK, 'user-data', 'User', 'settings.json')]) {
    if (fs.existsSync(f)) assert(!fs.readFileSync(f, 'utf8').includes(key), `the API key is written in ${f}`);
  }
});

def('agentls: Doctor reports the key found but never shown, the model taking tools, and that a task can run', async ({ browser, port }) => {
  const key = 'sk-vscode-doctor-SECRET-31';
  const llm = await startFakeLLM('doctor', ['-api-key', key]);
  const dir = path.join(WORK, 'ws-doctor' + RETRY.suffix);
  writeFiles(dir, { 'notes.txt': 'nothing here\n', '.vscode/settings.json': workspaceSettings(llm) });
  const { page, folder } = await openWindow(browser, port, dir);
  await runPaletteCommand(page, 'agentls: Set API Key');
  await page.locator('.quick-input-widget .quick-input-title', { hasText: 'Set API Key' }).waitFor({ state: 'visible' });
  await page.keyboard.type(key);
  await page.keyboard.press('Enter');
  await waitProbe(folder, 'the server to restart with the key', (r) => r.kind === 'ready' && probe(folder).some((x) => x.kind === 'apiKeySet' && x.time <= r.time), 20000);
  await runPaletteCommand(page, 'agentls: Doctor');
  const r = await waitProbe(folder, 'the doctor report', (x) => x.kind === 'doctor', 60000);
  const check = (name) => (r.checks || []).find((c) => c.name === name) || {};
  assert(r.exit === 0, `doctor exited ${r.exit}: ${r.error || r.text}`);
  assert(check('key').status === 'ok' && /never shown/.test(check('key').summary), `key: ${JSON.stringify(check('key'))}`);
  assert(check('endpoint').status === 'ok' && /tool calls accepted/.test(check('endpoint').summary), `endpoint: ${JSON.stringify(check('endpoint'))}`);
  const toast = page.locator('.notifications-toasts .notification-toast', { hasText: 'a task can run here' }).first();
  await toast.waitFor({ state: 'visible', timeout: 15000 });
  const out = page.locator('.output-view, .panel .monaco-editor .view-lines').first();
  await waitFor('the doctor report in the output panel', async () => /a task can run here/.test(await domText(out)), 15000);
  await page.screenshot({ path: path.join(ARTIFACTS, 'vscode-doctor.png') });
  console.log(`  screenshot: ${path.join(ARTIFACTS, 'vscode-doctor.png')}`);
  const reqs = fs.readFileSync(llm.reqLog, 'utf8');
  assert(/agentls_doctor/.test(reqs), 'the model got no request with the doctor\'s tool');
  await page.close();
  await sleep(300);
  for (const f of [RESULTS, path.join(ARTIFACTS, 'code-server.log')]) {
    if (fs.existsSync(f)) assert(!fs.readFileSync(f, 'utf8').includes(key), `the API key is written in ${f}`);
  }
});

def('a workspace .agentls.json that widens power: "Trust this file" is asked natively and the answer reaches the server', async ({ browser, port }) => {
  const llm = await startFakeLLM('trust');
  const dir = path.join(WORK, 'ws-trust' + RETRY.suffix);
  writeFiles(dir, {
    'notes.txt': 'nothing here\n',
    '.agentls.json': { tools: { allow: ['echo trusted'] } },
    '.vscode/settings.json': workspaceSettings(llm),
  });
  const { page, folder } = await openWindow(browser, port, dir);
  await runTaskFromPalette(page, 'say hello');
  const toast = page.locator('.notifications-toasts .notification-toast', { hasText: 'Trust it?' }).first();
  await toast.waitFor({ state: 'visible', timeout: 15000 });
  const q = await domText(toast);
  assert(q.includes('.agentls.json') && q.includes('tools.allow'), `the question does not name the file and the key: ${q}`);
  await page.screenshot({ path: path.join(ARTIFACTS, 'vscode-trust-question.png') });
  await toast.getByRole('button', { name: 'Trust this file' }).click();
  const end = await waitProbe(folder, 'the task to end', endOf(folder), 20000);
  assert(end.result?.status === 'ok', `task ended ${JSON.stringify(end.result)}`);
  const store = path.join(WORK, 'state', 'agentls', 'trust.json');
  const trusted = fs.existsSync(store) ? fs.readFileSync(store, 'utf8') : '';
  assert(trusted.includes(path.join(dir, '.agentls.json')), `the server did not record the trust: ${store}: ${trusted}`);
  await page.close();
});

def('worktree task: the buffer is untouched; Worktree Tasks lists it, Merge applies it, Continue adds a follow-up merged after it, Discard removes worktree and branch', async ({ browser, port }) => {
  const { execFileSync } = require('child_process');
  const llm = await startFakeLLM('worktree');
  const dir = path.join(WORK, 'ws-worktree');
  writeFiles(dir, { 'hello.txt': 'hello world\nsecond line\n', '.vscode/settings.json': workspaceSettings(llm, { 'agentls.agent.isolation': 'worktree' }) });
  const git = (...args) => execFileSync('git', ['-C', dir, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { encoding: 'utf8' });
  try {
    git('init', '-q');
  } catch {
    throw new Skip('no git');
  }
  git('add', '-A');
  git('commit', '-q', '-m', 'first');
  const { page, folder } = await openWindow(browser, port, dir);
  await openFromExplorer(page, 'hello.txt');
  await runTaskFromPalette(page, 'shout in a worktree');
  const end = await waitProbe(folder, 'the task to end', endOf(folder), 30000);
  assert(end.result?.status === 'ok', `task ended ${JSON.stringify(end.result)}`);
  const uri = Object.keys(end.docs).find((u) => u.endsWith('/hello.txt'));
  assert(end.docs[uri] === 'hello world\nsecond line\n', `a worktree task changed the buffer: ${JSON.stringify(end.docs[uri])}`);
  // Its change is up for review as a review task's: the native diff opens
  // (and takes the focus) once the task ended.
  await waitProbe(folder, 'the review diff to open', (r) => r.kind === 'reviewDiff' && r.files === 1, 15000);
  await page.locator('.monaco-diff-editor').first().waitFor({ state: 'visible', timeout: 15000 });
  await sleep(500);
  const pick = async (title, row) => {
    await runPaletteCommand(page, title);
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'shout in a worktree' }).first().waitFor({ state: 'visible', timeout: 10000 });
    await page.keyboard.press('Enter');
    const input = page.locator('.quick-input-widget .quick-input-box input');
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: row }).first().waitFor({ state: 'visible', timeout: 10000 });
    await input.fill(row);
    await page.keyboard.press('Enter');
  };
  await pick('agentls: Worktree Tasks', 'Merge');
  const listed = await waitProbe(folder, 'the worktree picker', (r) => r.kind === 'worktreePicker', 10000);
  assert(listed.items.length === 1 && /shout in a worktree ended/.test(listed.items[0]) && /waiting: hello\.txt/.test(listed.items[0]), `picker: ${JSON.stringify(listed)}`);
  const merged = await waitProbe(folder, 'agentls.worktreeMerge to answer', (r) => r.kind === 'commandResult' && r.command === 'agentls.worktreeMerge', 15000);
  assert(merged.result?.merged === 1 && merged.result.conflicts.length === 0, `merge: ${JSON.stringify(merged)}`);
  await waitProbe(folder, 'the merged change in the document', (r) => r.kind === 'docChange' && r.uri.endsWith('/hello.txt') && r.text === 'hello world\nSECOND LINE\n', 10000);
  await waitFor('the review diff tab to close after a clean merge', async () => (await page.locator('.tabs-container .tab', { hasText: /↔ agentls/ }).count()) === 0, 10000);
  assert((await page.locator('.notifications-toasts', { hasText: 'proposes nothing' }).count()) === 0, 'an error toast for the merged proposal');
  await page.screenshot({ path: path.join(ARTIFACTS, 'vscode-worktree-merged.png') });
  // Continue: a follow-up in the same worktree, typed into the input box;
  // merging it brings only its own change.
  await pick('agentls: Worktree Tasks', 'Continue');
  await page.locator('.quick-input-widget .quick-input-title', { hasText: 'follow-up in' }).waitFor({ state: 'visible', timeout: 10000 });
  await page.keyboard.type('and the first line');
  await page.keyboard.press('Enter');
  const cont = await waitProbe(folder, 'agentls.worktreeContinue to answer', (r) => r.kind === 'commandResult' && r.command === 'agentls.worktreeContinue', 15000);
  const end2 = await waitProbe(folder, 'the follow-up to end', endOf(folder, cont.result?.taskId), 30000);
  assert(end2.result?.status === 'ok', `follow-up ended ${JSON.stringify(end2.result)}`);
  await waitProbe(folder, 'the follow-up\'s review diff', (r) => r.kind === 'reviewDiff' && r.taskId === cont.result?.taskId, 15000);
  await sleep(500);
  const before = probe(folder).length;
  await pick('agentls: Worktree Tasks', 'Merge');
  const merged2 = await waitFor('the second merge', () => probe(folder).slice(before).find((r) => r.kind === 'commandResult' && r.command === 'agentls.worktreeMerge'), 15000);
  assert(merged2.result?.merged === 1 && merged2.result.conflicts.length === 0, `second merge: ${JSON.stringify(merged2)}`);
  await waitProbe(folder, 'both changes in the document', (r) => r.kind === 'docChange' && r.uri.endsWith('/hello.txt') && r.text === 'HELLO WORLD\nSECOND LINE\n', 10000);
  await pick('agentls: Worktree Tasks', 'Discard');
  // Asked first, in a modal: its Discard button.
  await page.locator('.monaco-dialog-box .monaco-button', { hasText: 'Discard' }).first().click();
  const asked = await waitProbe(folder, 'the discard question', (r) => r.kind === 'discardAsked', 10000);
  assert(/^t\d+$/.test(asked.name) && asked.answer === 'Discard', `discard asked: ${JSON.stringify(asked)}`);
  const gone = await waitProbe(folder, 'agentls.worktreeDiscard to answer', (r) => r.kind === 'commandResult' && r.command === 'agentls.worktreeDiscard', 15000);
  assert(gone.result?.discarded === true, `discard: ${JSON.stringify(gone)}`);
  assert(git('branch', '--list', 'agentls/*').trim() === '', 'the branch is left');
  assert(git('worktree', 'list').trim().split('\n').length === 1, `a worktree is left: ${git('worktree', 'list')}`);
  await page.close();
});

def('issue 36: a command says how it ran with its output collapsed, the plan in one block, two tasks labelled, a worktree from the run picker, screenshot', async ({ browser, port }) => {
  const { execFileSync } = require('child_process');
  const llm = await startFakeLLM('issue36');
  const dir = path.join(WORK, 'ws-issue36' + RETRY.suffix);
  writeFiles(dir, { 'hello.txt': 'hello world\n', 'i36a.txt': 'apple pie\n', 'i36b.txt': 'banana split\n', '.vscode/settings.json': workspaceSettings(llm) });
  const git = (...args) => execFileSync('git', ['-C', dir, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { encoding: 'utf8' });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'first');
  const { page, folder } = await openWindow(browser, port, dir);
  await openFromExplorer(page, 'hello.txt');
  const chatFrame = () =>
    waitFor('the conversation panel', async () => {
      for (const f of page.frames()) {
        if ((await f.locator('#log').count().catch(() => 0)) > 0) return f;
      }
      return undefined;
    }, 15000);

  // 1. A command: how it ran and its exit code on its row; its output in
  //    a collapsed block under it.
  await runTaskFromPalette(page, 'I36 run the listing');
  const e1 = await waitProbe(folder, 'the listing to end', endOf(folder), 30000);
  assert(e1.result?.status === 'ok', `listing ended ${JSON.stringify(e1.result)}`);
  const chat = await chatFrame();
  const log = chat.locator('#log');
  const cmd = log.locator('details.tool.command');
  await waitFor('the command row', async () => (await cmd.count()) === 1, 10000);
  const summary = await cmd.locator('summary').innerText();
  assert(/→ run_command printf .* · exit 0 · (in the sandbox, unasked|outside the sandbox, (approved by you|allowed by your rules))/.test(summary), `command row: ${summary}`);
  assert(!(await cmd.evaluate((d) => d.open)), 'the output is not collapsed');
  assert((await cmd.locator('pre').textContent()).includes('two\nthree'), 'the output is not under the row');
  const meta = await chat.locator('#metatext').innerText();
  assert(/sandboxed · \d+ steps left/.test(meta), `the meta line does not say the approval mode and the budget: ${meta}`);

  // 2. The plan: three updates, one block, drawn again where it is.
  await runTaskFromPalette(page, 'I36 plan it');
  const e2 = await waitProbe(folder, 'the plan task to end', endOf(folder, undefined), 30000);
  await waitFor('the plan task to end', () => probe(folder).filter((r) => r.kind === 'end').length >= 2, 30000);
  await waitFor('the plan block', async () => (await log.locator('.plan').count()) === 1 && /Plan \(2 of 2 done\)/.test(await log.locator('.plan').innerText()), 10000);
  assert((await log.locator('details.tool', { hasText: 'update_plan' }).count()) === 3, 'update_plan rows');
  void e2;

  // 4. Two tasks at once: the second's blocks come under its label.
  await runTaskFromPalette(page, 'I36 task A');
  await waitFor('task A to stream', async () => (await log.innerText()).includes('Task A st'), 15000);
  await runTaskFromPalette(page, 'I36 task B');
  await waitFor('both tasks to end', () => probe(folder).filter((r) => r.kind === 'end').length >= 4, 40000);
  const ends = probe(folder).filter((r) => r.kind === 'end').slice(2, 4).map((r) => r.taskId);
  await sleep(300);
  const labels = await log.locator('.label').allInnerTexts();
  // The second task's blocks follow its own message; when the first one
  // writes again, its blocks come under a label naming it.
  assert(labels.length >= 1 && labels.every((l) => ends.some((id) => l.startsWith(`┄ ${id} · I36 task`))),
    `labels ${JSON.stringify(labels)} do not name the tasks ${JSON.stringify(ends)}`);
  // The picture: the toasts out of the way, the command's output open.
  await runPaletteCommand(page, 'Notifications: Clear All Notifications');
  await cmd.locator('summary').click();
  await sleep(300);
  const shot = path.join(ARTIFACTS, 'vscode-issue36-panel.png');
  await page.screenshot({ path: shot });
  console.log(`  screenshot: ${shot}`);

  // 3. "Run in a worktree" from the run picker: isolation "worktree".
  await runPaletteCommand(page, 'agentls: Run Agent Task');
  await page.locator('.quick-input-widget .quick-input-title', { hasText: 'Run Agent Task' }).waitFor({ state: 'visible', timeout: 10000 });
  await page.keyboard.type('I36 worktree w36');
  await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Run in a worktree' }).first().click();
  const run = await waitProbe(folder, 'agentls.run to answer', (r) => r.kind === 'commandResult' && r.command === 'agentls.run' && r.args?.task === 'I36 worktree w36', 10000);
  assert(run.args.isolation === 'worktree', `agentls.run args: ${JSON.stringify(run.args)}`);
  await waitProbe(folder, 'the worktree task to end', endOf(folder, run.result?.taskId), 30000);
  assert(!fs.existsSync(path.join(dir, 'w36.txt')), 'the worktree task wrote into your files');
  assert(/agentls\//.test(git('branch', '--list', 'agentls/*')), 'no worktree branch');
  await page.close();
});

def('issue 36: a task that needs you says so where you are (question, review, done; nothing over the focused panel), the badge counts it, the Tasks view lists it with its state and offers undo, rewind, review and reject, review tabs close after accept and reject, screenshots', async ({ browser, port }) => {
  const llm = await startFakeLLM('needsyou');
  const dir = path.join(WORK, 'ws-needsyou' + RETRY.suffix);
  writeFiles(dir, {
    'hello.txt': 'hello world\nsecond line\n',
    '.vscode/settings.json': workspaceSettings(llm, { 'agentls.tools.approval': 'always-ask', 'agentls.review.openDiff': false }),
  });
  const { page, folder } = await openWindow(browser, port, dir);
  const bar = page.locator('#workbench\\.parts\\.activitybar');
  const sidebar = page.locator('#workbench\\.parts\\.sidebar');
  const toasts = page.locator('.notifications-toasts');
  const badgeOf = async () => probe(folder).filter((r) => r.kind === 'badge').pop()?.count;
  const domBadge = () => domText(bar.locator('.action-item', { has: page.locator('[aria-label^="agentls"]') }).locator('.badge-content').first());

  // The activity-bar icon is there, and a click on it shows the Tasks view.
  const icon = bar.locator('[aria-label^="agentls"]').first();
  await icon.waitFor({ state: 'visible', timeout: 15000 });
  await icon.click();
  // One view in the container: its name is the sidebar's title ("AGENTLS: TASKS").
  await waitFor('the Tasks view in the sidebar', async () => /agentls: tasks/i.test(await domText(sidebar.locator('.composite.title').first())), 10000);
  await waitFor('the Tasks view\'s welcome', async () => /No agentls task yet/.test(await domText(sidebar)), 10000);

  // 1. A question stops a task: VS Code's own notification names the task,
  //    the badge counts it, the Tasks view says it needs you. hello.txt is
  //    the active editor, so the panel opens beside it without the focus.
  await page.keyboard.press('Control+P');
  const qo = page.locator('.quick-input-widget .quick-input-box input');
  await qo.waitFor({ state: 'visible', timeout: 10000 });
  await qo.fill('hello.txt');
  await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'hello.txt' }).first().waitFor({ state: 'visible', timeout: 10000 });
  await page.keyboard.press('Enter');
  await page.locator('.tabs-container .tab', { hasText: 'hello.txt' }).first().waitFor({ state: 'visible', timeout: 10000 });
  await runTaskFromPalette(page, 'N36 ask');
  const q = await waitProbe(folder, 'the approval question', (r) => r.kind === 'question', 20000);
  assert(/^t\d+$/.test(q.taskId) && /^agentls t\d+ \(N36 ask\) needs you: agentls wants to run/.test(q.text), `question: ${JSON.stringify(q)}`);
  const ask = toasts.locator('.notification-toast', { hasText: 'needs you' }).first();
  await ask.waitFor({ state: 'visible', timeout: 10000 });
  assert((await domText(ask)).includes(`${q.taskId} (N36 ask) needs you`), `the toast does not name the task: ${await domText(ask)}`);
  await waitFor('the badge to count the question', async () => (await badgeOf()) === 1 && (await domBadge()).trim() === '1', 10000);
  await waitFor('the Tasks view to say the task needs you', async () => /waiting for your answer/.test(await domText(sidebar)) && /needs you/.test(await domText(sidebar)), 10000);
  await page.screenshot({ path: path.join(ARTIFACTS, 'vscode-needs-you-question.png') });
  await sleep(300); // the toast slides in
  await ask.getByRole('button', { name: 'Allow once' }).click();
  const e1 = await waitProbe(folder, 'the asking task to end', endOf(folder, q.taskId), 30000);
  assert(e1.result?.status === 'ok' && (e1.result.filesChanged ?? []).length === 1, `asking task ended ${JSON.stringify(e1.result)}`);
  await waitFor('the badge to drop once answered', async () => (await badgeOf()) === 0, 10000);
  // Its end: the server's closing message, once, now with Show.
  const n1 = await waitProbe(folder, 'the end notice decision', (r) => r.kind === 'endNotice' && r.taskId === q.taskId, 10000);
  assert(n1.panel !== 'focused' && new RegExp(`^agentls ${q.taskId} ok`).test(n1.notice?.text) && n1.notice.actions.join() === 'Show', `end notice: ${JSON.stringify(n1)}`);
  const endToast = toasts.locator('.notification-toast', { hasText: `agentls ${q.taskId} ok` });
  await endToast.first().waitFor({ state: 'visible', timeout: 10000 });
  await sleep(500);
  assert((await endToast.count()) === 1, `the end is told ${await endToast.count()} times`);
  assert((await endToast.first().getByRole('button', { name: 'Show' }).count()) === 1, 'the end notice has no Show');

  // 2. A review task's proposals wait for you: a notification with Review
  //    Changes, the badge, and the row's state.
  await runPaletteCommand(page, 'agentls: Review Agent Task');
  await page.locator('.quick-input-widget .quick-input-title', { hasText: 'Run Agent Task (Review)' }).waitFor({ state: 'visible', timeout: 10000 });
  await page.keyboard.type('N36 review');
  await page.keyboard.press('Enter');
  const e2 = await waitFor('the review task to end', () => probe(folder).filter((r) => r.kind === 'end' && r.taskId !== q.taskId).pop(), 30000);
  const n2 = await waitProbe(folder, 'the review notice', (r) => r.kind === 'endNotice' && r.taskId === e2.taskId, 10000);
  assert(n2.notice?.level === 'warning' && /needs you: its changes wait for your review/.test(n2.notice.text), `review notice: ${JSON.stringify(n2)}`);
  const rev = toasts.locator('.notification-toast', { hasText: 'wait for your review' }).first();
  await rev.waitFor({ state: 'visible', timeout: 10000 });
  await waitFor('the badge to count the review', async () => (await badgeOf()) === 1 && (await domBadge()).trim() === '1', 10000);
  await waitFor('the Tasks view to list both tasks with their state', async () => {
    const t = await domText(sidebar);
    return t.includes(`${e2.taskId} awaiting review`) && t.includes(`${q.taskId} ok`) && /needs you · N36 review/.test(t) && /done · N36 ask/.test(t);
  }, 10000);
  await sleep(300);
  await page.screenshot({ path: path.join(ARTIFACTS, 'vscode-needs-you-review.png') });
  console.log(`  screenshot: ${path.join(ARTIFACTS, 'vscode-needs-you-review.png')}`);
  await sleep(300); // the toast slides in
  await rev.getByRole('button', { name: 'Review Changes' }).click();
  await waitProbe(folder, 'the review diff from the notification', (r) => r.kind === 'reviewDiff' && r.taskId === e2.taskId && r.files === 1, 10000);
  const diffTab = page.locator('.tabs-container .tab', { hasText: /hello\.txt ↔ agentls t\d+ \(review\)/ });
  await diffTab.first().waitFor({ state: 'visible', timeout: 10000 });

  // Review tabs follow the state: Accept Changes from the palette closes
  // the diff whose proposal is gone, and says so.
  await runPaletteCommand(page, 'agentls: Accept Changes');
  const acc = await waitProbe(folder, 'agentls.accept to answer', (r) => r.kind === 'commandResult' && r.command === 'agentls.accept', 15000);
  assert(acc.result?.applied === true, `accept: ${JSON.stringify(acc)}`);
  await waitFor('the review diff tab to close', async () => (await diffTab.count()) === 0, 10000);
  await waitFor('the word that it closed', async () => /closed the review diff of hello\.txt: t\d+ proposes nothing there any more/.test(await domText(toasts)), 10000);
  await waitFor('the badge to drop after the accept', async () => (await badgeOf()) === 0, 10000);
  await waitFor('the status item to stop saying awaiting review', async () => new RegExp(`agentls: ${e2.taskId} ok`).test(await statusBarText(page)), 10000);

  // The Tasks view's context menu: the applied task offers Undo and
  // Rewind, no review actions; Undo undoes that task.
  await runPaletteCommand(page, 'Notifications: Clear All Notifications');
  const row = (id) => sidebar.locator('.monaco-list-row', { hasText: `${id} ` }).first();
  const menu = page.locator('.context-view .monaco-menu');
  await row(q.taskId).click({ button: 'right' });
  await menu.waitFor({ state: 'visible', timeout: 10000 });
  const items = await domText(menu);
  assert(/Undo Task/.test(items) && /Rewind Task to a Step/.test(items) && !/Accept Changes/.test(items), `context menu of ${q.taskId}: ${items}`);
  // A menu takes no click in its first moments (the right-click's own mouseup).
  await sleep(400);
  await menu.locator('.action-label', { hasText: 'Undo Task' }).first().click();
  const undo = await waitProbe(folder, 'agentls.undo from the context menu', (r) => r.kind === 'commandResult' && r.command === 'agentls.undo', 15000);
  assert(undo.args?.taskId === q.taskId && undo.result?.applied === true, `undo: ${JSON.stringify(undo)}`);
  await row(e2.taskId).click({ button: 'right' });
  await menu.waitFor({ state: 'visible', timeout: 10000 });
  await sleep(400);
  await menu.locator('.action-label', { hasText: 'Rewind Task to a Step' }).first().click();
  await waitProbe(folder, 'the rewind picker from the context menu', (r) => r.kind === 'rewindPicker', 15000);
  await page.keyboard.press('Escape');

  // 3. A task that ends while its panel is not shown: a notification
  //    whose Show brings the panel back.
  await runTaskFromPalette(page, 'N36 slow');
  await waitProbe(folder, 'the slow task to stream', (r) => r.kind === 'event' && r.event.kind === 'text' && ![q.taskId, e2.taskId].includes(r.event.taskId), 15000);
  // Its panel goes away: closed by its tab's close button.
  const panelTab = page.locator('.tabs-container .tab').filter({ has: page.locator('.label-name', { hasText: /^agentls$/ }) }).first();
  await panelTab.hover();
  await panelTab.locator('.tab-actions .action-label').first().click();
  await waitFor('the panel tab to close', async () => (await panelTab.count()) === 0, 10000);
  const n3 = await waitFor('the slow task\'s end notice', () => probe(folder).find((r) => r.kind === 'endNotice' && r.taskId !== q.taskId && r.taskId !== e2.taskId), 30000);
  assert(n3.panel === 'hidden' && n3.notice?.level === 'info' && /^agentls t\d+ ok: Working on it slowly/.test(n3.notice.text), `end notice: ${JSON.stringify(n3)}`);
  const done = toasts.locator('.notification-toast', { hasText: 'Working on it slowly' }).first();
  await done.waitFor({ state: 'visible', timeout: 10000 });
  await page.screenshot({ path: path.join(ARTIFACTS, 'vscode-notification-done.png') });
  await sleep(300); // the toast slides in
  await done.getByRole('button', { name: 'Show' }).click();
  await waitProbe(folder, 'Show to be picked', (r) => r.kind === 'endNoticeAnswer' && r.pick === 'Show', 10000);
  const chat = await waitFor('the panel back with the task', async () => {
    for (const f of page.frames()) {
      if ((await f.locator('#log').count().catch(() => 0)) > 0 && /Working on it slowly/.test(await domText(f.locator('#log')))) return f;
    }
    return undefined;
  }, 15000);

  // 4. A follow-up typed into the panel ends while the panel has the
  //    focus: it shows there, and nothing pops up.
  await runPaletteCommand(page, 'Notifications: Clear All Notifications');
  await chat.locator('#input').fill('N36 slow once more');
  await chat.locator('#input').press('Control+Enter');
  const cont = await waitProbe(folder, 'agentls.continue to answer', (r) => r.kind === 'commandResult' && r.command === 'agentls.continue', 10000);
  const n4 = await waitProbe(folder, 'the follow-up\'s end notice', (r) => r.kind === 'endNotice' && r.taskId === cont.result?.taskId, 30000);
  assert(n4.panel === 'focused' && n4.notice === null, `a notification over the focused panel: ${JSON.stringify(n4)}`);
  await sleep(500);
  assert((await toasts.locator('.notification-toast', { hasText: `agentls ${cont.result.taskId}` }).count()) === 0, 'the end popped up over the focused panel');

  // 5. Reject from the Tasks view's context menu: the review diff of the
  //    rejected proposal closes, with a word.
  await runPaletteCommand(page, 'agentls: Review Agent Task');
  await page.locator('.quick-input-widget .quick-input-title', { hasText: 'Run Agent Task (Review)' }).waitFor({ state: 'visible', timeout: 10000 });
  await page.keyboard.type('N36 review again');
  await page.keyboard.press('Enter');
  const run5 = await waitProbe(folder, 'the second review to start', (r) => r.kind === 'commandResult' && r.command === 'agentls.run' && r.args?.task === 'N36 review again', 10000);
  const id5 = run5.result.taskId;
  await waitProbe(folder, 'the second review to end', endOf(folder, id5), 30000);
  await waitProbe(folder, 'the second review\'s end notice', (r) => r.kind === 'endNotice' && r.taskId === id5, 10000);
  await runPaletteCommand(page, 'Notifications: Clear All Notifications');
  const pickFromMenu = async (id, label) => {
    await row(id).click({ button: 'right' });
    await menu.waitFor({ state: 'visible', timeout: 10000 });
    await sleep(400);
    await menu.locator('.action-label', { hasText: label }).first().click();
  };
  await waitFor(`${id5} in the Tasks view`, async () => (await domText(sidebar)).includes(`${id5} awaiting review`), 10000);
  await pickFromMenu(id5, 'Review Changes (Diff)');
  await waitProbe(folder, 'the review diff from the context menu', (r) => r.kind === 'reviewDiff' && r.taskId === id5 && r.files === 1, 10000);
  const diff5 = page.locator('.tabs-container .tab', { hasText: new RegExp(`hello\\.txt ↔ agentls ${id5} \\(review\\)`) });
  await diff5.first().waitFor({ state: 'visible', timeout: 10000 });
  await pickFromMenu(id5, 'Reject Changes');
  const rej = await waitProbe(folder, 'agentls.reject from the context menu', (r) => r.kind === 'commandResult' && r.command === 'agentls.reject', 15000);
  assert(rej.args?.taskId === id5 && !rej.error, `reject: ${JSON.stringify(rej)}`);
  await waitFor('the rejected review diff tab to close', async () => (await diff5.count()) === 0, 10000);
  await waitFor('the word that it closed', async () => new RegExp(`closed the review diff of hello\\.txt: ${id5} proposes nothing there any more`).test(await domText(toasts)), 10000);
  await page.close();
});

def('two tasks ask at once: each question names its own task (the server\'s taskId, not a guess from the text)', async ({ browser, port }) => {
  const llm = await startFakeLLM('twoask');
  const dir = path.join(WORK, 'ws-twoask' + RETRY.suffix);
  writeFiles(dir, { 'hello.txt': 'hello\n', '.vscode/settings.json': workspaceSettings(llm, { 'agentls.tools.approval': 'always-ask' }) });
  const { page, folder } = await openWindow(browser, port, dir);
  const started = async (task) => {
    await runTaskFromPalette(page, task);
    const run = await waitProbe(folder, `agentls.run of ${task}`, (r) => r.kind === 'commandResult' && r.command === 'agentls.run' && r.args?.task === task, 10000);
    assert(/^t\d+$/.test(run.result?.taskId ?? ''), `agentls.run: ${JSON.stringify(run)}`);
    return run.result.taskId;
  };
  const questions = () => probe(folder).filter((r) => r.kind === 'question');
  const a = await started('Q2 first');
  const q1 = await waitFor('the first task\'s question', () => questions()[0], 20000);
  assert(q1.taskId === a && q1.text.startsWith(`agentls ${a} (Q2 first) needs you:`), `first question: ${JSON.stringify(q1)}`);
  // The second task asks to run the very same command while the first
  // still waits: the text names both tasks' calls, so only the server's
  // taskId can say whose question it is.
  const b = await started('Q2 second');
  const q2 = await waitFor('the second task\'s question', () => questions()[1], 20000);
  assert(q2.taskId === b && q2.text.startsWith(`agentls ${b} (Q2 second) needs you:`) && /echo same-command/.test(q2.text), `second question: ${JSON.stringify(q2)} (want ${b})`);
  const toasts = page.locator('.notifications-toasts');
  for (const [id, task] of [[a, 'Q2 first'], [b, 'Q2 second']]) {
    const toast = toasts.locator('.notification-toast', { hasText: `${id} (${task}) needs you` }).first();
    await toast.waitFor({ state: 'visible', timeout: 10000 });
    await sleep(300); // the toast slides in
    await toast.getByRole('button', { name: 'Allow once' }).click();
    const end = await waitProbe(folder, `${id} to end`, endOf(folder, id), 30000);
    assert(end.result?.status === 'ok', `${id} ended ${JSON.stringify(end.result)}`);
  }
  await page.close();
});

def('issue 31: files.autoSave off, a task writes a file nothing opened, then a second task whose checks read it: they pass; a worktree task\'s merged new file is on disk too', async ({ browser, port }) => {
  const { execFileSync } = require('child_process');
  const llm = await startFakeLLM('autosave');
  const dir = path.join(WORK, 'ws-autosave' + RETRY.suffix);
  const git = (...args) => execFileSync('git', ['-C', dir, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { encoding: 'utf8' });
  writeFiles(dir, {
    'notes.txt': 'nothing yet\n',
    '.vscode/settings.json': workspaceSettings(llm, {
      'files.autoSave': 'off',
      'agentls.verify.enabled': true,
      'agentls.verify.commands': ['grep -q "status: done" data.txt'],
      'agentls.agent.maxRetries': 0,
    }),
  });
  const { page, folder } = await openWindow(browser, port, dir);
  await runTaskFromPalette(page, 'A31 write data.txt');
  const e1 = await waitProbe(folder, 'the writing task to end', endOf(folder), 30000);
  assert(e1.result?.status === 'ok' && (e1.result.filesChanged ?? []).some((u) => String(u).split('/').pop() === 'data.txt'), `the writing task ended ${JSON.stringify(e1.result)}`);
  // VS Code kept the agent's text of data.txt, which no tab shows, as an
  // unsaved change in a hidden model (the disk had the empty file the
  // edit created): the extension saves it, so the disk has the text.
  const hidden = probe(folder).some((r) => r.kind === 'docChange' && r.uri.endsWith('/data.txt'));
  await waitFor('data.txt on disk to hold what the task wrote', () => fs.readFileSync(path.join(dir, 'data.txt'), 'utf8') === 'status: done\n', 10000);
  if (hidden) await waitProbe(folder, 'the hidden change to be saved', (r) => r.kind === 'hiddenSaved' && r.files.some((u) => u.endsWith('/data.txt')), 5000);
  // The second task changes notes.txt only; its checks read data.txt.
  await runTaskFromPalette(page, 'A31 notes about data.txt');
  const e2 = await waitFor('the second task to end', () => probe(folder).filter((r) => r.kind === 'end' && r.taskId !== e1.taskId).pop(), 40000);
  const verify = probe(folder).filter((r) => r.kind === 'event' && r.event.kind === 'verify' && r.event.taskId === e2.taskId).pop();
  assert(verify, `the second task ran no checks: ${JSON.stringify(e2.result)}`);
  assert(verify.event.verify.passed === true, `the second task's checks failed: ${JSON.stringify(verify.event.verify)} (data.txt written as ${hidden ? 'an editor change' : 'a disk write'})`);
  assert(e2.result?.status === 'ok' && e2.result?.verified === true, `the second task ended ${JSON.stringify(e2.result)}`);
  // A worktree task's new file, merged into files nothing opened: on disk too.
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'first');
  await runPaletteCommand(page, 'agentls: Run Agent Task');
  await page.locator('.quick-input-widget .quick-input-title', { hasText: 'Run Agent Task' }).waitFor({ state: 'visible', timeout: 10000 });
  await page.keyboard.type('A31 worktree merged.txt');
  await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Run in a worktree' }).first().click();
  const run3 = await waitProbe(folder, 'the worktree task to start', (r) => r.kind === 'commandResult' && r.command === 'agentls.run' && r.args?.task === 'A31 worktree merged.txt', 10000);
  const e3 = await waitProbe(folder, 'the worktree task to end', endOf(folder, run3.result?.taskId), 30000);
  assert(e3.result?.status === 'ok', `the worktree task ended ${JSON.stringify(e3.result)}`);
  assert(!fs.existsSync(path.join(dir, 'merged.txt')), 'the worktree task wrote into your files');
  // Its review diff opens (and takes the focus) once it ended; the new
  // file's left side is empty, not "file not found".
  await waitProbe(folder, 'the worktree task\'s review diff', (r) => r.kind === 'reviewDiff' && r.taskId === e3.taskId && r.files === 1, 15000);
  const diff = page.locator('.monaco-diff-editor').first();
  await diff.waitFor({ state: 'visible', timeout: 15000 });
  await waitFor('the new file\'s text in the diff', async () => /from the worktree/.test(await domText(diff)), 10000);
  assert(!/could not be opened/.test(await domText(page.locator('.editor-instance').first())), 'the review diff of a new file says it could not be opened');
  await sleep(500);
  await runPaletteCommand(page, 'agentls: Worktree Tasks');
  await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'A31 worktree merged.txt' }).first().waitFor({ state: 'visible', timeout: 10000 });
  await page.keyboard.press('Enter');
  const input = page.locator('.quick-input-widget .quick-input-box input');
  await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Merge' }).first().waitFor({ state: 'visible', timeout: 10000 });
  await input.fill('Merge');
  await page.keyboard.press('Enter');
  const merged = await waitProbe(folder, 'agentls.worktreeMerge to answer', (r) => r.kind === 'commandResult' && r.command === 'agentls.worktreeMerge', 15000);
  assert(merged.result?.merged >= 1 && (merged.result.conflicts ?? []).length === 0, `merge: ${JSON.stringify(merged)}`);
  await waitFor('merged.txt on disk to hold the merged text', () => fs.existsSync(path.join(dir, 'merged.txt')) && fs.readFileSync(path.join(dir, 'merged.txt'), 'utf8') === 'from the worktree\n', 10000);
  await page.close();
});

def('issue 43: Delegate Agent Task sends agentls.delegate with the task and says the server\'s answer; Delegated Jobs shows what agentls.jobs answers', async ({ browser, port }) => {
  const { execFileSync } = require('child_process');
  const dir = path.join(WORK, 'ws-delegate' + RETRY.suffix);
  // No model is asked: delegating runs nothing here. No NATS server runs
  // in the editor suites (e2e/delegate covers that path), so the honest
  // answers are the server's refusals.
  writeFiles(dir, { 'hello.txt': 'hello\n', '.vscode/settings.json': workspaceSettings({ name: 'delegate', url: 'http://127.0.0.1:9/v1' }) });
  const git = (...args) => execFileSync('git', ['-C', dir, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { encoding: 'utf8' });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'first');
  const { page, folder } = await openWindow(browser, port, dir);
  const toasts = page.locator('.notifications-toasts');
  const delegate = async (task, n) => {
    await runPaletteCommand(page, 'agentls: Delegate Agent Task');
    await page.locator('.quick-input-widget .quick-input-title', { hasText: 'Delegate Agent Task' }).waitFor({ state: 'visible', timeout: 10000 });
    await page.keyboard.type(task);
    await page.keyboard.press('Enter');
    const sent = await waitFor('agentls.delegate to answer', () => probe(folder).filter((r) => r.kind === 'commandResult' && r.command === 'agentls.delegate')[n], 15000);
    assert(sent.args?.task === task, `agentls.delegate args: ${JSON.stringify(sent.args)}`);
    return waitFor('the delegate probe', () => probe(folder).filter((r) => r.kind === 'delegate')[n], 5000);
  };
  // 1. The commit is on no remote-tracking branch: refused, saying so.
  const d1 = await delegate('D43 fix the parser', 0);
  assert(d1.result === null && /no remote-tracking branch.*push it first/.test(d1.error ?? ''), `first delegate: ${JSON.stringify(d1)}`);
  await waitFor('the refusal in a notification', async () => /did not delegate: not pushed: .*push it first/.test(await domText(toasts)), 10000);
  assert(!/-32\d\d\d|Request .* failed/.test(await domText(toasts)), `a raw error is shown: ${await domText(toasts)}`);
  // 2. Pushed: now the refusal is that no NATS server is configured.
  const remote = path.join(WORK, 'ws-delegate-remote' + RETRY.suffix + '.git');
  execFileSync('git', ['init', '-q', '--bare', remote]);
  git('remote', 'add', 'origin', remote);
  git('push', '-q', '-u', 'origin', 'HEAD');
  await runPaletteCommand(page, 'Notifications: Clear All Notifications');
  const d2 = await delegate('D43 fix the parser, pushed', 1);
  assert(d2.result === null && /no NATS server configured: set delegate\.url/.test(d2.error ?? ''), `second delegate: ${JSON.stringify(d2)}`);
  await waitFor('the second refusal in a notification', async () => /did not delegate: no NATS server configured/.test(await domText(toasts)), 10000);
  // 3. Delegated Jobs shows what agentls.jobs answers.
  await runPaletteCommand(page, 'Notifications: Clear All Notifications');
  await runPaletteCommand(page, 'agentls: Delegated Jobs');
  const jobs = await waitProbe(folder, 'agentls.jobs to answer', (r) => r.kind === 'commandResult' && r.command === 'agentls.jobs', 15000);
  const listed = await waitProbe(folder, 'the jobs list', (r) => r.kind === 'jobsList', 5000);
  assert(jobs.error && listed.error === `agentls: cannot list delegated jobs: ${jobs.error.replace(/^agentls\.jobs: /, '')}`, `jobs: ${JSON.stringify(jobs)} listed: ${JSON.stringify(listed)}`);
  await waitFor('the jobs answer in a notification', async () => /cannot list delegated jobs: no NATS server configured/.test(await domText(toasts)), 10000);
  await page.close();
});

// Pictures for docs/screens/issue36 (AGENTLS_SCREENS=dir): the same steps
// with whichever extension is installed, so an old one gives the "before".
// Not a test: it asserts nothing, and runs only when asked.
const SCREENS = process.env.AGENTLS_SCREENS;
if (SCREENS) {
  cases.length = 0;
  def('screens for docs/screens/issue36', async ({ browser, port }) => {
    fs.mkdirSync(SCREENS, { recursive: true });
    const shot = async (page, name) => {
      await runPaletteCommand(page, 'Notifications: Clear All Notifications').catch(() => {});
      await sleep(600);
      await page.screenshot({ path: path.join(SCREENS, `${name}.png`) });
    };
    const ends = (folder) => probe(folder).filter((r) => r.kind === 'end').length;
    let llm = await startFakeLLM('issue36');
    let dir = path.join(WORK, 'ws-screens36');
    writeFiles(dir, { 'hello.txt': 'hello world\n', 'i36a.txt': 'apple pie\n', 'i36b.txt': 'banana split\n', '.vscode/settings.json': workspaceSettings(llm) });
    let w = await openWindow(browser, port, dir);
    await w.page.setViewportSize({ width: 1200, height: 640 });
    await runTaskFromPalette(w.page, 'I36 run the listing');
    await waitFor('the listing to end', () => ends(w.folder) >= 1, 30000);
    await shot(w.page, '1-command');
    await runTaskFromPalette(w.page, 'I36 plan it');
    await waitFor('the plan to end', () => ends(w.folder) >= 2, 30000);
    await shot(w.page, '2-plan');
    await runTaskFromPalette(w.page, 'I36 task A');
    await waitFor('task A to stream', () => probe(w.folder).some((r) => r.kind === 'event' && r.event.kind === 'text' && /Task/.test(r.event.text ?? '')), 15000);
    await runTaskFromPalette(w.page, 'I36 task B');
    await waitFor('both tasks to end', () => ends(w.folder) >= 4, 40000);
    await shot(w.page, '4-parallel');
    await w.page.close();

    llm = await startFakeLLM('needsyou');
    dir = path.join(WORK, 'ws-screens-needsyou');
    writeFiles(dir, {
      'hello.txt': 'hello world\nsecond line\n',
      '.vscode/settings.json': workspaceSettings(llm, { 'agentls.tools.approval': 'always-ask', 'agentls.review.openDiff': false }),
    });
    w = await openWindow(browser, port, dir);
    await w.page.setViewportSize({ width: 1200, height: 640 });
    await w.page.locator('#workbench\\.parts\\.activitybar [aria-label^="agentls"]').first().click();
    await runTaskFromPalette(w.page, 'N36 ask');
    const ask = w.page.locator('.notifications-toasts .notification-toast', { hasText: 'wants to run' }).first();
    await ask.waitFor({ state: 'visible', timeout: 20000 });
    await sleep(800);
    await w.page.screenshot({ path: path.join(SCREENS, 'notification-question.png') });
    await ask.getByRole('button', { name: 'Allow once' }).click();
    await waitFor('the asking task to end', () => ends(w.folder) >= 1, 30000);
    await runPaletteCommand(w.page, 'Notifications: Clear All Notifications');
    await runPaletteCommand(w.page, 'agentls: Review Agent Task');
    // Any input box: an old extension asks in one of its own.
    await w.page.locator('.quick-input-widget .quick-input-title', { hasText: 'Run Agent Task' }).waitFor({ state: 'visible', timeout: 10000 });
    await w.page.keyboard.type('N36 review');
    await w.page.keyboard.press('Enter');
    await waitFor('the review task to end', () => ends(w.folder) >= 2, 30000);
    await sleep(2500);
    await w.page.screenshot({ path: path.join(SCREENS, 'notification-review.png') });
    await w.page.close();
  });
}

// ---- main ------------------------------------------------------------------

async function startCodeServer() {
  const port = await freePort();
  const userData = path.join(WORK, 'user-data');
  writeFiles(userData, {
    'User/settings.json': USER_BASE,
  });
  const log = fs.openSync(path.join(ARTIFACTS, 'code-server.log'), 'w');
  const p = spawn(
    process.execPath,
    [ENTRY, '--bind-addr', `127.0.0.1:${port}`, '--auth', 'none', '--disable-telemetry', '--disable-update-check',
      '--disable-workspace-trust', '--disable-getting-started-override', '--user-data-dir', userData, '--extensions-dir', EXT_DIR],
    {
      env: { ...process.env, AGENTLS_VSCODE_TEST_RESULTS: RESULTS, XDG_STATE_HOME: path.join(WORK, 'state') },
      stdio: ['ignore', log, log],
      detached: true,
    },
  );
  children.push(p);
  await waitFor(
    'code-server to listen',
    () =>
      new Promise((resolve) => {
        http.get(`http://127.0.0.1:${port}/healthz`, (res) => resolve(res.statusCode === 200)).on('error', () => resolve(false));
      }),
    60000,
    250,
  );
  return port;
}

function cleanup() {
  for (const c of children) {
    try {
      if (c.stdin) c.stdin.end();
      // code-server runs detached in its own process group: end the group.
      if (c.spawnargs.includes('--bind-addr')) process.kill(-c.pid, 'SIGTERM');
      else c.kill('SIGTERM');
    } catch {
      // already gone
    }
  }
}

async function main() {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  fs.writeFileSync(RESULTS, '');
  const port = await startCodeServer();
  const exe = ['/usr/lib/chromium/chromium', '/usr/bin/chromium'].find((p) => fs.existsSync(p));
  const browser = await chromium.launch({
    executablePath: exe,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  const failures = [];
  const flaky = [];
  const only = process.env.VSCODE_TEST_ONLY;
  // A case that fails runs once more in a fresh window: a UI timing slip
  // on a loaded machine is reported as flaky, with its first failure; a
  // case that fails twice fails the suite.
  const attempt = async (c, n) => {
    const t0 = Date.now();
    try {
      const partial = (await c.fn({ browser, port })) || [];
      return { ok: true, partial, secs: ((Date.now() - t0) / 1000).toFixed(1) };
    } catch (err) {
      if (err instanceof Skip) return { skip: err.message };
      console.log(`${n === 1 ? 'FAIL (will retry)' : 'FAIL'}: ${c.name}: ${err.message}`);
      const pages = browser.contexts().flatMap((x) => x.pages());
      const p = pages[pages.length - 1];
      if (p) {
        const shot = path.join(ARTIFACTS, `failure-${cases.indexOf(c)}-${n}.png`);
        await p.screenshot({ path: shot }).catch(() => {});
        fs.writeFileSync(shot.replace(/\.png$/, '.html'), await p.content().catch(() => ''));
        console.log(`  screenshot: ${shot} (and .html)`);
      }
      console.log(`  probe log: ${RESULTS}; code-server log: ${path.join(ARTIFACTS, 'code-server.log')}`);
      return { error: err.message };
    } finally {
      for (const ctx of browser.contexts()) for (const p of ctx.pages()) await p.close().catch(() => {});
    }
  };
  for (const c of cases) {
    // VSCODE_TEST_ONLY: cases whose name contains one of its |-separated parts.
    if (only && !only.split('|').some((o) => c.name.includes(o))) continue;
    RETRY.suffix = '';
    let r = await attempt(c, 1);
    const first = r.error;
    if (first !== undefined) {
      RETRY.suffix = '-retry';
      r = await attempt(c, 2);
    }
    if (r.skip !== undefined) {
      skipped++;
      console.log(`SKIP: ${c.name}: ${r.skip}`);
    } else if (r.ok) {
      passed++;
      console.log(`PASS: ${c.name} (${r.secs} s)${first !== undefined ? ' on the second try' : ''}`);
      for (const s of r.partial) console.log(`  SKIP part: ${s}`);
      if (first !== undefined) flaky.push(`${c.name}: ${first}`);
    } else {
      failed++;
      failures.push(`${c.name}: ${first} / then: ${r.error}`);
    }
  }
  await browser.close();
  console.log(`vscode: ${passed} passed, ${failed} failed, ${skipped} skipped`);
  for (const f of flaky) console.log(`FLAKY (passed on retry): ${f}`);
  for (const f of failures) console.log(`FAILED: ${f}`);
  return failed === 0 ? 0 : 1;
}

process.on('SIGTERM', () => {
  cleanup();
  process.exit(1);
});
main()
  .then((code) => {
    cleanup();
    process.exit(code);
  })
  .catch((err) => {
    console.log(`FAIL: vscode e2e: ${err.stack || err}`);
    cleanup();
    process.exit(1);
  });

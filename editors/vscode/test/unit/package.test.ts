import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';

const root = path.resolve(__dirname, '..', '..', '..');

test('package.json is ready for Open VSX: publisher, icon, license, repository', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  assert.equal(pkg.publisher, 'agentls');
  assert.equal(pkg.private, undefined, 'a private package cannot be published');
  assert.ok(pkg.license, 'no license');
  assert.ok(fs.existsSync(path.join(root, 'LICENSE')), 'no LICENSE file');
  assert.ok(pkg.icon && fs.readFileSync(path.join(root, pkg.icon)).subarray(1, 4).toString() === 'PNG', 'icon is not a PNG');
  assert.match(pkg.repository?.url ?? '', /^https:\/\/github\.com\//);
  const cmds = pkg.contributes.commands.map((c: { command: string }) => c.command);
  for (const c of ['agentls.runTaskReview', 'agentls.continueTask', 'agentls.showConversation', 'agentls.history', 'agentls.pickModel', 'agentls.reviewDiff', 'agentls.runProjectCommand', 'agentls.showTaskDiff']) {
    assert.ok(cmds.includes(c), `${c} is not contributed`);
  }
});

test('the palette: "Run Agent Task" is no prefix of another title, so Enter after typing it never runs the review variant', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  const titles: string[] = pkg.contributes.commands.map((c: { title: string }) => c.title.toLowerCase());
  const run = 'run agent task';
  assert.ok(titles.includes(run));
  for (const t of titles) assert.ok(t === run || !t.startsWith(run), `"${t}" starts with "${run}"`);
  const review = pkg.contributes.commands.find((c: { command: string }) => c.command === 'agentls.runTaskReview');
  assert.match(review.title, /^Review Agent Task/);
});

test('keybindings for run, cancel, accept and reject; chords distinct and under ctrl+alt+a', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  const kb: { command: string; key: string; mac?: string }[] = pkg.contributes.keybindings;
  const cmds = pkg.contributes.commands.map((c: { command: string }) => c.command);
  for (const c of ['agentls.runTask', 'agentls.cancelTask', 'agentls.acceptTask', 'agentls.rejectTask']) {
    assert.ok(kb.some((k) => k.command === c), `no keybinding for ${c}`);
  }
  for (const k of kb) {
    assert.ok(cmds.includes(k.command), `keybinding for uncontributed ${k.command}`);
    assert.match(k.key, /^ctrl\+alt\+a [a-z]$/);
  }
  assert.equal(new Set(kb.map((k) => k.key)).size, kb.length, 'two keybindings share a chord');
});

test('an activity-bar entry with the tasks view, its icon and verify', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  const bar = pkg.contributes.viewsContainers.activitybar.find((v: { id: string }) => v.id === 'agentls');
  assert.ok(bar, 'no activity-bar container');
  assert.ok(fs.readFileSync(path.join(root, bar.icon), 'utf8').includes('<svg'), 'activity-bar icon is not an SVG');
  assert.deepEqual(pkg.contributes.views.agentls.map((v: { id: string }) => v.id), ['agentls.tasks']);
  const cmds = pkg.contributes.commands.map((c: { command: string }) => c.command);
  assert.ok(cmds.includes('agentls.verifyProject'), 'agentls.verifyProject is not contributed');
  const src = fs.readFileSync(path.join(root, 'src', 'extension.ts'), 'utf8');
  for (const id of ['agentls.verifyProject', 'agentls.refreshTasks']) assert.ok(src.includes(`reg('${id}'`), `${id} is not registered`);
  assert.ok(src.includes("createTreeView('agentls.tasks'"), 'the tasks view has no provider');
  // The badge needs a TreeView, which registerTreeDataProvider does not give.
  assert.ok(/treeView.badge = /.test(src), 'the tasks view has no badge');
});

test('a run does not pop the Output panel up: runTask never calls output.show', () => {
  const src = fs.readFileSync(path.join(root, 'src', 'extension.ts'), 'utf8');
  const body = src.slice(src.indexOf('  async runTask('), src.indexOf('  async cancelTask('));
  assert.ok(body.length > 100);
  assert.ok(!body.includes('output.show'), 'runTask shows the Output panel');
});

test('a multi-line task: Compose Agent Task opens a draft, Send Composed Task runs it', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  const cmds = pkg.contributes.commands.map((c: { command: string }) => c.command);
  for (const c of ['agentls.composeTask', 'agentls.sendComposedTask']) assert.ok(cmds.includes(c), `${c} is not contributed`);
  const src = fs.readFileSync(path.join(root, 'src', 'extension.ts'), 'utf8');
  for (const c of ['agentls.composeTask', 'agentls.sendComposedTask']) assert.ok(src.includes(`reg('${c}'`), `${c} is not registered`);
});

test('no contributed command takes a server command\'s id (the language client registers those: "command already exists")', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  const server = fs.readFileSync(path.join(root, '..', '..', 'internal', 'lsp', 'commands.go'), 'utf8');
  const ids = [...server.matchAll(/cmd\("(agentls\.[A-Za-z]+)"/g)].map((m) => m[1]);
  assert.ok(ids.includes('agentls.verify') && ids.length > 10, `server commands not found: ${ids}`);
  const src = fs.readFileSync(path.join(root, 'src', 'extension.ts'), 'utf8');
  const registered = [...src.matchAll(/reg\('([^']+)'/g)].map((m) => m[1]);
  for (const c of [...pkg.contributes.commands.map((x: { command: string }) => x.command), ...registered]) {
    assert.ok(!ids.includes(c), `${c} is a server command`);
  }
});

test('package.json and package-lock.json agree: npm ci on a clean clone installs what package-vsix.sh runs (esbuild, vsce)', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8'));
  const top = lock.packages[''];
  assert.deepEqual(pkg.dependencies ?? {}, top.dependencies ?? {}, 'dependencies differ from the lock');
  assert.deepEqual(pkg.devDependencies ?? {}, top.devDependencies ?? {}, 'devDependencies differ from the lock');
  const script = fs.readFileSync(path.join(root, 'package-vsix.sh'), 'utf8');
  const tools = /for t in ([a-z ]+); do/.exec(script);
  assert.ok(tools, 'package-vsix.sh no longer lists the tools it runs');
  const bins: Record<string, string> = { esbuild: 'esbuild', vsce: '@vscode/vsce' };
  for (const t of tools[1].trim().split(/\s+/)) {
    assert.ok(bins[t], `package-vsix.sh runs ${t}: say which package gives it`);
    assert.ok(pkg.devDependencies?.[bins[t]], `${bins[t]} (for ${t}) is not a devDependency`);
  }
});

test('the Tasks view\'s context menu offers undo, rewind, review and cancel, each when the row can do it', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  const items: { command: string; when: string }[] = pkg.contributes.menus['view/item/context'] ?? [];
  const when = (c: string) => items.find((i) => i.command === c)?.when ?? '';
  // The when clauses match the context values taskContext gives (attention.test.ts).
  const matches = (w: string, ctx: string) =>
    w.includes('view == agentls.tasks') && [...w.matchAll(/viewItem =~ \/(.+?)\/(?: |$)/g)].every((m) => new RegExp(m[1]).test(ctx));
  assert.ok(matches(when('agentls.undoTask'), 'agentlsTask.undoable'), `undo: ${when('agentls.undoTask')}`);
  assert.ok(!matches(when('agentls.undoTask'), 'agentlsTask'), 'undo offered for a task with nothing to undo');
  assert.ok(matches(when('agentls.rewindTask'), 'agentlsTask'), `rewind: ${when('agentls.rewindTask')}`);
  for (const c of ['agentls.reviewDiff', 'agentls.acceptTask', 'agentls.rejectTask']) {
    assert.ok(matches(when(c), 'agentlsTask.review') && !matches(when(c), 'agentlsTask.undoable'), `${c}: ${when(c)}`);
  }
  assert.ok(matches(when('agentls.cancelTask'), 'agentlsTask.running') && !matches(when('agentls.cancelTask'), 'agentlsTask'), 'cancel');
  const cmds = pkg.contributes.commands.map((c: { command: string }) => c.command);
  for (const i of items) assert.ok(cmds.includes(i.command), `${i.command} is not contributed`);
});

test('"Delegate Agent Task" and "Delegated Jobs" are contributed, registered and in the Tasks view\'s menu', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  const cmds = pkg.contributes.commands.map((c: { command: string }) => c.command);
  const src = fs.readFileSync(path.join(root, 'src', 'extension.ts'), 'utf8');
  const menu = pkg.contributes.menus['view/title'].map((m: { command: string }) => m.command);
  for (const id of ['agentls.delegateTask', 'agentls.delegatedJobs']) {
    assert.ok(cmds.includes(id), `${id} is not contributed`);
    assert.ok(src.includes(`reg('${id}'`), `${id} is not registered`);
    assert.ok(menu.includes(id), `${id} is not in the Tasks view's menu`);
  }
  const titles = pkg.contributes.commands.map((c: { title: string }) => c.title);
  assert.ok(titles.some((t: string) => t.startsWith('Delegate Agent Task')), 'no "Delegate Agent Task" in the palette');
});

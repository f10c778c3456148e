import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';

import { mergeMessage, newestFirst, worktreeItem } from '../../src/worktreeItems';

const root = path.resolve(__dirname, '..', '..', '..');

test('a worktree reads with its task, state, id and the files whose change waits', () => {
  const it = worktreeItem({ id: 's1', task: 'fix\n the  parser', state: 'ended', pending: ['a.go', 'b.go'] });
  assert.equal(it.label, 'fix the parser');
  assert.equal(it.description, 'ended · s1');
  assert.equal(it.detail, 'waiting: a.go, b.go');
  assert.equal(worktreeItem({ id: 's2', state: 'interrupted' }).label, 's2');
});

test('a merge with conflicts says where, as a warning; a clean one does not warn', () => {
  assert.deepEqual(mergeMessage({ id: 's1', merged: 2, conflicts: [] }), { text: 'agentls: merged 2 change(s) of s1.', warn: false });
  const m = mergeMessage({ id: 's1', merged: 0, conflicts: [{ uri: 'file:///w/calc.go', range: { start: { line: 4 } } }] });
  assert.ok(m.warn);
  assert.match(m.text, /1 over your own edits stay proposed: calc\.go:5$/);
});

test('Worktree Tasks is contributed and registered', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  assert.ok(pkg.contributes.commands.some((c: { command: string }) => c.command === 'agentls.worktreeTasks'));
  const src = fs.readFileSync(path.join(root, 'src', 'extension.ts'), 'utf8');
  assert.ok(src.includes("reg('agentls.worktreeTasks'"));
});

// Issue 36: the picker calls a worktree by its task's short id, newest first.
test('a worktree is named by its task id (t15), newest first', () => {
  assert.equal(worktreeItem({ id: '20261128-0830-ab', taskId: 't15', state: 'ended' }).description, 'ended · t15');
  const order = newestFirst([
    { id: 'a', created: '2026-11-28T08:00:00Z' },
    { id: 'b', created: '2026-11-28T09:00:00Z' },
  ] as any).map((w) => w.id);
  assert.deepEqual(order, ['b', 'a']);
});

import { strict as assert } from 'node:assert';
import { test } from 'node:test';

import { Attention, REVIEW, SHOW, closedText, endMessageTask, endNotice, questionText, sortReviewTabs, taskContext, taskDiffClosedText, taskDiffTask, taskRow } from '../../src/attention';

const call = (taskId: string, id: string, name: string, args: object) => ({ taskId, kind: 'toolCall', call: { id, name, arguments: JSON.stringify(args) } });

test('a question is laid at the door of the task whose open call it quotes', () => {
  const a = new Attention();
  a.event(call('t1', 'c1', 'run_command', { command: 'make test' }));
  a.event(call('t2', 'c1', 'edit_file', { path: '.vscode/settings.json', new_string: 'x' }));
  assert.equal(a.questionTask('agentls wants to run in /w:\n\nmake test'), 't1');
  assert.equal(a.questionTask('agentls wants to change .vscode/settings.json, which configures the editor. Allow this change?'), 't2');
  // Two running, neither quoted: no guess.
  assert.equal(a.questionTask('This workspace file widens power. Trust it?'), undefined);
  // A call answered no longer claims questions; one task left running takes them.
  a.event({ taskId: 't1', kind: 'toolResult', call: { id: 'c1', name: 'run_command' } });
  a.event({ taskId: 't1', kind: 'end', result: { status: 'ok' } });
  assert.equal(a.questionTask('agentls wants to run in /w:\n\nmake test'), 't2');
});

test('a question names its task by the server\'s taskId; the guess is only for servers that send none', () => {
  const a = new Attention();
  // Two tasks wait to run the same command: the text names both.
  a.event(call('t1', 'c1', 'run_command', { command: 'echo same' }));
  a.event(call('t2', 'c1', 'run_command', { command: 'echo same' }));
  const message = 'agentls wants to run in /w:\n\necho same';
  assert.equal(a.questionTask(message), undefined);
  assert.equal(a.askingTask({ message, taskId: 't1' }), 't1');
  assert.equal(a.askingTask({ message, taskId: 't2' }), 't2');
  // No taskId (an older server), or not a usable one: the guess.
  a.event({ taskId: 't2', kind: 'end', result: { status: 'ok' } });
  assert.equal(a.askingTask({ message }), 't1');
  assert.equal(a.askingTask({ message, taskId: '' }), 't1');
  assert.equal(a.askingTask({ message, taskId: 7 }), 't1');
});

test('the badge counts each task that needs you once: open questions and proposals to review', () => {
  const a = new Attention();
  assert.equal(a.count(), 0);
  a.setTasks([{ taskId: 't1', outcome: 'awaiting review' }, { taskId: 't2' }, { taskId: 't3', outcome: 'undone' }]);
  assert.equal(a.count(), 1);
  assert.ok(a.awaitingReview('t1') && !a.awaitingReview('t2'));
  const q1 = a.asked('t2');
  const q2 = a.asked('t1'); // t1 already counts
  assert.equal(a.count(), 2);
  assert.ok(a.isAsking('t2') && !a.isAsking('t3'));
  assert.equal(a.badgeTooltip(), '2 agentls tasks need you');
  a.answered(q1);
  a.answered(q2);
  assert.equal(a.count(), 1);
  assert.equal(a.badgeTooltip(), '1 agentls task needs you');
  const q3 = a.asked(undefined);
  assert.equal(a.count(), 2);
  a.answered(q3);
  a.setTasks([{ taskId: 't1', outcome: 'rejected' }]);
  assert.equal(a.count(), 0);
});

test('a question names the task it stops', () => {
  assert.equal(questionText('agentls wants to run in /w:\n\nmake', 't4', 'fix the parser\nsecond line'), 'agentls t4 (fix the parser) needs you: agentls wants to run in /w:\n\nmake');
  assert.equal(questionText('Trust it?', undefined, undefined), 'Trust it?');
});

test('a task\'s end raises a notification with buttons in place of the server\'s plain message, none over its focused panel', () => {
  const ok = { status: 'ok', verified: true };
  const server = 'agentls t1 ok, verified (1 file changed): Tidied. [10 in / 2 out tokens]';
  assert.equal(endNotice('t1', 'x', ok, { panel: 'focused', awaitingReview: true, serverText: server }), undefined);
  assert.equal(endNotice('t1', 'x', ok, { panel: 'focused', awaitingReview: false, serverText: server }), undefined);
  const review = endNotice('t1', 'tidy', { status: 'ok' }, { panel: 'visible', awaitingReview: true });
  assert.deepEqual(review, { level: 'warning', text: 'agentls t1 (tidy) needs you: its changes wait for your review.', actions: [REVIEW, SHOW] });
  assert.deepEqual(endNotice('t1', 'x', ok, { panel: 'hidden', awaitingReview: false, serverText: server }), { level: 'info', text: server, actions: [SHOW] });
  assert.deepEqual(endNotice('t1', 'x', ok, { panel: 'visible', awaitingReview: false }), { level: 'info', text: 'agentls t1 (x) is done: ok, verified.', actions: [SHOW] });
  const failed = endNotice('t2', 'y', { status: 'error', error: 'the model failed: 500' }, { panel: 'hidden', awaitingReview: false, ended: 'error (the model failed)' });
  assert.deepEqual(failed, { level: 'error', text: 'agentls t2 (y) failed (error (the model failed)): the model failed: 500', actions: [SHOW] });
  assert.equal(endNotice('t2', 'y', { status: 'ok', reason: 'verifyFailed' }, { panel: 'hidden', awaitingReview: false })?.level, 'error');
  // Cancelled by you: the plain message, no buttons.
  assert.deepEqual(endNotice('t3', 'z', { status: 'cancelled', cancelled: true }, { panel: 'hidden', awaitingReview: false, serverText: 'agentls t3 cancelled by you' }), {
    level: 'info',
    text: 'agentls t3 cancelled by you',
    actions: [],
  });
  assert.equal(endMessageTask(server), 't1');
  assert.equal(endMessageTask('agentls: the server could not read .agentls.json'), undefined);
});

test('Tasks view rows: state, a waiting question, and the context value the menu reads', () => {
  const t = { taskId: 't2', task: 'tidy notes\nmore', status: 'ok', verified: true, undoable: true };
  assert.deepEqual(taskRow(t), { label: 't2 ok, verified', description: 'done · tidy notes' });
  assert.deepEqual(taskRow({ ...t, status: 'running' }, true), { label: 't2 waiting for your answer', description: 'needs you · tidy notes' });
  assert.equal(taskContext(t), 'agentlsTask.undoable');
  assert.equal(taskContext({ status: 'running' }), 'agentlsTask.running');
  assert.equal(taskContext({ status: 'ok', outcome: 'awaiting review', review: true }), 'agentlsTask.review');
});

test('review tabs follow the proposals: still proposed is read again, gone is closed with a word', () => {
  const tabs = [
    { taskId: 't1', file: 'file:///w/a.txt' },
    { taskId: 't1', file: 'file:///w/b%20c.txt' },
    { taskId: 't2', file: 'file:///w/a.txt' },
  ];
  const { close, refresh } = sortReviewTabs(tabs, new Map([['t1', new Set(['file:///w/a.txt'])], ['t2', undefined]]));
  assert.deepEqual(refresh, [tabs[0]]);
  assert.deepEqual(close, [tabs[1], tabs[2]]);
  assert.equal(closedText(close, 'accepted'), 'agentls: closed the review diff of b c.txt, a.txt: t1, t2 proposes nothing there any more (accepted).');
});

test('a "Show Task Changes" tab names its task, and closing it says whose and why', () => {
  assert.equal(taskDiffTask('/t3.diff'), 't3');
  assert.equal(taskDiffTask('/a/t3.diff'), undefined);
  assert.equal(taskDiffTask('/t3.txt'), undefined);
  assert.equal(taskDiffClosedText(['t3'], 'undone', 't3 has no applied changes'), 'agentls: closed the changes of t3 (undone): t3 has no applied changes.');
  assert.equal(taskDiffClosedText(['t3', 't4'], 'rewound'), 'agentls: closed the changes of t3, t4 (rewound).');
});

import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';

import { AgentEvent, StreamRenderer, TaskTracker, autonomyText, taskState, endSummary, statusWord, toolSize, toolSummary, usageLine, vscodeHint, Heads, composedTask } from '../../src/events';

const testdata = path.resolve(__dirname, '..', '..', '..', 'test', 'unit', 'testdata');

function renderAll(evs: AgentEvent[]): string {
  const r = new StreamRenderer();
  return evs.map((e) => r.render(e)).join('');
}

test('StreamRenderer', async (t) => {
  const cases: { name: string; events: AgentEvent[]; want: string }[] = [
    {
      name: 'text deltas join on one line; the next event starts a new one',
      events: [
        { taskId: 't1', kind: 'text', text: 'Let me ' },
        { taskId: 't1', kind: 'text', text: 'look.' },
        { taskId: 't1', kind: 'toolCall', call: { name: 'read_file', arguments: '{"path":"a.go"}' } },
      ],
      want: '[t1] Let me look.\n[t1] → read_file a.go\n',
    },
    {
      name: 'the model\'s plan is a line per step, marked by status',
      events: [
        {
          taskId: 't1',
          kind: 'plan',
          plan: { explanation: 'found it', plan: [{ step: 'Read', status: 'completed' }, { step: 'Fix', status: 'in_progress' }, { step: 'Test', status: 'pending' }] },
        },
      ],
      want: '[t1] · plan: found it\n[t1]     [x] Read\n[t1]     [>] Fix\n[t1]     [ ] Test\n',
    },
    {
      name: 'newlines inside text keep the task prefix; a trailing newline closes the line',
      events: [
        { taskId: 't1', kind: 'text', text: 'one\ntw' },
        { taskId: 't1', kind: 'text', text: 'o\n' },
        { taskId: 't1', kind: 'text', text: 'three' },
      ],
      want: '[t1] one\n[t1] two\n[t1] three',
    },
    {
      name: 'two tasks interleaving do not glue their text together',
      events: [
        { taskId: 't1', kind: 'text', text: 'first' },
        { taskId: 't2', kind: 'text', text: 'second' },
        { taskId: 't1', kind: 'text', text: ' again' },
      ],
      want: '[t1] first\n[t2] second\n[t1]  again',
    },
    {
      name: 'tool results: line count, or the error',
      events: [
        { taskId: 't1', kind: 'toolResult', call: { name: 'read_file' }, output: '1\thello\n2\tworld\n' },
        { taskId: 't1', kind: 'toolResult', call: { name: 'edit_file' }, output: 'old_string not found\nin x', isError: true },
      ],
      want: '[t1] ← read_file ok (2 lines)\n[t1] ← edit_file failed: old_string not found in x\n',
    },
    {
      name: 'verify failure lists its feedback indented',
      events: [
        {
          taskId: 't3',
          kind: 'verify',
          verify: { passed: false, summary: 'go build failed', problems: 1, feedback: './main.go:4:2: undefined: greet\n\n' },
        },
        { taskId: 't3', kind: 'verify', verify: { passed: true, summary: 'go build, go vet ok' } },
      ],
      want: '[t3] ✗ checks failed: go build failed (1 problem in Problems)\n[t3]     ./main.go:4:2: undefined: greet\n[t3] ✓ checks passed: go build, go vet ok\n',
    },
    {
      name: 'usage, state and end',
      events: [
        { taskId: 't1', kind: 'state', from: 'idle', to: 'planning' },
        { taskId: 't1', kind: 'state', from: 'planning', to: 'executing' },
        { taskId: 't1', kind: 'state', from: 'executing', to: 'tools' },
        { taskId: 't1', kind: 'usage', usage: { inputTokens: 10, outputTokens: 2 }, taskUsage: { inputTokens: 30, outputTokens: 5 } },
        { taskId: 't1', kind: 'end', result: { status: 'cancelled', reason: 'cancelled' } },
      ],
      want: '[t1] · planning\n[t1] ■ cancelled\n',
    },
    { name: 'empty text renders nothing', events: [{ taskId: 't1', kind: 'text', text: '' }], want: '' },
  ];
  for (const c of cases) {
    await t.test(c.name, () => assert.equal(renderAll(c.events), c.want));
  }
});

// Events as the real server sent them in the e2e test's edit case
// (recorded from the extension's test probe).
test('StreamRenderer on a recorded task', () => {
  const evs = fs
    .readFileSync(path.join(testdata, 'edit-events.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as AgentEvent);
  assert.equal(
    renderAll(evs),
    [
      '[t1] · planning',
      '[t1] Let me read the file with your selection first.',
      '[t1] → read_file hello.txt',
      '[t1] ← read_file ok (2 lines)',
      '[t1] Now the edit.',
      '[t1] → edit_file hello.txt',
      '[t1] ← edit_file ok (1 line → 1 line)',
      '[t1] I changed the selected greeting to "hello from agentls".',
      '[t1] · reporting',
      '[t1] ■ ok — 1 file changed: hello.txt — 1110/64 tokens: I changed the selected greeting to "hello from agentls".',
      '',
    ].join('\n'),
  );
  const tr = new TaskTracker();
  for (const e of evs) tr.apply(e);
  assert.equal(tr.view().text, '$(check) agentls: t1 ok');
});

test('toolSize states the real size of edits and writes', () => {
  const edit = { name: 'edit_file', arguments: JSON.stringify({ path: 'a.go', old_string: 'x', new_string: 'a\nb\nc\nd\ne\nf\ng\nh' }) };
  assert.equal(toolSize(edit, 'edited a.go'), '1 line → 8 lines');
  assert.equal(toolSize({ name: 'write_file', arguments: JSON.stringify({ path: 'b', content: 'a\nb\n' }) }, 'ok'), '2 lines written');
  assert.equal(toolSize({ name: 'read_file', arguments: '{}' }, 'one\ntwo\n'), '2 lines');
});

test('usageLine: totals, context meter, cost', () => {
  const info = { contextTokens: 128000, priceInput: 0.15, priceOutput: 0.6 };
  assert.equal(usageLine({ inputTokens: 41000, outputTokens: 50 }, { inputTokens: 21000, outputTokens: 10 }, info),
    '41000 in / 50 out tokens · context 16% of 128k · $0.0062');
  assert.equal(usageLine({ inputTokens: 10, outputTokens: 2 }, undefined, {}), '10 in / 2 out tokens');
  assert.equal(statusWord({ status: 'ok', reason: 'verifyFailed' }), 'done, checks failing');
  assert.equal(statusWord({ status: 'ok', verified: true, outcome: 'awaiting review' }), 'awaiting review');
  assert.equal(statusWord({ status: 'ok', outcome: 'undone' }), 'undone');
  assert.equal(statusWord({ status: 'ok', reason: 'verifyFailed', outcome: 'rejected' }), 'rejected');
});

test('toolSummary', () => {
  assert.equal(toolSummary({ name: 'grep', arguments: '{"pattern":"func main"}' }), 'grep func main');
  assert.equal(toolSummary({ name: 'run_command', arguments: '{"command":"go test ./..."}' }), 'run_command go test ./...');
  assert.equal(toolSummary({ name: 'list_files', arguments: '{}' }), 'list_files');
  assert.equal(toolSummary({ name: 'write_file', arguments: '{"path":' }), 'write_file'); // truncated JSON
  assert.equal(toolSummary(undefined), '(tool)');
});

test('endSummary', () => {
  assert.equal(
    endSummary({ status: 'ok', verified: true, reason: 'done', filesChanged: ['a/b.go', 'c%20d.txt'], usage: { inputTokens: 5, outputTokens: 6 }, summary: 'Did it.' }),
    'ok, verified — 2 files changed: b.go, c d.txt — 5/6 tokens: Did it.',
  );
  assert.equal(endSummary({ status: 'error', reason: 'llm', error: 'HTTP 401' }), 'error (llm): HTTP 401');
  assert.equal(endSummary({ status: 'ok', reason: 'verifyFailed', cost: 0.01234 }), 'done, checks failing $0.0123');
  assert.equal(endSummary(undefined), 'ended');
});

test('TaskTracker drives the status bar', () => {
  const tr = new TaskTracker();
  assert.equal(tr.view().command, 'run');
  assert.equal(tr.view().text, '$(hubot) agentls');

  // Events may come before the run command's answer.
  tr.apply({ taskId: 't1', kind: 'state', from: 'idle', to: 'planning' });
  tr.started('t1', 'add a test for the parser, with a table of inputs and outputs', 's1');
  let v = tr.view();
  assert.equal(v.command, 'cancel');
  assert.equal(v.taskId, 't1');
  assert.equal(v.text, '$(sync~spin) agentls: add a test for the parser, with a table… · planning');

  // A task someone else started (a code action) shows without a prompt.
  tr.apply({ taskId: 't2', kind: 'state', from: 'idle', to: 'executing' });
  v = tr.view();
  assert.equal(v.taskId, 't2');
  assert.equal(v.text, '$(sync~spin) agentls: t2 · executing (+1)');
  assert.equal(tr.newestRunning()?.taskId, 't2');

  tr.apply({ taskId: 't2', kind: 'end', result: { status: 'cancelled' } });
  assert.equal(tr.view().taskId, 't1');
  tr.apply({ taskId: 't1', kind: 'end', result: { status: 'ok', verified: true } });
  v = tr.view();
  assert.equal(v.command, 'run');
  // The task that ended last is what the item shows, not the newest one.
  assert.equal(v.text, '$(pass-filled) agentls: t1 ok');
  assert.equal(v.taskId, 't1');
  assert.equal(tr.newest()?.taskId, 't2');
  assert.equal(tr.newestRunning(), undefined);

  tr.apply({ taskId: 't3', kind: 'end', result: { status: 'ok', verified: false, reason: 'verifyFailed' } });
  assert.equal(tr.view().text, '$(warning) agentls: t3 done, checks failing');
  tr.apply({ taskId: 't4', kind: 'end', result: { status: 'error', reason: 'llm', error: 'HTTP 500' } });
  assert.equal(tr.view().text, '$(error) agentls: t4 error');
  assert.match(tr.view().tooltip, /t4: error \(llm\): HTTP 500/);
  // A review task's end: nothing is applied yet, so neither "ok" nor "verified".
  tr.apply({ taskId: 't5', kind: 'end', result: { status: 'ok', verified: true, outcome: 'awaiting review' } });
  assert.equal(tr.view().text, '$(eye) agentls: t5 awaiting review');
  assert.doesNotMatch(tr.view().tooltip, /verified|\bok\b/);
});

test('a notice (a mention not read) is a line of the stream', () => {
  assert.equal(renderAll([{ taskId: 't1', kind: 'notice', text: '@../x.txt was not read: outside the workspace' }]),
    '[t1] · @../x.txt was not read: outside the workspace\n');
});

test('vscodeHint: the key hint names the Set API Key command, not llm.apiKey (VS Code ignores that setting)', () => {
  const server = 'API key rejected by http://x/v1 (set AGENTLS_API_KEY or OPENAI_API_KEY, or llm.apiKey in the configuration)';
  const got = vscodeHint(server);
  assert.ok(!got.includes('llm.apiKey'), got);
  assert.equal(got, 'API key rejected by http://x/v1 (set AGENTLS_API_KEY or OPENAI_API_KEY, or run "agentls: Set API Key")');
  assert.equal(vscodeHint('model not found'), 'model not found');
});

test('Heads: a code action\'s task is headed from its first event; a typed one is not headed twice', () => {
  const h = new Heads();
  assert.equal(h.headFor({ taskId: 't1', kind: 'state', task: 'Fix the failure at e.go:3' }, false), 'Fix the failure at e.go:3');
  h.expect('add a test');
  // The typed task's first event beats the answer: not headed again.
  assert.equal(h.headFor({ taskId: 't2', kind: 'state', task: 'add a test' }, false), undefined);
  // The same prompt later from a code action is headed.
  assert.equal(h.headFor({ taskId: 't3', kind: 'state', task: 'add a test' }, false), 'add a test');
  // A task the client knows already, or an event without a prompt: no header.
  assert.equal(h.headFor({ taskId: 't4', kind: 'state', task: 'x' }, true), undefined);
  assert.equal(h.headFor({ taskId: 't5', kind: 'text', text: 'hi' }, false), undefined);
  h.expect('failed run');
  h.unexpect('failed run');
  assert.equal(h.headFor({ taskId: 't6', kind: 'state', task: 'failed run' }, false), 'failed run');
});

test('composedTask keeps the lines of a multi-line task', () => {
  assert.equal(composedTask('\r\nAdd a test.\r\nThen run it.\r\n\n'), 'Add a test.\nThen run it.');
  assert.equal(composedTask('  \n '), '');
});

// Issue 36: a command says how it ran, its output follows; the end line
// takes the server's words; the status item says the approval mode and
// the budget left.
test('a command result says how it ran, with its output; the end says why in words', () => {
  const run = { id: 'c1', name: 'run_command', arguments: '{"command":"go test ./..."}' };
  const out = renderAll([
    { taskId: 't1', kind: 'toolResult', call: run, output: 'ok  pkg\n[exit code 0]\n', ran: 'exit 0 · in the sandbox, unasked' },
    { taskId: 't1', kind: 'end', result: { status: 'error', reason: 'maxSteps', error: 'stopped at the step limit' }, ended: 'stopped: step limit' },
    { taskId: 't2', kind: 'end', result: { status: 'cancelled', cancelled: true, reason: 'cancelled', error: 'cancelled' }, ended: 'cancelled by you' },
  ]);
  assert.equal(
    out,
    '[t1] ← run_command exit 0 · in the sandbox, unasked\n[t1]     │ ok  pkg\n[t1]     │ [exit code 0]\n' +
      '[t1] ■ stopped: step limit: stopped at the step limit\n' +
      '[t2] ■ cancelled by you\n',
  );
  assert.equal(statusWord({ status: 'cancelled', cancelled: true }), 'cancelled by you');
});

test('the status item says the approval mode and the budget left', () => {
  const tr = new TaskTracker();
  tr.started('t1', 'fix it');
  tr.apply({ taskId: 't1', kind: 'state', step: 3, from: 'tools', to: 'executing' });
  const v = tr.view({ approval: 'sandboxed', maxSteps: 30, maxCostUSD: 1, priceInput: 1, priceOutput: 1 });
  assert.equal(v.text, '$(sync~spin) agentls: fix it · executing · sandboxed · 27 steps left · $1.00 left');
  assert.equal(autonomyText({}, { step: 3 }), '');
  // Three failed edits and no file: not a check mark.
  tr.apply({ taskId: 't1', kind: 'end', result: { status: 'ok', reason: 'done', failedEdits: 3, filesChanged: [] }, ended: 'edits failed (3), nothing changed' });
  assert.equal(tr.view().text, '$(warning) agentls: t1 edits failed (3), nothing changed');
});

test('a sub-agent step is a line under its task; one not worth a line is none', () => {
  assert.equal(
    renderAll([
      { taskId: 't1', kind: 'nested', line: 'explore (where is Add) → read_file calc.go' },
      { taskId: 't1', kind: 'nested', line: '' },
    ]),
    '[t1]     ↳ explore (where is Add) → read_file calc.go\n',
  );
});

test('a task in the lists says running, needs you, failed or done', () => {
  assert.equal(taskState({ status: 'running' }), 'running');
  assert.equal(taskState({ status: 'ok', outcome: 'awaiting review' }), 'needs you');
  assert.equal(taskState({ status: 'error' }), 'failed');
  assert.equal(taskState({ status: 'ok', reason: 'verifyFailed' }), 'failed');
  assert.equal(taskState({ status: 'ok' }), 'done');
});

test('the status item follows what became of a task\'s changes: awaiting review, then accepted', () => {
  const tr = new TaskTracker();
  tr.started('t2', 'review it', 's1', true);
  tr.apply({ taskId: 't2', kind: 'end', result: { status: 'ok', outcome: 'awaiting review' }, ended: 'awaiting review' });
  assert.match(tr.view().text, /t2 awaiting review/);
  assert.equal(tr.followOutcomes([{ taskId: 't2', outcome: 'awaiting review' }]), false);
  assert.equal(tr.followOutcomes([{ taskId: 't2' }, { taskId: 't9', outcome: 'undone' }]), true);
  assert.match(tr.view().text, /t2 ok$/);
  assert.equal(tr.followOutcomes([{ taskId: 't2', outcome: 'undone' }]), true);
  assert.match(tr.view().text, /t2 undone$/);
});

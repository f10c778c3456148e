import { strict as assert } from 'node:assert';
import { test } from 'node:test';

import { labelHtml, planHtml, toolHtml, toolWhat } from '../../src/panelhtml';

// Issue 36 in the conversation panel: a command's row says how it ran and
// holds its output in a collapsed block; the plan is a block of its own
// (the panel keys it by task, so it is drawn again where it is); a task's
// label names it.
test('a command row: how it ran, its output collapsed under it, escaped', () => {
  const ev = {
    taskId: 't1',
    kind: 'toolResult',
    call: { id: 'c1', name: 'run_command', arguments: '{"command":"go test ./..."}' },
    output: 'FAIL <x>\n[exit code 1]\n',
    ran: 'exit 1 · outside the sandbox, approved by you',
  };
  const what = toolWhat(ev, '2 lines');
  assert.equal(what, 'exit 1 · outside the sandbox, approved by you');
  const html = toolHtml(ev, what);
  assert.match(html, /^<details class="tool command"><summary>→ run_command go test \.\/\.\.\. · exit 1 · outside the sandbox, approved by you<\/summary>/);
  assert.match(html, /<pre>FAIL &lt;x&gt;\n\[exit code 1\]<\/pre><\/details>$/);
  assert.doesNotMatch(html, /<details[^>]*open/);
  assert.equal(toolWhat({ taskId: 't1', kind: 'toolResult', output: 'x' }, '1 line'), 'ok (1 line)');
});

test('the plan is one block with its steps marked', () => {
  const html = planHtml({ plan: [{ step: 'Read <a>', status: 'completed' }, { step: 'Fix', status: 'in_progress' }, { step: 'Test', status: 'pending' }] });
  assert.equal(
    html,
    '<div class="plan"><div class="head">Plan (1 of 3 done)</div><ul>' +
      '<li class="completed">☑ Read &lt;a&gt;</li><li class="in_progress">▶ Fix</li><li class="pending">☐ Test</li></ul></div>',
  );
});

test('a task label names the task', () => {
  assert.equal(labelHtml('t7', 'fix <it>'), '<div class="label">┄ t7 · fix &lt;it&gt;</div>');
});

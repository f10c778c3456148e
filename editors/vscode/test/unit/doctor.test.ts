import { strict as assert } from 'node:assert';
import { test } from 'node:test';

import { doctorMessage, doctorText, parseDoctor } from '../../src/doctor';

const report = {
  workspace: '/ws',
  exit: 1,
  checks: [
    { name: 'key', status: 'ok', summary: 'found in the environment (never shown)' },
    { name: 'endpoint', status: 'fail', summary: 'http://127.0.0.1:1/v1 is not reachable', details: ['is the server running?'] },
    { name: 'editors', status: 'info', summary: 'found: vscode' },
  ],
};

test('parseDoctor takes a report and refuses anything else', () => {
  assert.equal(parseDoctor(JSON.stringify(report))?.exit, 1);
  assert.equal(parseDoctor('agentls: unknown command "doctor"'), undefined);
  assert.equal(parseDoctor('{"checks": []}'), undefined);
});

test('doctorText shows each check with its mark and details, then the verdict', () => {
  const text = doctorText(parseDoctor(JSON.stringify(report))!);
  assert.match(text, /^ok {4}key {7}found in the environment \(never shown\)$/m);
  assert.match(text, /^FAIL {2}endpoint {2}http:\/\/127\.0\.0\.1:1\/v1 is not reachable$/m);
  assert.match(text, /^ {16}is the server running\?$/m);
  assert.match(text, /^-- {4}editors/m);
  assert.match(text, /a task could not run here \(exit 1\): endpoint: /);
});

test('doctorMessage: exit 0 informs, 3 warns, 1 errs naming the failed checks', () => {
  assert.equal(doctorMessage({ exit: 0, checks: [] }).level, 'info');
  assert.equal(doctorMessage({ exit: 3, checks: [] }).level, 'warning');
  const m = doctorMessage(parseDoctor(JSON.stringify(report))!);
  assert.equal(m.level, 'error');
  assert.match(m.text, /endpoint: http:\/\/127\.0\.0\.1:1\/v1 is not reachable/);
  assert.doesNotMatch(m.text, /key:/);
});

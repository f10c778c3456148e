import { strict as assert } from 'node:assert';
import { test } from 'node:test';

import { fetchable, jobItem, notFetchableText, refusalText } from '../../src/jobItems';

test('a delegated job reads as its task, its state, id, worker and commit, and what came of it', () => {
  const done = jobItem({
    id: 'j20261128-091500-3f2a',
    state: 'done',
    task: 'make   TestParseDates\npass',
    worker: 'build-2:77',
    commit: '9f2c1e0a1b2c3d4e5f60718293a4b5c6d7e8f901',
    result: { status: 'ok', reason: 'done', filesChanged: ['/w/dates.go'] },
  });
  assert.equal(done.label, 'make TestParseDates pass');
  assert.equal(done.description, 'done · j20261128-091500-3f2a · on build-2:77 · at 9f2c1e0a1b2c');
  assert.equal(done.detail, 'ok (done) · changed dates.go · pick to bring its change here for review');
  const failed = jobItem({ id: 'j2', state: 'failed', task: 'x'.repeat(80), reason: 'delivered 3 times and never finished' });
  assert.equal(failed.label, 'x'.repeat(60) + '…');
  assert.equal(failed.description, 'failed · j2');
  assert.equal(failed.detail, 'failed: delivered 3 times and never finished');
  assert.equal(jobItem({ id: 'j3', state: 'queued' }).detail, undefined);
  assert.equal(jobItem({ id: 'j3', state: 'queued' }).label, 'j3');
});

test('only a job that is done can be fetched; the others say where they are', () => {
  assert.ok(fetchable({ id: 'j1', state: 'done' }));
  for (const state of ['queued', 'running', 'failed', undefined]) assert.ok(!fetchable({ id: 'j1', state }));
  assert.equal(notFetchableText({ id: 'j1', state: 'running', worker: 'w1' }), 'agentls: job j1 is running on w1; its change can be fetched once it is done.');
  assert.equal(notFetchableText({ id: 'j1', state: 'queued' }), 'agentls: job j1 waits for a worker; its change can be fetched once it is done.');
  assert.equal(notFetchableText({ id: 'j1', state: 'failed', reason: 'exit 1' }), 'agentls: job j1 failed: exit 1.');
});

test('a refusal is the server\'s reason without the command\'s name in front', () => {
  assert.equal(refusalText('agentls.delegate', 'agentls.delegate: no NATS server configured: set delegate.url'), 'no NATS server configured: set delegate.url');
  assert.equal(refusalText('agentls.delegate', 'connection closed'), 'connection closed');
});

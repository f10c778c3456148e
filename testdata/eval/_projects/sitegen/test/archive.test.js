import assert from 'node:assert/strict';
import { test } from 'node:test';

import { archive } from '../src/archive.js';
import { makePage } from '../src/page.js';
import { relatedPages } from '../src/related.js';

const page = (name, date, tags) => makePage(`posts/${name}.md`, `---\ntitle: ${name}\n${date ? `date: ${date}\n` : ''}tags: [${tags.join(', ')}]\n---\nText.\n`);

test('archive: by year and month, newest first', () => {
  const pages = [page('a', '2023-12-30', []), page('b', '2024-03-01', []), page('c', '2024-03-20', []), page('d', '2024-01-05', []), page('about', null, [])];
  const got = archive(pages).map((y) => [y.year, y.months.map((m) => [m.month, m.name, m.pages.map((p) => p.title)])]);
  assert.deepEqual(got, [
    [2024, [[3, 'March', ['c', 'b']], [1, 'January', ['d']]]],
    [2023, [[12, 'December', ['a']]]],
  ]);
  assert.deepEqual(archive([page('about', null, [])]), []);
});

test('related: most shared tags, then newest', () => {
  const me = page('me', '2024-01-01', ['js', 'Node', 'web']);
  const two = page('two', '2023-01-01', ['node', 'js']);
  const newer = page('newer', '2024-05-01', ['web']);
  const older = page('older', '2022-05-01', ['WEB']);
  const none = page('none', '2024-06-01', ['cooking']);
  assert.deepEqual(relatedPages(me, [me, none, older, newer, two]).map((p) => p.title), ['two', 'newer', 'older']);
  assert.deepEqual(relatedPages(me, [me, none, older, newer, two], 1).map((p) => p.title), ['two']);
  assert.deepEqual(relatedPages(page('untagged', null, []), [me, two]), []);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { published } from '../src/collection.js';
import { makePage } from '../src/page.js';
import { tagIndex } from '../src/tags.js';

const a = makePage('posts/first.md', '---\ntitle: First\ndate: 2024-01-02\ntags: [News, intro]\n---\nHello there.\n');
const b = makePage('posts/second-post.md', '---\ntitle: Second\ndate: 2024-02-01\ntags: [news]\n---\n## Part\nMore.\n');
const c = makePage('about.md', '---\ntitle: About\n---\nMe.\n');
const d = makePage('posts/wip.md', '---\ntitle: WIP\ndraft: true\n---\nSoon.\n');

test('pages: urls and fields', () => {
  assert.equal(a.url, '/posts/first/');
  assert.equal(c.url, '/about/');
  assert.equal(a.summary, 'Hello there.');
  assert.equal(a.date.toISOString().slice(0, 10), '2024-01-02');
});

test('pages: published order', () => {
  assert.deepEqual(published([c, a, d, b]).map((p) => p.title), ['Second', 'First', 'About']);
});

test('pages: tag index', () => {
  const idx = tagIndex(published([a, b, c]));
  assert.deepEqual(idx.map((t) => [t.tag, t.slug, t.pages.length]), [['intro', 'intro', 1], ['news', 'news', 2]]);
});

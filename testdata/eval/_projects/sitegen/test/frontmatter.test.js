import assert from 'node:assert/strict';
import { test } from 'node:test';

import { splitFrontMatter } from '../src/frontmatter.js';

test('frontmatter: values', () => {
  const { data, body } = splitFrontMatter('---\ntitle: "Hi: there"\ncount: 3\ndraft: true\ntags: [a, b]\n---\nBody\n');
  assert.deepEqual({ ...data }, { title: 'Hi: there', count: 3, draft: true, tags: ['a', 'b'] });
  assert.equal(body, 'Body\n');
});

test('frontmatter: none', () => {
  assert.deepEqual(splitFrontMatter('# Just text').data, {});
});

test('frontmatter: errors', () => {
  assert.throws(() => splitFrontMatter('---\ntitle: x\n', 'a.md'), /a\.md:1: front matter is not closed/);
  assert.throws(() => splitFrontMatter('---\nnot a pair\n---\n', 'a.md'), /a\.md:2: want key: value/);
});

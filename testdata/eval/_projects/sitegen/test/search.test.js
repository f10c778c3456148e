import assert from 'node:assert/strict';
import { test } from 'node:test';

import { makePage } from '../src/page.js';
import { searchIndex, words } from '../src/search.js';

test('search: words of a text', () => {
  assert.deepEqual(words('The *quick* [fox](x) and the QUICK dog, é café 2024!'), ['2024', 'café', 'dog', 'fox', 'quick']);
  assert.deepEqual(words(''), []);
});

test('search: the index', () => {
  const a = makePage('posts/a.md', '---\ntitle: Baking bread\ndate: 2024-02-03\ntags: [food]\nsummary: How to.\n---\nFlour, water, salt.\n');
  const b = makePage('about.md', '---\ntitle: About\n---\nMe.\n');
  assert.deepEqual(JSON.parse(searchIndex([a, b])), [
    { title: 'Baking bread', url: '/posts/a/', date: '2024-02-03', tags: ['food'], summary: 'How to.', words: ['baking', 'bread', 'flour', 'salt', 'water'] },
    { title: 'About', url: '/about/', date: null, tags: [], summary: 'Me.', words: ['about'] },
  ]);
});

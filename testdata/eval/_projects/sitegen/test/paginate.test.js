import assert from 'node:assert/strict';
import { test } from 'node:test';

import { pagePath, paginate } from '../src/paginate.js';

test('paginate: pages', () => {
  const pages = paginate([1, 2, 3, 4, 5], 2);
  assert.deepEqual(pages.map((p) => p.items), [[1, 2], [3, 4], [5]]);
  assert.deepEqual(pages.map((p) => [p.prev, p.next]), [[null, 2], [1, 3], [2, null]]);
});

test('paginate: empty', () => {
  assert.deepEqual(paginate([], 3), [{ number: 1, items: [], prev: null, next: null, total: 1 }]);
});

test('paginate: paths', () => {
  assert.equal(pagePath('/posts/', 1), '/posts/');
  assert.equal(pagePath('/posts/', 3), '/posts/page/3/');
});

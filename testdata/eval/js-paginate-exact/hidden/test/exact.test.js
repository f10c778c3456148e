import assert from 'node:assert/strict';
import { test } from 'node:test';

import { paginate } from '../src/paginate.js';

test('paginate exact: full pages make no empty page', () => {
  const pages = paginate([1, 2, 3, 4], 2);
  assert.deepEqual(pages.map((p) => p.items), [[1, 2], [3, 4]]);
  assert.equal(pages[1].next, null);
  assert.equal(pages[0].total, 2);
  assert.equal(paginate([1, 2, 3], 3).length, 1);
  assert.equal(paginate([1, 2, 3, 4, 5, 6, 7], 3).length, 3);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { slugify, slugger } from '../src/slug.js';

test('slug: lower case and dashes', () => {
  assert.equal(slugify('Hello, World!'), 'hello-world');
  assert.equal(slugify('  Release 2.0 -- notes  '), 'release-2-0-notes');
});

test('slug: slugger makes slugs unique', () => {
  const s = slugger();
  assert.deepEqual([s('Setup'), s('Setup'), s('Other'), s('Setup')], ['setup', 'setup-1', 'other', 'setup-2']);
});

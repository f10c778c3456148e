import assert from 'node:assert/strict';
import { test } from 'node:test';

import { renderMarkdown } from '../src/markdown.js';
import { makePage } from '../src/page.js';
import { slugify } from '../src/slug.js';
import { tagIndex } from '../src/tags.js';

test('accents: slugs keep the letters', () => {
  assert.equal(slugify('Crème brûlée à la maison'), 'creme-brulee-a-la-maison');
});

test('accents: heading ids and tag pages', () => {
  assert.equal(renderMarkdown('## Café'), '<h2 id="cafe">Café</h2>');
  const p = makePage('posts/x.md', '---\ntitle: X\ntags: [Café]\n---\nx\n');
  assert.equal(tagIndex([p])[0].slug, 'cafe');
});

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { renderMarkdown } from '../src/markdown.js';
import { tableOfContents } from '../src/toc.js';

const doc = '# Guide\n## Linux\n### Setup\n## macOS\n### Setup\n### Setup\n';

test('duplicate ids: headings get distinct ids', () => {
  const ids = [...renderMarkdown(doc).matchAll(/id="([^"]+)"/g)].map((m) => m[1]);
  assert.deepEqual(ids, ['guide', 'linux', 'setup', 'macos', 'setup-1', 'setup-2']);
});

test('duplicate ids: the table of contents links to them', () => {
  assert.deepEqual(tableOfContents(doc).map((e) => e.id), ['linux', 'setup', 'macos', 'setup-1', 'setup-2']);
  assert.deepEqual(tableOfContents('## A\n## A').map((e) => e.id), ['a', 'a-1']);
});

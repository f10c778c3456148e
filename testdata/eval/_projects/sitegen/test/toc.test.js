import assert from 'node:assert/strict';
import { test } from 'node:test';

import { renderToc, tableOfContents } from '../src/toc.js';

test('toc: levels two and three', () => {
  const toc = tableOfContents('# Title\n## Install\n### From source\n#### Deep\n## Use');
  assert.deepEqual(toc.map((e) => [e.level, e.id]), [[2, 'install'], [3, 'from-source'], [2, 'use']]);
  assert.match(renderToc(toc), /<a href="#from-source">From source<\/a>/);
});

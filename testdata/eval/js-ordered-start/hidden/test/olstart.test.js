import assert from 'node:assert/strict';
import { test } from 'node:test';

import { renderMarkdown } from '../src/markdown.js';

test('ordered start: a list keeps its first number', () => {
  assert.equal(renderMarkdown('3. three\n4. four'), '<ol start="3"><li>three</li><li>four</li></ol>');
  assert.equal(renderMarkdown('1. one\n2. two'), '<ol><li>one</li><li>two</li></ol>');
  assert.equal(renderMarkdown('10. ten'), '<ol start="10"><li>ten</li></ol>');
  assert.equal(renderMarkdown('- a\n- b'), '<ul><li>a</li><li>b</li></ul>');
});

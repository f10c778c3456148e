import assert from 'node:assert/strict';
import { test } from 'node:test';

import { renderMarkdown } from '../src/markdown.js';

test('markdown: headings and paragraphs', () => {
  assert.equal(renderMarkdown('# Title\n\nSome *text* and **more**.\nSame paragraph.'),
    '<h1 id="title">Title</h1>\n<p>Some <em>text</em> and <strong>more</strong>. Same paragraph.</p>');
});

test('markdown: lists, code, quotes, rules', () => {
  const html = renderMarkdown('- a\n- b\n\n```js\nx < 1\n```\n\n> quoted\n> more\n\n---');
  assert.equal(html, '<ul><li>a</li><li>b</li></ul>\n<pre><code class="language-js">x &lt; 1</code></pre>\n<blockquote><p>quoted more</p></blockquote>\n<hr>');
});

test('markdown: links and escaping', () => {
  assert.equal(renderMarkdown('[a & b](https://x.org/?q=1&r=2) <https://y.org> `<b>`'),
    '<p><a href="https://x.org/?q=1&amp;r=2">a &amp; b</a> <a href="https://y.org">https://y.org</a> <code>&lt;b&gt;</code></p>');
});

test('markdown: ordered list from one', () => {
  assert.equal(renderMarkdown('1. x\n2. y'), '<ol><li>x</li><li>y</li></ol>');
});

import { strict as assert } from 'node:assert';
import { test } from 'node:test';

import { renderMarkdown } from '../../src/markdown';

test('renderMarkdown renders the usual and escapes everything', () => {
  assert.equal(renderMarkdown('# Title\n\nSome **bold** and `a<b>`.'), '<h1>Title</h1>\n<p>Some <strong>bold</strong> and <code>a&lt;b&gt;</code>.</p>');
  assert.equal(renderMarkdown('```go\nif a < b {}\n```'), '<pre><code class="lang-go">if a &lt; b {}</code></pre>');
  assert.equal(renderMarkdown('- one\n- two'), '<ul>\n<li>one</li>\n<li>two</li>\n</ul>');
  assert.equal(renderMarkdown('<script>alert(1)</script>'), '<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>');
  assert.equal(renderMarkdown('[x](javascript:alert(1))').includes('href'), false);
});

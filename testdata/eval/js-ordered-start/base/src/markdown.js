import { parseBlocks } from './blocks.js';
import { escapeAttr, escapeHtml } from './escape.js';
import { renderInline } from './inline.js';
import { slugger } from './slug.js';

// renderMarkdown turns Markdown into HTML. Headings get ids (their slugs),
// for links to sections and the table of contents.
// A heading whose slug an earlier one took gets -1, -2…
export function renderMarkdown(text) {
  const ids = slugger();
  return parseBlocks(text)
    .map((b) => renderBlock(b, ids))
    .join('\n');
}

function renderBlock(b, ids) {
  switch (b.type) {
    case 'heading':
      return `<h${b.level} id="${escapeAttr(ids(b.text))}">${renderInline(b.text)}</h${b.level}>`;
    case 'paragraph':
      return `<p>${renderInline(b.text)}</p>`;
    case 'code': {
      const cls = b.lang ? ` class="language-${escapeAttr(b.lang)}"` : '';
      return `<pre><code${cls}>${escapeHtml(b.text)}</code></pre>`;
    }
    case 'quote':
      return `<blockquote><p>${renderInline(b.text)}</p></blockquote>`;
    case 'rule':
      return '<hr>';
    case 'list': {
      const tag = b.ordered ? 'ol' : 'ul';
      const items = b.items.map((it) => `<li>${renderInline(it)}</li>`).join('');
      return `<${tag}>${items}</${tag}>`;
    }
  }
  return '';
}

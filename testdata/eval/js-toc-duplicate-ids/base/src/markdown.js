import { parseBlocks } from './blocks.js';
import { escapeAttr, escapeHtml } from './escape.js';
import { renderInline } from './inline.js';
import { slugify } from './slug.js';

// renderMarkdown turns Markdown into HTML. Headings get ids (their slugs),
// for links to sections and the table of contents.
export function renderMarkdown(text) {
  return parseBlocks(text).map(renderBlock).join('\n');
}

function renderBlock(b) {
  switch (b.type) {
    case 'heading':
      return `<h${b.level} id="${escapeAttr(slugify(b.text))}">${renderInline(b.text)}</h${b.level}>`;
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
      const start = b.ordered && b.start !== 1 ? ` start="${b.start}"` : '';
      return `<${tag}${start}>${items}</${tag}>`;
    }
  }
  return '';
}

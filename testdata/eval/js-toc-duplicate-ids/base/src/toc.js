import { parseBlocks } from './blocks.js';
import { escapeAttr } from './escape.js';
import { renderInline } from './inline.js';
import { slugify } from './slug.js';

// tableOfContents lists a page's headings from level min to max:
// [{ level, text, id }], id as renderMarkdown gives the heading.
export function tableOfContents(text, { min = 2, max = 3 } = {}) {
  return parseBlocks(text)
    .filter((b) => b.type === 'heading')
    .map((b) => ({ level: b.level, text: b.text, id: slugify(b.text) }))
    .filter((h) => h.level >= min && h.level <= max);
}

// renderToc writes the entries as a nested-looking flat list of links.
export function renderToc(entries) {
  if (entries.length === 0) return '';
  const items = entries
    .map((e) => `<li class="toc-${e.level}"><a href="#${escapeAttr(e.id)}">${renderInline(e.text)}</a></li>`)
    .join('');
  return `<nav class="toc"><ul>${items}</ul></nav>`;
}

import { escapeAttr, escapeHtml } from './escape.js';

// renderInline turns a line of Markdown inline syntax into HTML: `code`,
// **strong**, *em*, [text](url) and <https://autolinks>. Text is escaped.
export function renderInline(text) {
  const out = [];
  let i = 0;
  while (i < text.length) {
    const rest = text.slice(i);
    let m;
    if ((m = /^`([^`]+)`/.exec(rest))) {
      out.push(`<code>${escapeHtml(m[1])}</code>`);
    } else if ((m = /^\*\*(.+?)\*\*/.exec(rest))) {
      out.push(`<strong>${renderInline(m[1])}</strong>`);
    } else if ((m = /^\*([^*]+)\*/.exec(rest))) {
      out.push(`<em>${renderInline(m[1])}</em>`);
    } else if ((m = /^\[([^\]]+)\]\(([^)\s]+)\)/.exec(rest))) {
      out.push(`<a href="${escapeAttr(m[2])}">${renderInline(m[1])}</a>`);
    } else if ((m = /^<(https?:\/\/[^>\s]+)>/.exec(rest))) {
      out.push(`<a href="${escapeAttr(m[1])}">${escapeHtml(m[1])}</a>`);
    } else {
      out.push(escapeHtml(text[i]));
      i++;
      continue;
    }
    i += m[0].length;
  }
  return out.join('');
}

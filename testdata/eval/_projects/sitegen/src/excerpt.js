import { parseBlocks } from './blocks.js';

// excerpt is the page's first paragraph, cut to at most words words
// (with "…" when cut).
export function excerpt(text, words = 40) {
  const first = parseBlocks(text).find((b) => b.type === 'paragraph');
  if (!first) return '';
  const all = first.text.split(/\s+/);
  return all.length <= words ? first.text : all.slice(0, words).join(' ') + '…';
}

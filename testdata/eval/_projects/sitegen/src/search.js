import { isoDate } from './dates.js';

// Words too common to help a search.
const STOP = new Set(['and', 'are', 'but', 'for', 'from', 'has', 'have', 'not', 'that', 'the', 'this', 'was', 'were', 'with', 'you', 'your']);

// words are the distinct words of text for a search index, lower case,
// sorted: letters and digits of any script, three or more long, without
// Markdown's punctuation and the stop words.
export function words(text) {
  const all = String(text).toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return [...new Set(all.filter((w) => w.length >= 3 && !STOP.has(w)))].sort();
}

// searchIndex is the JSON a client-side search loads: for each page its
// title, URL, date, tags, summary and words (of the title and the body).
export function searchIndex(pages) {
  const entries = pages.map((p) => ({
    title: p.title,
    url: p.url,
    date: p.date ? isoDate(p.date) : null,
    tags: p.tags,
    summary: p.summary,
    words: words(`${p.title} ${p.body}`),
  }));
  return JSON.stringify(entries, null, 1) + '\n';
}

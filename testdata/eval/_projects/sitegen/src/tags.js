import { slugify } from './slug.js';

// tagIndex groups published pages by tag: [{ tag, slug, pages }], tags
// sorted by name, compared without case (the first spelling is shown).
export function tagIndex(pages) {
  const byKey = new Map();
  for (const p of pages) {
    for (const tag of p.tags) {
      const key = tag.toLowerCase();
      if (!byKey.has(key)) byKey.set(key, { tag, slug: slugify(tag), pages: [] });
      const entry = byKey.get(key);
      if (!entry.pages.includes(p)) entry.pages.push(p);
    }
  }
  return [...byKey.values()].sort((a, b) => a.tag.toLowerCase().localeCompare(b.tag.toLowerCase()));
}

// relatedPages picks up to n other pages for page's "see also": those
// sharing the most tags with it (compared without case), then the
// newest, then by title. Pages sharing no tag are not related.
export function relatedPages(page, pages, n = 3) {
  const mine = new Set(page.tags.map((t) => t.toLowerCase()));
  if (mine.size === 0) return [];
  return pages
    .filter((p) => p !== page && p.url !== page.url)
    .map((p) => ({ page: p, shared: new Set(p.tags.map((t) => t.toLowerCase()).filter((t) => mine.has(t))).size }))
    .filter((r) => r.shared > 0)
    .sort((a, b) => b.shared - a.shared || (b.page.date ?? 0) - (a.page.date ?? 0) || a.page.title.localeCompare(b.page.title))
    .slice(0, n)
    .map((r) => r.page);
}

// paginate splits items into pages of perPage:
// [{ number, items, prev, next, total }] with prev/next page numbers (or
// null). No items make one empty page.
export function paginate(items, perPage) {
  if (!(perPage > 0)) throw new Error('perPage must be positive');
  const total = Math.max(1, Math.ceil(items.length / perPage));
  const pages = [];
  for (let n = 1; n <= total; n++) {
    pages.push({
      number: n,
      items: items.slice((n - 1) * perPage, n * perPage),
      prev: n > 1 ? n - 1 : null,
      next: n < total ? n + 1 : null,
      total,
    });
  }
  return pages;
}

// pagePath is where page n of a list lives: /posts/ then /posts/page/2/.
export function pagePath(base, n) {
  return n === 1 ? base : `${base.replace(/\/$/, '')}/page/${n}/`;
}

const SMALL = new Set(['a', 'an', 'and', 'of', 'the', 'in', 'on']);

export const titleCase = (title) =>
  title
    .split(/\s+/)
    .filter((w) => w !== '')
    .map((w, i) => {
      const lower = w.toLowerCase();
      if (i > 0 && SMALL.has(lower)) return lower;
      return lower.charAt(0).toUpperCase() + lower.slice(1);
    })
    .join(' ');

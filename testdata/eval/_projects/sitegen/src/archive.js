import { monthName } from './dates.js';

// archive groups the dated pages by year and month for an archive page:
// [{ year, months: [{ month, name, pages }] }], newest first. Pages
// without a date have no place in it.
export function archive(pages) {
  const years = new Map();
  const dated = pages.filter((p) => p.date).sort((a, b) => b.date - a.date || a.title.localeCompare(b.title));
  for (const p of dated) {
    const year = p.date.getUTCFullYear();
    const month = p.date.getUTCMonth() + 1;
    if (!years.has(year)) years.set(year, new Map());
    const months = years.get(year);
    if (!months.has(month)) months.set(month, { month, name: monthName(p.date), pages: [] });
    months.get(month).pages.push(p);
  }
  return [...years].map(([year, months]) => ({ year, months: [...months.values()] }));
}

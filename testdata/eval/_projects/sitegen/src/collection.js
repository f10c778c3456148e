// published keeps the pages that are not drafts, newest first; pages
// without a date come last, by title.
export function published(pages) {
  return pages
    .filter((p) => !p.draft)
    .sort((a, b) => {
      if (a.date && b.date) return b.date - a.date || a.title.localeCompare(b.title);
      if (a.date) return -1;
      if (b.date) return 1;
      return a.title.localeCompare(b.title);
    });
}

// inSection keeps the pages of one section (posts, notes).
export function inSection(pages, section) {
  return pages.filter((p) => p.section === section);
}

import { escapeAttr, escapeHtml } from './escape.js';
import { SiteError } from './errors.js';
import { joinUrl } from './urls.js';

// aliasPath makes an old URL from front matter a site path: one leading
// and one trailing slash, no query or fragment.
export function aliasPath(alias) {
  const s = String(alias).trim().replace(/[?#].*$/, '');
  const parts = s.split('/').filter(Boolean);
  if (parts.length === 0 || parts.some((x) => x === '.' || x === '..')) {
    throw new SiteError(`alias ${JSON.stringify(String(alias))} is not a page path`);
  }
  return '/' + parts.join('/') + '/';
}

// redirects lists the redirects the pages ask for with "aliases" in
// their front matter (the URLs a page had before it moved): [{ from, to }].
// An alias that is a page's URL, or another page's alias, is an error.
export function redirects(pages) {
  const urls = new Set(pages.map((p) => p.url));
  const seen = new Map();
  const out = [];
  for (const p of pages) {
    const raw = p.data.aliases;
    const aliases = Array.isArray(raw) ? raw : raw ? [raw] : [];
    for (const a of aliases) {
      const from = aliasPath(a);
      if (urls.has(from)) throw new SiteError(`alias ${from} is the URL of a page`, { file: p.path });
      if (seen.has(from)) throw new SiteError(`alias ${from} is already an alias of ${seen.get(from)}`, { file: p.path });
      seen.set(from, p.path);
      out.push({ from, to: p.url });
    }
  }
  return out;
}

// redirectPage is the HTML written at an old URL: it sends browsers and
// search engines on to the page's URL.
export function redirectPage(site, to) {
  const url = joinUrl(site.url, to);
  return [
    '<!DOCTYPE html>',
    `<html><head><meta charset="utf-8"><title>Moved to ${escapeHtml(url)}</title>`,
    `<link rel="canonical" href="${escapeAttr(url)}">`,
    `<meta http-equiv="refresh" content="0; url=${escapeAttr(url)}">`,
    `</head><body><a href="${escapeAttr(url)}">${escapeHtml(url)}</a></body></html>`,
  ].join('\n');
}

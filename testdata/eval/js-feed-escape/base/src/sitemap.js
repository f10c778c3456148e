import { isoDate } from './dates.js';
import { joinUrl } from './urls.js';

// sitemap lists every page's URL, with its date when it has one.
export function sitemap(site, pages) {
  const urls = pages.map((p) => {
    const lastmod = p.date ? `<lastmod>${isoDate(p.date)}</lastmod>` : '';
    return `<url><loc>${joinUrl(site.url, p.url)}</loc>${lastmod}</url>`;
  });
  return ['<?xml version="1.0" encoding="UTF-8"?>', '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">', ...urls, '</urlset>'].join('\n');
}

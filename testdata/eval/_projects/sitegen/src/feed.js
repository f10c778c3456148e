import { formatDate } from './dates.js';
import { escapeXml } from './escape.js';
import { joinUrl } from './urls.js';

// rssFeed writes an RSS 2.0 feed of the newest pages with a date.
export function rssFeed(site, pages, limit = 20) {
  const items = pages
    .filter((p) => p.date)
    .slice(0, limit)
    .map((p) => {
      const url = joinUrl(site.url, p.url);
      return [
        '<item>',
        `<title>${escapeXml(p.title)}</title>`,
        `<link>${escapeXml(url)}</link>`,
        `<guid>${escapeXml(url)}</guid>`,
        `<pubDate>${formatDate(p.date, 'rfc822')}</pubDate>`,
        `<description>${escapeXml(p.summary)}</description>`,
        '</item>',
      ].join('');
    });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<rss version="2.0"><channel>',
    `<title>${escapeXml(site.title)}</title>`,
    `<link>${escapeXml(site.url)}</link>`,
    `<description>${escapeXml(site.description ?? '')}</description>`,
    ...items,
    '</channel></rss>',
  ].join('\n');
}

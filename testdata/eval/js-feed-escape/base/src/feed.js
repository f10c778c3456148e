import { formatDate } from './dates.js';
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
        `<title>${p.title}</title>`,
        `<link>${url}</link>`,
        `<guid>${url}</guid>`,
        `<pubDate>${formatDate(p.date, 'rfc822')}</pubDate>`,
        `<description>${p.summary}</description>`,
        '</item>',
      ].join('');
    });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<rss version="2.0"><channel>',
    `<title>${site.title}</title>`,
    `<link>${site.url}</link>`,
    `<description>${site.description ?? ''}</description>`,
    ...items,
    '</channel></rss>',
  ].join('\n');
}

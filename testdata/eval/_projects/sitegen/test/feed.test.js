import assert from 'node:assert/strict';
import { test } from 'node:test';

import { rssFeed } from '../src/feed.js';
import { makePage } from '../src/page.js';
import { sitemap } from '../src/sitemap.js';

const site = { title: 'Site', url: 'https://example.org/', description: 'Notes' };
const page = makePage('posts/hello.md', '---\ntitle: Hello\ndate: 2024-03-05\n---\nFirst words.\n');

test('feed: rss items', () => {
  const xml = rssFeed(site, [page]);
  assert.match(xml, /<title>Hello<\/title><link>https:\/\/example.org\/posts\/hello\/<\/link>/);
  assert.match(xml, /<pubDate>Tue, 05 Mar 2024 00:00:00 GMT<\/pubDate>/);
});

test('feed: sitemap', () => {
  assert.match(sitemap(site, [page]), /<url><loc>https:\/\/example.org\/posts\/hello\/<\/loc><lastmod>2024-03-05<\/lastmod><\/url>/);
});

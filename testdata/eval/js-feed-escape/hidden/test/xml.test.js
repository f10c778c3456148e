import assert from 'node:assert/strict';
import { test } from 'node:test';

import { rssFeed } from '../src/feed.js';
import { makePage } from '../src/page.js';
import { sitemap } from '../src/sitemap.js';

const site = { title: 'Notes <& more>', url: 'https://example.org/', description: 'Tom & Jerry' };
const page = makePage('posts/a-b.md', '---\ntitle: Tom & Jerry <3\ndate: 2024-03-05\nslug: "q&a"\n---\nCats & "mice" aren\'t friends.\n');

function wellFormed(xml) {
  const text = xml.replace(/<\?xml[^>]*\?>/, '').replace(/<\/?[a-zA-Z][^<>]*>/g, '');
  assert.doesNotMatch(text, /[<>]/, 'a stray < or > in text');
  assert.doesNotMatch(text, /&(?!(amp|lt|gt|quot|apos|#\d+);)/, 'a raw & in text');
}

test('xml: feed escapes titles, links and summaries', () => {
  const xml = rssFeed(site, [page]);
  wellFormed(xml);
  assert.match(xml, /<title>Tom &amp; Jerry &lt;3<\/title>/);
  assert.match(xml, /<title>Notes &lt;&amp; more&gt;<\/title>/);
  assert.match(xml, /<description>Cats &amp; (&quot;|")mice(&quot;|") aren(&apos;|'|&#39;)t friends\.<\/description>/);
});

test('xml: sitemap escapes urls', () => {
  const xml = sitemap({ ...site, url: 'https://example.org/?a=1&b=2' }, [page]);
  wellFormed(xml);
  assert.match(xml, /<loc>https:\/\/example.org\/\?a=1&amp;b=2\/posts\/q-a\/<\/loc>/);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { makePage } from '../src/page.js';
import { aliasPath, redirectPage, redirects } from '../src/redirects.js';

test('redirects: aliases of moved pages', () => {
  const a = makePage('posts/new.md', '---\ntitle: New\naliases: [/2019/old-name, old/?page=1]\n---\nText.\n');
  const b = makePage('about.md', '---\ntitle: About\naliases: /me\n---\nMe.\n');
  assert.deepEqual(redirects([a, b]), [
    { from: '/2019/old-name/', to: '/posts/new/' },
    { from: '/old/', to: '/posts/new/' },
    { from: '/me/', to: '/about/' },
  ]);
  const html = redirectPage({ url: 'https://x.example/' }, '/posts/a&b/');
  assert.match(html, /<meta http-equiv="refresh" content="0; url=https:\/\/x\.example\/posts\/a&amp;b\/">/);
  assert.match(html, /<link rel="canonical" href="https:\/\/x\.example\/posts\/a&amp;b\/">/);
});

test('redirects: errors', () => {
  const a = makePage('posts/a.md', '---\ntitle: A\naliases: [/about/]\n---\n');
  const b = makePage('about.md', '---\ntitle: About\n---\n');
  assert.throws(() => redirects([a, b]), /alias \/about\/ is the URL of a page/);
  const c = makePage('posts/c.md', '---\ntitle: C\naliases: [/old]\n---\n');
  const d = makePage('posts/d.md', '---\ntitle: D\naliases: [/old/]\n---\n');
  assert.throws(() => redirects([c, d]), /alias \/old\/ is already an alias of posts\/c\.md/);
  assert.throws(() => aliasPath('/a/../b'), /is not a page path/);
  assert.throws(() => aliasPath('/'), /is not a page path/);
});

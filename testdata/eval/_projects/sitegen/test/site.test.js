import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

import { main } from '../src/cli.js';

function makeSite(files) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sitegen-'));
  const all = {
    'site.json': JSON.stringify({ title: 'T', url: 'https://t.example', perPage: 2 }),
    'layouts/page.html': '{{{content}}}',
    'layouts/list.html': '{{#each pages}}[{{title}}]{{/each}}',
    ...files,
  };
  for (const [p, text] of Object.entries(all)) {
    fs.mkdirSync(path.dirname(path.join(root, p)), { recursive: true });
    fs.writeFileSync(path.join(root, p), text);
  }
  return root;
}

function sink() {
  let text = '';
  return { write: (s) => { text += s; }, get text() { return text; } };
}

test('site: archive, related pages, redirects, search index and static files', () => {
  const root = makeSite({
    'layouts/page.html': '{{#each related}}<{{title}}>{{/each}}',
    'layouts/list.html': '{{#each archive}}{{year}}:{{#each months}}{{name}}={{#each pages}}[{{title}}]{{/each}}{{/each}};{{/each}}',
    'content/posts/a.md': '---\ntitle: A\ndate: 2023-11-01\ntags: [x]\naliases: [/old-a]\n---\nAlpha words.\n',
    'content/posts/b.md': '---\ntitle: B\ndate: 2024-01-02\ntags: [x, y]\n---\nBeta.\n',
    'content/about.md': '---\ntitle: About\n---\nMe.\n',
    'static/css/site.css': 'body{}',
    'static/.hidden': 'no',
  });
  const out = sink();
  assert.equal(main(['build', root], { out, err: sink() }), 0);
  const pub = path.join(root, 'public');
  const read = (f) => fs.readFileSync(path.join(pub, f), 'utf8');
  assert.equal(read('archive/index.html'), '2024:January=[B];2023:November=[A];');
  assert.equal(read('posts/a/index.html'), '<B>');
  assert.match(read('old-a/index.html'), /url=https:\/\/t\.example\/posts\/a\//);
  assert.deepEqual(JSON.parse(read('search.json')).map((e) => [e.url, e.words]), [['/posts/b/', ['beta']], ['/posts/a/', ['alpha', 'words']], ['/about/', ['about']]]);
  assert.equal(read('css/site.css'), 'body{}');
  assert.equal(fs.existsSync(path.join(pub, '.hidden')), false);
  assert.match(out.text, /wrote 13 files/);
});

test('site: a static file may not replace a generated one', () => {
  const root = makeSite({ 'static/feed.xml': '<rss/>' });
  const err = sink();
  assert.equal(main(['build', root], { out: sink(), err }), 1);
  assert.match(err.text, /static file feed\.xml would replace a file the site generates/);
});

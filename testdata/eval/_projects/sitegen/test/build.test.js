import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

import { main } from '../src/cli.js';

export function makeSite(files) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sitegen-'));
  const all = {
    'site.json': JSON.stringify({ title: 'T', url: 'https://t.example', perPage: 2 }),
    'layouts/page.html': '<title>{{page.title}}</title>{{{toc}}}{{{content}}}',
    'layouts/list.html': '{{#each pages}}[{{title}}]{{/each}}{{#if pager.next}}next:{{pager.next}}{{/if}}',
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

test('build: a small site', () => {
  const root = makeSite({
    'content/posts/a.md': '---\ntitle: A\ndate: 2024-01-01\ntags: [x]\n---\n## Part\nText.\n',
    'content/posts/b.md': '---\ntitle: B\ndate: 2024-01-02\n---\nText.\n',
    'content/posts/c.md': '---\ntitle: C\ndate: 2024-01-03\n---\nText.\n',
  });
  const out = sink();
  assert.equal(main(['build', root], { out, err: sink() }), 0);
  const pub = path.join(root, 'public');
  assert.match(fs.readFileSync(path.join(pub, 'posts/a/index.html'), 'utf8'), /<a href="#part">Part<\/a>/);
  assert.equal(fs.readFileSync(path.join(pub, 'index.html'), 'utf8'), '[C][B]next:2');
  assert.equal(fs.readFileSync(path.join(pub, 'page/2/index.html'), 'utf8'), '[A]');
  assert.equal(fs.readFileSync(path.join(pub, 'tags/x/index.html'), 'utf8'), '[A]');
  assert.match(out.text, /wrote 10 files/);
});

test('build: bad config', () => {
  const root = makeSite({ 'site.json': '{"perPage": 0}' });
  const err = sink();
  assert.equal(main(['build', root], { out: sink(), err }), 1);
  assert.match(err.text, /perPage must be a whole number/);
});

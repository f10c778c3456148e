import assert from 'node:assert/strict';
import { test } from 'node:test';

import { render } from '../src/template.js';

test('template: variables and escaping', () => {
  assert.equal(render('<h1>{{page.title}}</h1>{{{html}}}{{missing}}', { page: { title: 'A & B' }, html: '<p>x</p>' }), '<h1>A &amp; B</h1><p>x</p>');
});

test('template: each and if', () => {
  const src = '{{#each pages}}<li>{{title}} ({{site}})</li>{{else}}none{{/each}}{{#if tag}}#{{tag}}{{/if}}';
  assert.equal(render(src, { site: 's', pages: [{ title: 'a' }, { title: 'b' }], tag: 'x' }), '<li>a (s)</li><li>b (s)</li>#x');
  assert.equal(render(src, { pages: [] }), 'none');
});

test('template: errors', () => {
  assert.throws(() => render('{{#each x}}', {}), /is not closed/);
  assert.throws(() => render('{{#with x}}{{/with}}', {}), /unknown block/);
});

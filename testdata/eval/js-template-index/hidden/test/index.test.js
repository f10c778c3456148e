import assert from 'node:assert/strict';
import { test } from 'node:test';

import { render } from '../src/template.js';

test('each index: @index, @first and @last', () => {
  const src = '{{#each pages}}{{#if @first}}[{{/if}}{{@index}}:{{title}}{{#if @last}}]{{else}},{{/if}}{{/each}}';
  assert.equal(render(src, { pages: [{ title: 'a' }, { title: 'b' }, { title: 'c' }] }), '[0:a,1:b,2:c]');
});

test('each index: nested lists have their own', () => {
  const src = '{{#each rows}}{{@index}}({{#each cells}}{{@index}}{{/each}}){{/each}}';
  assert.equal(render(src, { rows: [{ cells: [1, 2] }, { cells: [3] }] }), '0(01)1(0)');
});

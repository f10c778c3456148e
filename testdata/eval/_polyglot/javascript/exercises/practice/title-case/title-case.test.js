import { test } from 'node:test';
import assert from 'node:assert/strict';
import { titleCase } from './title-case.js';

test('capitalizes words', () => {
  assert.equal(titleCase('the lord OF the rings'), 'The Lord of the Rings');
});

test('small word first', () => {
  assert.equal(titleCase('a tale of two cities'), 'A Tale of Two Cities');
});

test('collapses spaces', () => {
  assert.equal(titleCase('  war   and peace '), 'War and Peace');
  assert.equal(titleCase(''), '');
});

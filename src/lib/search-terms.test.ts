// Rule (issue 45, point 1): a name is found by a case-insensitive prefix of any of its words (and of the words that
// follow, in order), an e-mail by a prefix of the address; a query's range holds exactly the terms that start with it,
// compared by code point as both databases compare the stored terms.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clientTerms, nameTerms, prefixRange, searchForm } from './search-terms.js';

test('the search form: NFC, lower case, white space runs as one space, trimmed', () => {
  assert.equal(searchForm('  Ada \t\n LOVELACE '), 'ada lovelace');
  assert.equal(searchForm('Zoe\u0308'), 'zoë', 'a combining diaeresis composed');
  assert.equal(searchForm('ÜNAL'), 'ünal');
});

test('a name’s terms start at each word and run to its end', () => {
  assert.deepEqual(nameTerms('Mary Ann O’Brien-Smith'), [
    'mary ann o’brien-smith',
    'ann o’brien-smith',
    'o’brien-smith',
    'brien-smith',
    'smith',
  ]);
  assert.deepEqual(nameTerms('Acme'), ['acme']);
  assert.deepEqual(nameTerms('  -- '), [], 'no letter or digit: no term');
  assert.deepEqual(nameTerms('R2 D2'), ['r2 d2', 'd2']);
  assert.equal(nameTerms(Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ')).length, 16, 'at most 16 words');
  const long = nameTerms('x'.repeat(300))[0];
  assert.equal(long, 'x'.repeat(200), 'a term is cut at 200 characters');
  assert.equal(nameTerms(`${'x'.repeat(199)}😀😀`)[0], `${'x'.repeat(199)}😀`, 'never half a surrogate pair');
});

test('a client’s terms: its name’s ("given family") and its e-mail', () => {
  assert.deepEqual(clientTerms('Ada', 'Lovelace', 'Ada.L@Example.com'), ['ada lovelace', 'lovelace', 'ada.l@example.com']);
});

test('a query’s range holds the terms that start with it, and no other', () => {
  const terms = ['ad', 'ada', 'ada lovelace', 'adb', 'ad\u{10ffff}x', 'ac', 'adaz', 'ad!', 'b'];
  const matching = (q: string) => {
    const range = prefixRange(q);
    assert.ok(range);
    return terms.filter((t) => t >= range.from && (range.to === undefined || t < range.to)).sort();
  };
  // JavaScript compares strings by UTF-16 unit, which orders as code points outside the surrogates' range (as here).
  assert.deepEqual(matching('AD'), ['ad', 'ad!', 'ada', 'ada lovelace', 'adaz', 'adb', 'ad\u{10ffff}x'].sort());
  assert.deepEqual(matching('ada'), ['ada', 'ada lovelace', 'adaz']);
  assert.deepEqual(matching('ada  Lo'), ['ada lovelace']);
  assert.deepEqual(prefixRange('ad\u{10ffff}'), { from: 'ad\u{10ffff}', to: 'ae' }, 'past the greatest code point');
  assert.deepEqual(prefixRange('\u{10ffff}'), { from: '\u{10ffff}' }, 'no bound above');
  assert.deepEqual(prefixRange('a\ud7ff'), { from: 'a\ud7ff', to: 'a\ue000' }, 'past the surrogates');
  assert.equal(prefixRange('   '), undefined);
});

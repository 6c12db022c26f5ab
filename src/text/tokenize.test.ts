import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { countTokens, Tokenizer } from './tokenize.ts';

describe('Tokenizer', () => {
  it('lower-cases, drops English stop words and stems', () => {
    assert.deepEqual(new Tokenizer().terms('The Vaccinations were running in 2021!'), ['vaccin', 'run', '2021']);
  });

  it('keeps non-Latin scripts and splits possessives', () => {
    assert.deepEqual(new Tokenizer({ language: 'none' }).terms("Müller's Straße — 東京"), ['müller', 'straße', '東京']);
  });

  it('stems by the configured language', () => {
    assert.deepEqual(new Tokenizer({ language: 'german' }).terms('Häuser Kinder'), ['haus', 'kind']);
    assert.deepEqual(new Tokenizer({ language: 'french' }).terms('continuellement'), ['continuel']);
  });

  it('rejects an unknown language with the list of known ones', () => {
    assert.throws(() => new Tokenizer({ language: 'klingon' }), /unknown tokenizer language "klingon" \(known: none, arabic/);
  });

  it('ignores absurdly long runs (hashes, base64) as terms', () => {
    assert.deepEqual(new Tokenizer().terms(`token ${'a'.repeat(80)}`), ['token']);
  });

  it('counts words and punctuation as tokens', () => {
    assert.equal(countTokens('Hello, world!'), 4);
  });
});

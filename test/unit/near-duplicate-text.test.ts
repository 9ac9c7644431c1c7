import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bitsApart, fingerprintBits, fingerprintDistance, fingerprintOf, shingleSet, shingleSimilarity } from '../../services/core/text.ts';
import { CORPUS, describeWithCorpus, hasCorpus } from '../helpers/shared-corpus.ts';

// The near-duplicate check compares hashed shingles by one merge of sorted arrays and
// fingerprints as parsed halves (text.ts): checked here against plain definitions on real texts.

function corpusTexts(limit: number): string[] {
  const dir = join(CORPUS, 'html/www.gesetze-im-internet.de');
  const files: string[] = [];
  const walk = (path: string) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      if (files.length >= limit) return;
      if (entry.isDirectory()) walk(join(path, entry.name));
      else if (entry.name.endsWith('.html')) files.push(join(path, entry.name));
    }
  };
  walk(dir);
  return files.map((file) => readFileSync(file, 'utf8').replace(/<[^>]*>/g, ' ').replace(/&[a-z]+;/g, ' '));
}

/** Jaccard overlap of word 3-shingles, as word strings: the definition the hashed version approximates. */
function plainSimilarity(a: string, b: string): number {
  const shingles = (text: string) => {
    const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
    return new Set(words.slice(0, -2).map((word, i) => `${word} ${words[i + 1]} ${words[i + 2]}`));
  };
  const setA = shingles(a);
  const setB = shingles(b);
  if (setA.size === 0 && setB.size === 0) return 1;
  let shared = 0;
  for (const shingle of setA) if (setB.has(shingle)) shared++;
  return shared / (setA.size + setB.size - shared);
}

describeWithCorpus('near-duplicate text measures on corpus texts', () => {
  const texts = hasCorpus ? corpusTexts(12) : [];

  it('finds corpus texts to compare', () => {
    expect(texts.length).toBeGreaterThanOrEqual(6);
  });

  it('shingle similarity equals the Jaccard overlap of word 3-shingles', () => {
    const variants = texts.flatMap((text) => {
      const words = text.split(/\s+/);
      const half = Math.floor(words.length / 2);
      return [text, `${text} Stand: geändert am 1. Januar`, [...words.slice(half), ...words.slice(0, half)].join(' '), `${text} ${text}`];
    });
    let compared = 0;
    for (let i = 0; i < variants.length; i += 3) {
      for (let j = i; j < Math.min(variants.length, i + 6); j++) {
        const expected = plainSimilarity(variants[i], variants[j]);
        expect(shingleSimilarity(variants[i], variants[j])).toBeCloseTo(expected, 3);
        expect(shingleSimilarity(shingleSet(variants[i]), shingleSet(variants[j]))).toBeCloseTo(expected, 3);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(20);
    expect(shingleSimilarity('', '')).toBe(1);
    expect(shingleSimilarity('eins zwei drei', '')).toBe(0);
  });

  it('shingle sets are sorted and hold each shingle once', () => {
    const set = shingleSet(`${texts[0]} ${texts[0]}`);
    for (let i = 1; i < set.length; i++) expect(set[i]).toBeGreaterThan(set[i - 1]);
    expect(set.length).toBe(shingleSet(texts[0]).length + 2); // the two shingles across the seam are new
  });

  it('fingerprint distance counts the differing bits of the 64-bit SimHash', () => {
    const prints = texts.map(fingerprintOf).filter((print): print is string => print !== null);
    expect(prints.length).toBeGreaterThanOrEqual(6);
    for (const a of prints) {
      for (const b of prints) {
        const differing = (BigInt(`0x${a}`) ^ BigInt(`0x${b}`)).toString(2).replaceAll('0', '').length;
        expect(fingerprintDistance(a, b)).toBe(differing);
        expect(bitsApart(fingerprintBits(a), fingerprintBits(b))).toBe(differing);
      }
    }
  });
});

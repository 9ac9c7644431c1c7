import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { contentHashOf, fingerprintOf, normalizeText, titleKeyOf } from '../../services/core/text.ts';

// contentHashOf and fingerprintOf lower-case, collapse white space and encode code unit by code
// unit, in one pass. Their values are stored and compared with those of earlier runs: they must be
// what the plain definitions give, for every code unit of the basic plane and beyond.

const sha256 = (text: string): string => createHash('sha256').update(normalizeText(text)).digest('hex');

/** The SimHash as first written: the text lower-cased whole, its words cut out by a regular expression. */
function referenceFingerprint(text: string): string | null {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  if (words.length < 40) return null;
  const counts = new Map<number, { high: number; low: number; count: number }>();
  for (const word of words) {
    let a = 0x811c9dc5;
    let b = 0x9747b28c;
    for (let i = 0; i < word.length; i++) {
      const c = word.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x5bd1e995);
      b ^= b >>> 15;
    }
    const entry = counts.get(a >>> 0);
    if (entry) entry.count++;
    else counts.set(a >>> 0, { high: a >>> 0, low: b >>> 0, count: 1 });
  }
  const weights = new Float64Array(64);
  let total = 0;
  for (const { high, low, count } of counts.values()) {
    const weight = 1 + Math.log(count);
    total += weight;
    for (let bit = 0; bit < 32; bit++) {
      if ((high >>> bit) & 1) weights[bit] += weight;
      if ((low >>> bit) & 1) weights[32 + bit] += weight;
    }
  }
  let high = 0;
  let low = 0;
  for (let bit = 0; bit < 32; bit++) {
    if (weights[bit] > total - weights[bit]) high |= 1 << bit;
    if (weights[32 + bit] > total - weights[32 + bit]) low |= 1 << bit;
  }
  return (high >>> 0).toString(16).padStart(8, '0') + (low >>> 0).toString(16).padStart(8, '0');
}

const FILLER = 'Die Gemeinde veröffentlicht den Haushaltsplan für das kommende Jahr und lädt alle Bürger ein. '.repeat(3);

describe('content hash and fingerprint, code unit by code unit', () => {
  it('hash every code unit of the basic plane as normalizeText reads it: alone, among letters, as white space', () => {
    const wrong: string[] = [];
    for (let c = 0; c < 0x10000; c++) {
      const ch = String.fromCharCode(c);
      for (const text of [ch, ` Ab${ch}cD ${ch}${ch} x${ch}`]) if (contentHashOf(text) !== sha256(text)) wrong.push(c.toString(16));
    }
    expect(wrong).toEqual([]);
  });

  it('hash surrogate pairs, lone surrogates, final sigma, İ and composed forms', () => {
    for (const text of [
      '𝔘𝔫𝔦 😀 a\ud800b \udc00 x\ud800', 'ΟΔΟΣ ΟΔΟΣ. Σ', 'İstanbul İ', 'e\u0301 é Å A\u030a', ' \u3000\ufeffText\u2028\u2029 ', '', '   ',
      'Ǆ ǅ ǆ ẞ ß', 'Ⱥ Ⱦ', FILLER,
    ]) {
      expect(contentHashOf(text), JSON.stringify(text)).toBe(sha256(text));
      expect(titleKeyOf(text)).toBe(sha256(text).slice(0, 16));
    }
  });

  it('fingerprints every code unit of the basic plane as the words of the lower-cased text', () => {
    const wrong: string[] = [];
    for (let c = 0; c < 0x10000; c += 1) {
      const ch = String.fromCharCode(c);
      const text = `${FILLER} wort${ch}wort ${ch} ${ch}${ch}x`;
      if (fingerprintOf(text) !== referenceFingerprint(text)) wrong.push(c.toString(16));
    }
    expect(wrong).toEqual([]);
    for (const text of [FILLER + '𝔘𝔫𝔦 😀 a\ud800b \udc00 x\ud800', FILLER + 'ΟΔΟΣ ΟΔΟΣ. Σ', FILLER + 'İstanbul', 'zu kurz']) {
      expect(fingerprintOf(text)).toBe(referenceFingerprint(text));
    }
  });
});

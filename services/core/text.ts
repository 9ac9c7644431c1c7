import { createHash, hash } from 'node:crypto';

// Text identity for duplicate rules (DESIGN.md section 3): identical normalised text is the same
// document; a SimHash within a few bits plus a high shingle overlap is a near-duplicate.

export function normalizeText(text: string): string {
  return text.normalize('NFC').toLowerCase().replace(/\s+/g, ' ').trim();
}

/** What the content hash covers: the title and the text of a document. */
export function contentOf(title: string, text: string): string {
  return `${title}\n${text}`;
}

export function contentHashOf(text: string): string {
  return hash('sha256', normalizedUtf8(text), 'hex');
}

/** White space as \s and String.prototype.trim know it, beyond ASCII. */
function isWideSpace(c: number): boolean {
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

let utf8Out = Buffer.allocUnsafe(1 << 16);

/**
 * normalizeText(text) as UTF-8 bytes (lone surrogates as U+FFFD, as Node writes a string): lower-cased
 * code unit by code unit where that is what toLowerCase does (see lowerUnit), the white space
 * collapsed and trimmed while encoding. The regular expression, the lower-casing of texts beyond
 * Latin-1 and the encoding of the result were most of a content hash's cost. The view is valid
 * until the next call.
 */
function normalizedUtf8(text: string): Buffer {
  const nfc = text.normalize('NFC');
  return utf8Collapsed(nfc, true) ?? utf8Collapsed(nfc.toLowerCase(), false)!;
}

/** `text` (lower-cased here when `lowering`) as UTF-8 with its white space collapsed and trimmed; undefined when a unit cannot be lower-cased alone. */
function utf8Collapsed(text: string, lowering: boolean): Buffer | undefined {
  const n = text.length;
  // At most 3 bytes a code unit (a surrogate pair: 4 bytes for 2).
  let out = utf8Out;
  if (out.length < 3 * n) out = Buffer.allocUnsafe(3 * n);
  let used = 0;
  let space = false;
  for (let i = 0; i < n; i++) {
    let c = text.charCodeAt(i);
    if (lowering) {
      let known = lowerUnit[c];
      if (known === 0) lowerUnit[c] = known = lowerUnitOf(c);
      if (known === NOT_SIMPLE) return undefined;
      c = (known - 2) >> 1;
    }
    if (c < 0x80) {
      // \t \n \v \f \r and the space.
      if (c === 0x20 || (c >= 0x09 && c <= 0x0d)) {
        space = used > 0;
        continue;
      }
      if (space) {
        out[used++] = 0x20;
        space = false;
      }
      out[used++] = c;
      continue;
    }
    if (isWideSpace(c)) {
      space = used > 0;
      continue;
    }
    if (space) {
      out[used++] = 0x20;
      space = false;
    }
    if (c < 0x800) {
      out[used++] = 0xc0 | (c >> 6);
      out[used++] = 0x80 | (c & 0x3f);
      continue;
    }
    if (c >= 0xd800 && c <= 0xdfff) {
      const next = i + 1 < n ? text.charCodeAt(i + 1) : 0;
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        const cp = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00);
        out[used++] = 0xf0 | (cp >> 18);
        out[used++] = 0x80 | ((cp >> 12) & 0x3f);
        out[used++] = 0x80 | ((cp >> 6) & 0x3f);
        out[used++] = 0x80 | (cp & 0x3f);
        i++;
        continue;
      }
      c = 0xfffd;
    }
    out[used++] = 0xe0 | (c >> 12);
    out[used++] = 0x80 | ((c >> 6) & 0x3f);
    out[used++] = 0x80 | (c & 0x3f);
  }
  if (out.length <= 1 << 22) utf8Out = out;
  return out.subarray(0, used);
}

const SHINGLE = 3;
const MIN_WORDS_FOR_FINGERPRINT = 40;

const WORD_CHAR = /^[\p{L}\p{N}]$/u;
/** Per UTF-16 unit of the basic plane: 0 not known yet, 1 part of a word (a letter or digit), 2 not. */
const wordUnit = new Uint8Array(65536);

function isWordCodePoint(codePoint: number): boolean {
  if (codePoint > 0xffff || (codePoint >= 0xd800 && codePoint <= 0xdfff)) return WORD_CHAR.test(String.fromCodePoint(codePoint));
  let known = wordUnit[codePoint];
  if (known === 0) wordUnit[codePoint] = known = WORD_CHAR.test(String.fromCharCode(codePoint)) ? 1 : 2;
  return known === 1;
}

/**
 * Per UTF-16 unit of the basic plane, learnt on first sight: 0 not known yet; 1 when its lower case
 * is not one code unit without context (İ, Σ, surrogates: the text is lower-cased whole instead);
 * else 2 + 2 × its lower case + 1 if that is part of a word.
 */
const lowerUnit = new Int32Array(65536);
const NOT_SIMPLE = 1;

function lowerUnitOf(unit: number): number {
  const ch = String.fromCharCode(unit);
  const lower = ch.toLowerCase();
  // Σ lower-cases by context (ς at a word's end).
  if (lower.length !== 1 || unit === 0x3a3 || (unit >= 0xd800 && unit <= 0xdfff)) return NOT_SIMPLE;
  const code = lower.charCodeAt(0);
  return 2 + 2 * code + (isWordCodePoint(code) ? 1 : 0);
}

/**
 * Scratch arrays, reused from call to call (allocating typed arrays was a third of a fingerprint's
 * cost): what wordHashes returns is valid until its next call.
 */
const scratch = {
  high: new Uint32Array(1024),
  low: new Uint32Array(1024),
  slots: new Int32Array(2048),
  highs: new Uint32Array(1024),
  lows: new Uint32Array(1024),
  counts: new Uint32Array(1024),
  weights: new Float64Array(1024),
  setWeight: new Float64Array(64),
};

function atLeast<T extends Uint32Array | Int32Array | Float64Array>(array: T, length: number): T {
  return array.length >= length ? array : (new (array.constructor as new (length: number) => T)(Math.max(length, 2 * array.length)));
}

/**
 * Two independent 32-bit hashes (FNV-1a and a murmur-style mix) of each word: each maximal run of
 * letters and digits (\p{L}\p{N}) of the lower-cased text. Hashed while scanning, without cutting
 * the words out as strings (that was most of a fingerprint's cost), and without lower-casing the text
 * first when every code unit lower-cases alone.
 */
function wordHashes(text: string): { high: Uint32Array; low: Uint32Array } {
  const high = (scratch.high = atLeast(scratch.high, (text.length >>> 1) + 1));
  const low = (scratch.low = atLeast(scratch.low, high.length));
  let words = 0;
  let inWord = false;
  let a = 0;
  let b = 0;
  for (let i = 0; i < text.length; i++) {
    let known = lowerUnit[text.charCodeAt(i)];
    if (known === 0) lowerUnit[text.charCodeAt(i)] = known = lowerUnitOf(text.charCodeAt(i));
    if (known === NOT_SIMPLE) return wordHashesOfLowered(text.toLowerCase());
    if ((known & 1) === 1) {
      if (!inWord) {
        inWord = true;
        a = 0x811c9dc5;
        b = 0x9747b28c;
      }
      const c = (known - 3) >> 1;
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x5bd1e995);
      b ^= b >>> 15;
    } else if (inWord) {
      inWord = false;
      high[words] = a >>> 0;
      low[words++] = b >>> 0;
    }
  }
  if (inWord) {
    high[words] = a >>> 0;
    low[words++] = b >>> 0;
  }
  return { high: high.subarray(0, words), low: low.subarray(0, words) };
}

/** wordHashes of a text already lower-cased, code point by code point. */
function wordHashesOfLowered(lower: string): { high: Uint32Array; low: Uint32Array } {
  const high = (scratch.high = atLeast(scratch.high, (lower.length >>> 1) + 1));
  const low = (scratch.low = atLeast(scratch.low, high.length));
  let words = 0;
  let inWord = false;
  let a = 0;
  let b = 0;
  for (let i = 0; i < lower.length; i++) {
    const unit = lower.charCodeAt(i);
    const pair = unit >= 0xd800 && unit <= 0xdbff && i + 1 < lower.length ? lower.codePointAt(i)! : unit;
    const units = pair > 0xffff ? 2 : 1;
    if (isWordCodePoint(pair)) {
      if (!inWord) {
        inWord = true;
        a = 0x811c9dc5;
        b = 0x9747b28c;
      }
      for (let k = 0; k < units; k++) {
        const c = lower.charCodeAt(i + k);
        a = Math.imul(a ^ c, 0x01000193);
        b = Math.imul(b ^ c, 0x5bd1e995);
        b ^= b >>> 15;
      }
    } else if (inWord) {
      inWord = false;
      high[words] = a >>> 0;
      low[words++] = b >>> 0;
    }
    i += units - 1;
  }
  if (inWord) {
    high[words] = a >>> 0;
    low[words++] = b >>> 0;
  }
  return { high: high.subarray(0, words), low: low.subarray(0, words) };
}

/**
 * 64-bit SimHash over the text's words, each weighted by its count, as 16 hex digits; null for
 * texts too short to compare. Single words (not shingles) keep the hash stable under small edits:
 * a changed footer line moves only a few features, so near-duplicates stay within a few bits.
 */
export function fingerprintOf(text: string): string | null {
  const { high: hashHigh, low: hashLow } = wordHashes(text);
  if (hashHigh.length < MIN_WORDS_FOR_FINGERPRINT) return null;
  // Distinct words in the order of their first occurrence (the sums below keep that order), counted
  // in typed arrays: an object per distinct word made this the dearest step of a record's preparation.
  // Slots by hash in an open-addressing table of (hash, slot + 1) pairs: a Map of numbers cost more.
  let size = 64;
  while (size < 2 * hashHigh.length) size *= 2;
  const mask = size - 1;
  const slotOf = (scratch.slots = atLeast(scratch.slots, 2 * size));
  slotOf.fill(0, 0, 2 * size);
  const highs = (scratch.highs = atLeast(scratch.highs, hashHigh.length));
  const lows = (scratch.lows = atLeast(scratch.lows, hashHigh.length));
  const counts = (scratch.counts = atLeast(scratch.counts, hashHigh.length));
  let distinct = 0;
  for (let i = 0; i < hashHigh.length; i++) {
    const key = hashHigh[i] | 0;
    let at = Math.imul(key, 0x9e3779b1) >>> 0;
    for (at &= mask; ; at = (at + 1) & mask) {
      const slot = slotOf[2 * at + 1] - 1;
      if (slot < 0) {
        slotOf[2 * at] = key;
        slotOf[2 * at + 1] = distinct + 1;
        highs[distinct] = hashHigh[i];
        lows[distinct] = hashLow[i];
        counts[distinct++] = 1;
        break;
      }
      if (slotOf[2 * at] === key) {
        counts[slot]++;
        break;
      }
    }
  }
  // A bit of the SimHash is set when the words with that bit set outweigh those without. Each bit's
  // weight is summed over the words in their order (so the floating-point sums are the same
  // whatever the loop), four bits at a time: adding weight × 0 for a clear bit changes no sum, and
  // four independent sums keep the processor busy where one would wait for each addition.
  const weights = (scratch.weights = atLeast(scratch.weights, distinct));
  let totalWeight = 0;
  for (let slot = 0; slot < distinct; slot++) {
    const weight = 1 + Math.log(counts[slot]);
    weights[slot] = weight;
    totalWeight += weight;
  }
  const setWeight = scratch.setWeight;
  for (const [words, offset] of [[highs, 0], [lows, 32]] as const) {
    for (let bit = 0; bit < 32; bit += 4) {
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      for (let slot = 0; slot < distinct; slot++) {
        const bits = words[slot] >>> bit;
        const weight = weights[slot];
        s0 += weight * (bits & 1);
        s1 += weight * ((bits >>> 1) & 1);
        s2 += weight * ((bits >>> 2) & 1);
        s3 += weight * ((bits >>> 3) & 1);
      }
      setWeight[offset + bit] = s0;
      setWeight[offset + bit + 1] = s1;
      setWeight[offset + bit + 2] = s2;
      setWeight[offset + bit + 3] = s3;
    }
  }
  let high = 0;
  let low = 0;
  for (let bit = 0; bit < 32; bit++) {
    if (setWeight[bit] > totalWeight - setWeight[bit]) high |= 1 << bit;
    if (setWeight[32 + bit] > totalWeight - setWeight[32 + bit]) low |= 1 << bit;
  }
  return (high >>> 0).toString(16).padStart(8, '0') + (low >>> 0).toString(16).padStart(8, '0');
}

/** Set bits of a 32-bit word. */
export function bitCount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) & 0xff;
}

/** A fingerprint as its two 32-bit halves: parsed once, compared many times. */
export interface FingerprintBits {
  high: number;
  low: number;
}

export function fingerprintBits(hex: string): FingerprintBits {
  return { high: parseInt(hex.slice(0, 8), 16), low: parseInt(hex.slice(8, 16), 16) };
}

export function bitsApart(a: FingerprintBits, b: FingerprintBits): number {
  return bitCount((a.high ^ b.high) >>> 0) + bitCount((a.low ^ b.low) >>> 0);
}

/** Bits in which two fingerprints (16 hex digits) differ. */
export function fingerprintDistance(a: string, b: string): number {
  return bitsApart(fingerprintBits(a), fingerprintBits(b));
}

/** Key of a normalised title: near-duplicate candidates are the records with the same key. */
export function titleKeyOf(title: string): string {
  return contentHashOf(title).slice(0, 16);
}

/** Jaccard overlap of word 3-shingles (hashed): confirms a candidate before two texts are merged. */
export function shingleSimilarity(a: string | Uint32Array, b: string | Uint32Array): number {
  const setA = typeof a === 'string' ? shingleSet(a) : a;
  const setB = typeof b === 'string' ? shingleSet(b) : b;
  if (setA.length === 0 && setB.length === 0) return 1;
  let shared = 0;
  for (let i = 0, j = 0; i < setA.length && j < setB.length; ) {
    if (setA[i] === setB[j]) {
      shared++;
      i++;
      j++;
    } else if (setA[i] < setB[j]) i++;
    else j++;
  }
  return shared / (setA.length + setB.length - shared);
}

/** A text's hashed word 3-shingles in text order. */
function shingleSequence(text: string): Uint32Array {
  const { high } = wordHashes(text);
  const shingles = new Uint32Array(Math.max(0, high.length - SHINGLE + 1));
  for (let i = 0; i < shingles.length; i++) {
    let h = Math.imul(high[i] ^ 0x9e3779b9, 0x85ebca6b);
    h = Math.imul(h ^ high[i + 1] ^ (h >>> 13), 0xc2b2ae35);
    h = Math.imul(h ^ high[i + 2] ^ (h >>> 16), 0x27d4eb2f);
    shingles[i] = (h ^ (h >>> 15)) >>> 0;
  }
  return shingles;
}

function sortedHas(sorted: Uint32Array, value: number): boolean {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] === value) return true;
    if (sorted[mid] < value) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/**
 * In how many separate places two texts differ: runs of shingles of one text that the other
 * lacks, the larger count of the two sides. A page fetched twice differs in one or two places
 * (a footer line, a date); two laws written from one template differ wherever a name recurs.
 */
export function differingRegions(a: string, b: string): number {
  const regions = (sequence: Uint32Array, other: Uint32Array): number => {
    let count = 0;
    let inside = false;
    for (const shingle of sequence) {
      const missing = !sortedHas(other, shingle);
      if (missing && !inside) count++;
      inside = missing;
    }
    return count;
  };
  return Math.max(regions(shingleSequence(a), shingleSet(b)), regions(shingleSequence(b), shingleSet(a)));
}

/** A text's hashed word 3-shingles, sorted and without repeats (two sets meet in one merge). */
export function shingleSet(text: string): Uint32Array {
  const shingles = shingleSequence(text);
  shingles.sort();
  let unique = 0;
  for (let i = 0; i < shingles.length; i++) if (i === 0 || shingles[i] !== shingles[i - 1]) shingles[unique++] = shingles[i];
  return shingles.slice(0, unique);
}

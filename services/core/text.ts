import { createHash } from 'node:crypto';

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
  return createHash('sha256').update(normalizeText(text)).digest('hex');
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
 * Two independent 32-bit hashes (FNV-1a and a murmur-style mix) of each word: each maximal run of
 * letters and digits (\p{L}\p{N}) of the lower-cased text. Hashed while scanning, without cutting
 * the words out as strings (that was most of a fingerprint's cost).
 */
function wordHashes(text: string): { high: Uint32Array; low: Uint32Array } {
  const lower = text.toLowerCase();
  const high = new Uint32Array((lower.length >>> 1) + 1);
  const low = new Uint32Array(high.length);
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
  const slotOf = new Map<number, number>();
  const highs = new Uint32Array(hashHigh.length);
  const lows = new Uint32Array(hashHigh.length);
  const counts = new Uint32Array(hashHigh.length);
  let distinct = 0;
  for (let i = 0; i < hashHigh.length; i++) {
    const slot = slotOf.get(hashHigh[i]);
    if (slot !== undefined) counts[slot]++;
    else {
      slotOf.set(hashHigh[i], distinct);
      highs[distinct] = hashHigh[i];
      lows[distinct] = hashLow[i];
      counts[distinct++] = 1;
    }
  }
  // A bit of the SimHash is set when the words with that bit set outweigh those without: only the
  // set bits of each word's hashes are visited (half the work of adding ± its weight to all 64).
  const setWeight = new Float64Array(64);
  let totalWeight = 0;
  for (let slot = 0; slot < distinct; slot++) {
    const high = highs[slot];
    const low = lows[slot];
    const weight = 1 + Math.log(counts[slot]);
    totalWeight += weight;
    for (let bits = high | 0; bits !== 0; bits &= bits - 1) setWeight[31 - Math.clz32(bits & -bits)] += weight;
    for (let bits = low | 0; bits !== 0; bits &= bits - 1) setWeight[63 - Math.clz32(bits & -bits)] += weight;
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
  return createHash('sha256').update(normalizeText(title)).digest('hex').slice(0, 16);
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

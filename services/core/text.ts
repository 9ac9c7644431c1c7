import { createHash } from 'node:crypto';

// Text identity for duplicate rules (DESIGN.md section 3): identical normalised text is the same
// document; a SimHash within a few bits plus a high shingle overlap is a near-duplicate.

export function normalizeText(text: string): string {
  return text.normalize('NFC').toLowerCase().replace(/\s+/g, ' ').trim();
}

export function contentHashOf(text: string): string {
  return createHash('sha256').update(normalizeText(text)).digest('hex');
}

const WORD = /[\p{L}\p{N}]+/gu;
const SHINGLE = 3;
const MIN_WORDS_FOR_FINGERPRINT = 40;

function shinglesOf(text: string): string[] {
  const words = normalizeText(text).match(WORD) ?? [];
  const shingles: string[] = [];
  for (let i = 0; i + SHINGLE <= words.length; i++) shingles.push(words.slice(i, i + SHINGLE).join(' '));
  return shingles;
}

/** Two independent 32-bit FNV-1a hashes make the 64 bits of a shingle. */
function hash64(value: string): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 13);
  }
  return [a >>> 0, b >>> 0];
}

/** 64-bit SimHash over word 3-shingles as 16 hex digits; null for texts too short to compare reliably. */
export function fingerprintOf(text: string): string | null {
  const shingles = shinglesOf(text);
  if (shingles.length < MIN_WORDS_FOR_FINGERPRINT) return null;
  const weights = new Int32Array(64);
  for (const shingle of shingles) {
    const [high, low] = hash64(shingle);
    for (let bit = 0; bit < 32; bit++) {
      weights[bit] += (high >>> bit) & 1 ? 1 : -1;
      weights[32 + bit] += (low >>> bit) & 1 ? 1 : -1;
    }
  }
  let high = 0;
  let low = 0;
  for (let bit = 0; bit < 32; bit++) {
    if (weights[bit] > 0) high |= 1 << bit;
    if (weights[32 + bit] > 0) low |= 1 << bit;
  }
  return (high >>> 0).toString(16).padStart(8, '0') + (low >>> 0).toString(16).padStart(8, '0');
}

/** Jaccard overlap of word 3-shingles: confirms a fingerprint candidate before two texts are merged. */
export function shingleSimilarity(a: string, b: string): number {
  const setA = new Set(shinglesOf(a));
  const setB = new Set(shinglesOf(b));
  if (setA.size === 0 && setB.size === 0) return 1;
  let shared = 0;
  for (const shingle of setA) if (setB.has(shingle)) shared++;
  return shared / (setA.size + setB.size - shared);
}

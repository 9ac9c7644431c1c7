import { bitCount } from '../../core/text.ts';

// A long list's documents as a bit set with the number of its documents before each 32-bit word
// (a rank directory): whether a row id is in the list, and at which index of the list, in three
// reads. A conjunction of a rarer word with a long list (at a million documents, ten thousand
// candidates against "der" and its 900,000 postings) looks its candidates up this way instead of
// by binary search, which missed the cache at most of its twenty steps.

export interface RankedBits {
  bits: Int32Array;
  /** For each word of `bits`, how many of the list's row ids lie below it. */
  ranks: Uint32Array;
}

/** One pass over an ascending list of row ids (all at most `maxSeq`). */
export function rankedBitsOf(seqs: Uint32Array, maxSeq: number): RankedBits {
  const words = (maxSeq >>> 5) + 1;
  const bits = new Int32Array(words);
  const ranks = new Uint32Array(words);
  let word = 0;
  for (let i = 0; i < seqs.length; i++) {
    const seq = seqs[i];
    const at = seq >>> 5;
    while (word < at) ranks[++word] = i;
    bits[at] |= 1 << (seq & 31);
  }
  while (word < words - 1) ranks[++word] = seqs.length;
  return { bits, ranks };
}

/** The index of `seq` in the list, or -1 when the list does not have it. */
export function indexOf(ranked: RankedBits, seq: number): number {
  const word = ranked.bits[seq >>> 5];
  const bit = 1 << (seq & 31);
  if ((word & bit) === 0) return -1;
  // The set bits below this one (bit - 1 masks them; for bit 31 it is 0x7fffffff after ToInt32).
  return ranked.ranks[seq >>> 5] + bitCount(word & (bit - 1));
}

export function rankedBitsBytes(ranked: RankedBits): number {
  return ranked.bits.byteLength + ranked.ranks.byteLength;
}

import { bitCount } from '../../core/text.ts';
import { phraseScore, type PostingList } from './score-lists.ts';

// Block-max top-k over the score lists (Ding & Suel, "Faster top-k document retrieval using
// block-max indexes", SIGIR 2011), for queries that match a large share of the collection: every
// phrase list knows, per block of 32 to 128 consecutive row ids, its highest score there. A query
// first finds its matches as a bit set (the AND of its words' bit sets and of its filters' bit
// set), so the total is a pop count. It then visits the blocks that hold matches from the highest bound
// down, scores their matches exactly, and stops when no remaining block can reach the page: at a
// million documents, "in der und das" scores 45 of 7708 blocks. The result equals walking every
// list (list-search.ts): the same scores, summed in the same order, the same tie rule.

/**
 * Row ids per block, as a power of two: 32 in a small collection (tight bounds: at 100k documents,
 * "oder nicht" scores 569 of 3093 blocks, not 619 of 774 with blocks of 128), up to 128 in a
 * large one, so that there are at most about 8192 blocks — a list's maxima and starts (kept in
 * the list cache), and the sort of a query's blocks, stay small.
 */
export function blockBitsFor(maxSeq: number): number {
  let bits = 5;
  while (bits < 7 && maxSeq >>> bits > 8192) bits++;
  return bits;
}
/**
 * Bounds are compared with scores after a tiny upward nudge: a sum of block maxima rounds
 * differently from the sum of one document's scores, and the nudge also leaves room for the
 * block's number in the bound's lowest bits (they sort together, see `blockOrder`).
 */
const BOUND_NUDGE = 1 + 2 ** -24;
const BLOCK_NUMBER_BITS = 22;

export interface ListBlocks {
  /** The highest score of the list in each block (0 where the list has no document). */
  maxima: Float64Array;
  /** For each block, the index of the list's first posting in it or after it; one more at the end. */
  starts: Uint32Array;
  /** The list's documents as a bit set, kept for long lists (short ones are set bit by bit). */
  bits: Int32Array | null;
  /**
   * Each posting's score, kept for lists of up to SCORED_LIST_MAX postings: a blocked query adds
   * them up rather than computing bm25 posting by posting. Longer lists (a million documents'
   * common words) compute them as they go: 8 bytes a posting would crowd the list cache.
   */
  scores: Float64Array | null;
}

const SCORED_LIST_MAX = 1 << 16;
/** A block's matches are looked up in a list with a bit set, rather than all its postings added, when the postings are this many times more. */
const SPARSE_MATCHES = 2;

export function bitSetWords(maxSeq: number): number {
  return (maxSeq >>> 5) + 1;
}

export function blockCount(maxSeq: number): number {
  return (maxSeq >>> blockBitsFor(maxSeq)) + 1;
}

/**
 * One pass over a list: its block maxima, block starts and (when long, or when `alwaysBits`) its
 * bit set; its postings' scores when short (unless `noScores`: a list read block by block scores
 * as it goes).
 */
export function blocksOf(list: PostingList, lengthNorm: Float64Array, maxSeq: number, options: { alwaysBits?: boolean; noScores?: boolean } = {}): ListBlocks {
  const blocks = blockCount(maxSeq);
  const blockBits = blockBitsFor(maxSeq);
  const words = bitSetWords(maxSeq);
  const maxima = new Float64Array(blocks);
  const starts = new Uint32Array(blocks + 1);
  const bits = options.alwaysBits || list.seqs.length >= words ? new Int32Array(words) : null;
  const { seqs, frequencies } = list;
  // Scores of their own, never the list's array: a list and its block data leave their caches apart.
  const scores = list.scores || (!options.noScores && seqs.length <= SCORED_LIST_MAX) ? new Float64Array(seqs.length) : null;
  const idf = list.idf ?? 0;
  let block = 0;
  for (let i = 0; i < seqs.length; i++) {
    const seq = seqs[i];
    const at = seq >>> blockBits;
    while (block < at) starts[++block] = i;
    if (bits) bits[seq >>> 5] |= 1 << (seq & 31);
    const score = list.scores ? list.scores[i] : phraseScore(idf, frequencies![i], lengthNorm[seq]);
    if (scores) scores[i] = score;
    if (score > maxima[at]) maxima[at] = score;
  }
  while (block < blocks) starts[++block] = seqs.length;
  return { maxima, starts, bits, scores };
}

export function listBlocksBytes(blocks: ListBlocks): number {
  return blocks.maxima.byteLength + blocks.starts.byteLength + (blocks.bits?.byteLength ?? 0) + (blocks.scores?.byteLength ?? 0);
}

/** The postings of one block of a list: `seqs[from..to)`, with their frequencies or their scores. */
export interface BlockPostings {
  /** Null for a list read without its row ids: its bit set holds them (list-search.ts, `bitsList`). */
  seqs: Uint32Array | null;
  frequencies: Uint16Array | null;
  scores: Float64Array | null;
  from: number;
  to: number;
}

/**
 * A list as a blocked query reads it: its block data, and its postings block by block — from the
 * whole list in memory (`residentList`), or read from the file as blocks are visited (a million
 * documents' common words: a few dozen blocks' postings rather than megabytes per list).
 */
export interface BlockedList {
  blocks: ListBlocks;
  idf: number;
  /** The whole list's row ids when in memory (a short list without a bit set is OR-ed from them). */
  seqs: Uint32Array | null;
  /** A block's postings; the object may be reused by the next call. */
  postings(block: number): BlockPostings;
}

/** A word of a blocked query: it matches where any of its lists does. */
export type BlockedWord = BlockedList[];

export function residentList(list: PostingList, blocks: ListBlocks): BlockedList {
  const { seqs } = list;
  const frequencies = list.frequencies ?? null;
  const scores = blocks.scores;
  const at: BlockPostings = { seqs, frequencies, scores, from: 0, to: 0 }; // one object, refilled: callers read it at once
  return {
    blocks,
    idf: list.idf ?? 0,
    seqs,
    postings(block) {
      at.from = blocks.starts[block];
      at.to = blocks.starts[block + 1];
      return at;
    },
  };
}

/** The score of `seq` in a blocked list, or -1 when it is not in the list. */
export function scoreIn(list: BlockedList, seq: number, blockBits: number, lengthNorm: Float64Array): number {
  const bits = list.blocks.bits;
  const block = seq >>> blockBits;
  let i: number;
  if (bits) {
    const w = seq >>> 5;
    const bit = 1 << (seq & 31);
    if ((bits[w] & bit) === 0) return -1;
    const postings = list.postings(block);
    i = postings.from + bitCount(bits[w] & (bit - 1));
    for (let v = block << (blockBits - 5); v < w; v++) i += bitCount(bits[v]);
    return postings.scores ? postings.scores[i] : phraseScore(list.idf, postings.frequencies![i], lengthNorm[seq]);
  }
  const { seqs, frequencies, scores, from, to } = list.postings(block);
  i = searchRange(seqs!, from, to, seq);
  return i < 0 ? -1 : scores ? scores[i] : phraseScore(list.idf, frequencies![i], lengthNorm[seq]);
}

/** The index of `value` in `seqs[from..to)` (ascending), or -1. */
export function searchRange(seqs: Uint32Array, from: number, to: number, value: number): number {
  let low = from;
  let high = to - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const at = seqs[middle];
    if (at < value) low = middle + 1;
    else if (at > value) high = middle - 1;
    else return middle;
  }
  return -1;
}

/** The documents of a list added to a bit set. */
export function orInto(target: Int32Array, list: BlockedList): void {
  const bits = list.blocks.bits;
  if (bits) {
    for (let w = 0; w < target.length; w++) target[w] |= bits[w];
  } else {
    for (const seq of list.seqs!) target[seq >>> 5] |= 1 << (seq & 31);
  }
}

export function andInto(target: Int32Array, other: Int32Array): void {
  for (let w = 0; w < target.length; w++) target[w] &= other[w];
}

export function countBits(bits: Int32Array): number {
  let count = 0;
  for (let w = 0; w < bits.length; w++) if (bits[w] !== 0) count += bitCount(bits[w]);
  return count;
}

/** Whether row a ranks above row b: higher score, then lower row id (FTS5's ORDER BY rank, rowid). */
export function better(score: Float64Array, a: number, b: number): boolean {
  return score[a] > score[b] || (score[a] === score[b] && a < b);
}

/** The best `capacity` row ids seen, as a heap with the worst of them on top. */
class TopK {
  readonly items: Uint32Array;
  size = 0;
  private readonly score: Float64Array;

  constructor(capacity: number, score: Float64Array) {
    this.items = new Uint32Array(capacity);
    this.score = score;
  }

  get full(): boolean {
    return this.size === this.items.length;
  }

  /** The score a row must at least have to enter once full. */
  get floor(): number {
    return this.score[this.items[0]];
  }

  offer(seq: number): void {
    const { items, score } = this;
    if (this.size < items.length) {
      let at = this.size++;
      while (at > 0) {
        const parent = (at - 1) >>> 1;
        if (!better(score, items[parent], seq)) break;
        items[at] = items[parent];
        at = parent;
      }
      items[at] = seq;
      return;
    }
    if (!better(score, seq, items[0])) return;
    let at = 0;
    const n = this.size;
    for (;;) {
      let child = 2 * at + 1;
      if (child >= n) break;
      if (child + 1 < n && better(score, items[child], items[child + 1])) child++;
      if (!better(score, seq, items[child])) break;
      items[at] = items[child];
      at = child;
    }
    items[at] = seq;
  }

  /** Best first. */
  sorted(): number[] {
    return Array.from(this.items.subarray(0, this.size)).sort((a, b) => (better(this.score, a, b) ? -1 : 1));
  }
}

/**
 * The blocks holding matches as keys to visit by their bound, highest first: bound and block
 * number share one float (the number in the lowest mantissa bits of the nudged bound). Returns
 * the keys as a max-heap: a query visits few of its blocks, and taking them off a heap costs less
 * than sorting them all (the sort was 5 % of a 100k mix's CPU). `bounds` is scratch space, a
 * float per block.
 */
function blockOrder(matches: Int32Array, words: BlockedWord[], keys: Float64Array, bounds: Float64Array, wordsPerBlock: number): Float64Array {
  const halves = new Uint32Array(2);
  const key = new Float64Array(halves.buffer);
  const blocks = keys.length;
  // List by list over contiguous arrays (each block's sum is added in the same order as block by block).
  bounds.fill(0);
  for (const word of words) {
    for (const list of word) {
      const maxima = list.blocks.maxima;
      for (let b = 0; b < blocks; b++) bounds[b] += maxima[b];
    }
  }
  let n = 0;
  for (let b = 0; b < blocks; b++) {
    const w = b * wordsPerBlock;
    let any = 0;
    for (let i = 0; i < wordsPerBlock && w + i < matches.length; i++) any |= matches[w + i];
    if (any === 0) continue;
    key[0] = bounds[b] * BOUND_NUDGE;
    halves[0] = ((halves[0] >>> BLOCK_NUMBER_BITS) << BLOCK_NUMBER_BITS) | b; // little-endian: [0] holds the low mantissa bits
    keys[n++] = key[0];
  }
  const heap = keys.subarray(0, n);
  for (let i = (n >>> 1) - 1; i >= 0; i--) siftDown(heap, i, n);
  return heap;
}

/** Restores the max-heap order of heap[0..size) below `at`. */
function siftDown(heap: Float64Array, at: number, size: number): void {
  const value = heap[at];
  for (;;) {
    let child = 2 * at + 1;
    if (child >= size) break;
    if (child + 1 < size && heap[child + 1] > heap[child]) child++;
    if (heap[child] <= value) break;
    heap[at] = heap[child];
    at = child;
  }
  heap[at] = value;
}

function blockOf(key: number, scratch: { halves: Uint32Array; key: Float64Array }): number {
  scratch.key[0] = key;
  return scratch.halves[0] & ((1 << BLOCK_NUMBER_BITS) - 1);
}

/** Adds a list's scores in `block` to its matches: every posting, or, when the matches are few, each match looked up. */
function addBlock(list: BlockedList, block: number, matches: Int32Array, firstWord: number, lastWord: number, matchCount: number, score: Float64Array, lengthNorm: Float64Array): void {
  const { seqs, frequencies, scores, from, to } = list.postings(block);
  const idf = list.idf;
  const listBits = list.blocks.bits;
  if (listBits && matchCount * SPARSE_MATCHES < to - from) {
    // Each match found in the list by its bit set (a posting's index is the block's first plus
    // the bits before it), the other postings left unread.
    let before = from;
    for (let w = firstWord; w < lastWord; w++) {
      const inList = listBits[w];
      for (let bits = matches[w] & inList; bits !== 0; bits &= bits - 1) {
        const low = bits & -bits;
        const seq = (w << 5) | (31 - Math.clz32(low));
        const p = before + bitCount(inList & (low - 1));
        score[seq] += scores ? scores[p] : phraseScore(idf, frequencies![p], lengthNorm[seq]);
      }
      if (inList !== 0) before += bitCount(inList);
    }
  } else if (!seqs) {
    // Every posting, its row ids taken from the bit set.
    let p = from;
    for (let w = firstWord; w < lastWord; w++) {
      for (let bits = listBits![w]; bits !== 0; bits &= bits - 1) {
        const seq = (w << 5) | (31 - Math.clz32(bits & -bits));
        score[seq] += scores ? scores[p++] : phraseScore(idf, frequencies![p++], lengthNorm[seq]);
      }
    }
  } else if (scores) {
    // Every posting: a row that does not match is never read (no test per posting).
    for (let p = from; p < to; p++) score[seqs[p]] += scores[p];
  } else {
    for (let p = from; p < to; p++) score[seqs[p]] += phraseScore(idf, frequencies![p], lengthNorm[seqs[p]]);
  }
}

/**
 * Drops from `block`'s matches those that, scored up to word `k`, cannot reach `floor` with the
 * block maxima of the words from `k` on; returns how many are left. A dropped match is never
 * scored further nor offered, and its partial sum stays below the near-tie cut (nudged like the
 * block bounds), so `matches` may lose it.
 */
function pruneBlock(words: BlockedWord[], k: number, block: number, matches: Int32Array, firstWord: number, lastWord: number, score: Float64Array, floor: number): number {
  let rest = 0;
  for (let j = k; j < words.length; j++) for (const list of words[j]) rest += list.blocks.maxima[block];
  let left = 0;
  for (let w = firstWord; w < lastWord; w++) {
    let kept = matches[w];
    for (let bits = kept; bits !== 0; bits &= bits - 1) {
      const low = bits & -bits;
      if ((score[(w << 5) | (31 - Math.clz32(low))] + rest) * BOUND_NUDGE < floor) kept &= ~low;
    }
    matches[w] = kept;
    if (kept !== 0) left += bitCount(kept);
  }
  return left;
}

export interface BlockedPage {
  /** The best `wanted` row ids, best first. */
  best: number[];
  total: number;
  /** Blocks opened, of them settled by their rarer words, of the blocks holding matches (for profiles). */
  visited: number;
  settled: number;
  blocks: number;
}

/**
 * The best `wanted` matches of `words` (all of them, each any of its lists) that pass `filter`,
 * and how many match in all. `score` is scratch space indexed by row id; `matches` and `wordBits`
 * are scratch bit sets; `keys` holds a float per block.
 */
export function blockedTopK(
  words: BlockedWord[],
  filter: Int32Array | null,
  wanted: number,
  lengthNorm: Float64Array,
  scratch: { score: Float64Array; matches: Int32Array; wordBits: Int32Array; keys: Float64Array; bounds: Float64Array; blockBits: number },
  rescore: ((seqs: number[]) => void) | null = null,
  nearTie = 2 ** -36,
): BlockedPage {
  const { score, matches, wordBits } = scratch;
  const wordsPerBlock = 1 << (scratch.blockBits - 5);
  for (let k = 0; k < words.length; k++) {
    const target = k === 0 ? matches : wordBits;
    target.fill(0);
    for (const list of words[k]) orInto(target, list);
    if (k > 0) andInto(matches, wordBits);
  }
  if (filter) andInto(matches, filter);
  const total = countBits(matches);
  if (total === 0 || wanted <= 0) return { best: [], total, visited: 0, settled: 0, blocks: 0 };

  const keys = blockOrder(matches, words, scratch.keys, scratch.bounds, wordsPerBlock);
  const top = new TopK(Math.min(wanted, total), score);
  const halves = new Uint32Array(2);
  const unpack = { halves, key: new Float64Array(halves.buffer) };
  let settledBlocks = 0;
  let size = keys.length;
  while (size > 0) {
    const key = keys[0];
    // A bound below the page's worst score ends the search; an equal one may still tie and win on row id.
    if (top.full && key < top.floor) break;
    // As in a heap sort, the key taken goes to the slot the heap frees: the visited keys end up
    // in keys[size..], the first visited last.
    size--;
    keys[0] = keys[size];
    keys[size] = key;
    siftDown(keys, 0, size);
    const block = blockOf(key, unpack);
    const firstWord = block * wordsPerBlock;
    const lastWord = Math.min(firstWord + wordsPerBlock, matches.length);
    for (let w = firstWord; w < lastWord; w++) {
      for (let bits = matches[w]; bits !== 0; bits &= bits - 1) score[(w << 5) | (31 - Math.clz32(bits & -bits))] = 0;
    }
    let matchCount = 0;
    for (let w = firstWord; w < lastWord; w++) if (matches[w] !== 0) matchCount += bitCount(matches[w]);
    // Words are added rarest first, list by list, so the sums come out as in a walk of the lists.
    // After each word, the matches that cannot reach the page with what the words still to come
    // can add at most here are dropped: the next words look up only the rest (a rare word settles
    // most blocks its common partners raised, and thins out the others).
    let settled = false;
    for (let k = 0; k < words.length && !settled; k++) {
      if (k > 0 && top.full) settled = (matchCount = pruneBlock(words, k, block, matches, firstWord, lastWord, score, top.floor)) === 0;
      if (!settled) for (const list of words[k]) addBlock(list, block, matches, firstWord, lastWord, matchCount, score, lengthNorm);
    }
    if (settled) {
      settledBlocks++;
      continue;
    }
    for (let w = firstWord; w < lastWord; w++) {
      for (let bits = matches[w]; bits !== 0; bits &= bits - 1) top.offer((w << 5) | (31 - Math.clz32(bits & -bits)));
    }
  }
  const stopped = size - 1;
  const visited = keys.length - size;
  const counts = { visited, settled: settledBlocks, blocks: keys.length };
  if (!rescore || top.size === 0) return { best: top.sorted(), total, ...counts };
  // The words were summed in another order than FTS5's: every match scored so far that comes
  // within a hair of the page's worst is scored again in FTS5's order (the nudged bounds
  // guarantee that no unvisited block holds one), and the page is chosen from those.
  const cut = top.floor * (1 - nearTie);
  const near: number[] = [];
  for (let r = keys.length - 1; r > stopped; r--) {
    const block = blockOf(keys[r], unpack);
    const lastWord = Math.min(block * wordsPerBlock + wordsPerBlock, matches.length);
    for (let w = block * wordsPerBlock; w < lastWord; w++) {
      for (let bits = matches[w]; bits !== 0; bits &= bits - 1) {
        const seq = (w << 5) | (31 - Math.clz32(bits & -bits));
        if (score[seq] >= cut) near.push(seq);
      }
    }
  }
  rescore(near);
  return { best: near.sort((a, b) => (better(score, a, b) ? -1 : 1)).slice(0, wanted), total, ...counts };
}

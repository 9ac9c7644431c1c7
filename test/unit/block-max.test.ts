import { describe, expect, it } from 'vitest';
import { bitSetWords, blockBitsFor, blockCount, blockedTopK, blocksOf, residentList, scoreIn, type BlockedList, type BlockedWord } from '../../services/index/sqlite/block-max.ts';
import { FREQUENCY_SCALE, phraseScore, type PostingList } from '../../services/index/sqlite/score-lists.ts';

// Block-max top-k must return exactly what scoring every match would (block-max.ts): checked here
// against that plain walk on random lists, at collection sizes that give each block size
// (32, 64 and 128 row ids per block).

function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 2 ** 32;
  };
}

function randomList(maxSeq: number, density: number, next: () => number): PostingList {
  const seqs: number[] = [];
  for (let seq = 1; seq <= maxSeq; seq++) if (next() < density) seqs.push(seq);
  return {
    seqs: Uint32Array.from(seqs),
    frequencies: Uint16Array.from(seqs, () => Math.ceil(next() * 8) * FREQUENCY_SCALE),
    idf: 0.05 + next() * 2,
  };
}

/** The page by scoring every match: the sums in the same order (word by word, list by list), ties to the lower row id. */
function plainTopK(words: PostingList[][], filter: Int32Array | null, wanted: number, lengthNorm: Float64Array, maxSeq: number) {
  const score = new Float64Array(maxSeq + 1);
  const matchedWords = new Uint8Array(maxSeq + 1);
  for (const lists of words) {
    const inWord = new Uint8Array(maxSeq + 1);
    for (const list of lists) {
      list.seqs.forEach((seq, i) => {
        score[seq] += phraseScore(list.idf!, list.frequencies![i], lengthNorm[seq]);
        inWord[seq] = 1;
      });
    }
    for (let seq = 0; seq <= maxSeq; seq++) matchedWords[seq] += inWord[seq];
  }
  const matches: number[] = [];
  for (let seq = 0; seq <= maxSeq; seq++) {
    if (matchedWords[seq] === words.length && (!filter || filter[seq >>> 5] & (1 << (seq & 31)))) matches.push(seq);
  }
  matches.sort((a, b) => score[b] - score[a] || a - b);
  return { best: matches.slice(0, wanted), total: matches.length };
}

/** A list as read without its row ids (list-search.ts, bitsList): its bit set holds them, its frequencies are whole. */
function withoutRowIds(list: PostingList, lengthNorm: Float64Array, maxSeq: number): BlockedList {
  const blocks = blocksOf(list, lengthNorm, maxSeq, { alwaysBits: true, noScores: true });
  const frequencies = list.frequencies!;
  return { blocks, idf: list.idf!, seqs: null, postings: (block) => ({ seqs: null, frequencies, scores: null, from: blocks.starts[block], to: blocks.starts[block + 1] }) };
}

describe('block-max top-k', () => {
  it('chooses finer blocks for smaller collections, at most about 8192 blocks up to 128 row ids a block', () => {
    expect([10_000, 100_000, 300_000, 1_000_000, 5_000_000].map(blockBitsFor)).toEqual([5, 5, 6, 7, 7]);
    expect(blockCount(1_000_000)).toBe(7813);
  });

  for (const maxSeq of [20_000, 300_000, 1_100_000]) {
    it(`equals scoring every match with blocks of ${2 ** blockBitsFor(maxSeq)} row ids (${maxSeq} documents)`, () => {
      const next = random(maxSeq);
      const lengthNorm = Float64Array.from({ length: maxSeq + 1 }, () => 0.3 + next() * 2);
      const scratch = {
        score: new Float64Array(maxSeq + 1),
        matches: new Int32Array(bitSetWords(maxSeq)),
        wordBits: new Int32Array(bitSetWords(maxSeq)),
        keys: new Float64Array(blockCount(maxSeq)),
        bounds: new Float64Array(blockCount(maxSeq)),
        blockBits: blockBitsFor(maxSeq),
      };
      const filter = new Int32Array(bitSetWords(maxSeq));
      for (let seq = 0; seq <= maxSeq; seq++) if (next() < 0.4) filter[seq >>> 5] |= 1 << (seq & 31);
      const cases: { densities: number[][]; filtered: boolean; wanted: number }[] = [
        { densities: [[0.3, 0.25]], filtered: false, wanted: 11 },
        { densities: [[0.4, 0.3], [0.5, 0.02]], filtered: false, wanted: 51 },
        { densities: [[0.2], [0.3, 0.1], [0.6]], filtered: true, wanted: 11 },
        { densities: [[0.01, 0.001], [0.5]], filtered: true, wanted: 2 },
      ];
      for (const { densities, filtered, wanted } of cases) {
        const words = densities.map((ofWord) => ofWord.map((density) => randomList(maxSeq, density, next)));
        const expected = plainTopK(words, filtered ? filter : null, wanted, lengthNorm, maxSeq);
        expect(expected.total).toBeGreaterThan(wanted);
        // In memory with row ids, and (alternately per list) read without them.
        const resident: BlockedWord[] = words.map((lists) => lists.map((list) => residentList(list, blocksOf(list, lengthNorm, maxSeq))));
        const mixed: BlockedWord[] = words.map((lists, k) => lists.map((list, j) => ((k + j) % 2 ? residentList(list, blocksOf(list, lengthNorm, maxSeq)) : withoutRowIds(list, lengthNorm, maxSeq))));
        for (const blocked of [resident, mixed]) {
          const page = blockedTopK(blocked, filtered ? filter : null, wanted, lengthNorm, scratch);
          expect({ best: page.best, total: page.total }).toEqual(expected);
          expect(page.visited).toBeLessThanOrEqual(page.blocks);
        }
      }
      // A row id's score in a list, found by binary search or by its bit set (-1: not in the list).
      const list = randomList(maxSeq, 0.3, next);
      const plain = new Float64Array(maxSeq + 1).fill(-1);
      list.seqs.forEach((seq, i) => (plain[seq] = phraseScore(list.idf!, list.frequencies![i], lengthNorm[seq])));
      const both = [residentList(list, blocksOf(list, lengthNorm, maxSeq)), withoutRowIds(list, lengthNorm, maxSeq)];
      for (const blocked of both) {
        const found = Float64Array.from({ length: maxSeq + 1 }, (_, seq) => scoreIn(blocked, seq, blockBitsFor(maxSeq), lengthNorm));
        expect(found).toEqual(plain);
      }
    });
  }
});

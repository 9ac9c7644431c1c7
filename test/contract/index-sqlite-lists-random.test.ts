import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyzeQuery } from '../../services/core/analysis/index.ts';
import type { IndexQuery, IndexSearchResult } from '../../services/core/index-port.ts';
import { blocksOf } from '../../services/index/sqlite/block-max.ts';
import { indexOf, rankedBitsOf } from '../../services/index/sqlite/ranked-bits.ts';
import { ScoreLists, scoreListsFile } from '../../services/index/sqlite/score-lists.ts';
import { SqliteIndex } from '../../services/index/sqlite/sqlite-index.ts';
import { makeDoc } from '../helpers/documents.ts';

// Property test of the score-list paths against FTS5 itself on random collections: every
// conjunction of two or three words (word forms, stop words in nearly every document, rare
// words), with filters and pages, must come back from the lists exactly as FTS5 ranks and counts
// it — through binary search, through the lists' bit sets with ranks (ranked-bits.ts), by walking,
// and through block-max top-k.

function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 2 ** 32;
  };
}

// Words with several forms (so that a query word has an exact list and base lists), stop words,
// and rarer nouns; drawn Zipf-like, so that some lists hold nearly every document.
const VOCABULARY = [
  'der', 'die', 'und', 'das', 'nicht', 'eine', 'Antrag', 'Anträge', 'Antrages', 'Gesetz', 'Gesetze', 'Gesetzes', 'Frist', 'Fristen',
  'Haus', 'Häuser', 'Hauses', 'Verordnung', 'Verordnungen', 'Behörde', 'Behörden', 'Datei', 'Dateien', 'Kinderarzt', 'Mietvertrag',
  'Wahlrecht', 'Quelltext', 'Zuschuss', 'Zuschüsse', 'Staatsbank', 'Galvanik', 'Rechenzentrum',
];
const TYPES = ['html', 'pdf', 'docx'] as const;

function collection(seed: number, size: number) {
  const next = random(seed);
  const word = () => VOCABULARY[Math.min(VOCABULARY.length - 1, Math.floor(Math.exp(next() * Math.log(VOCABULARY.length + 1))) - 1)];
  return Array.from({ length: size }, (_, i) => {
    const body = Array.from({ length: 8 + Math.floor(next() * 40) }, word);
    // Stop words in nearly every document: their lists are the long ones that candidates are looked up in.
    if (next() < 0.9) body.push('der', 'die');
    return makeDoc({
      url: `https://quelle${i % 7}.example/s/${seed}/${i}`,
      title: Array.from({ length: 1 + Math.floor(next() * 3) }, word).join(' '),
      text: `${body.join(' ')} Nummer ${i}.`,
      type: TYPES[i % 3],
      modifiedAt: i % 5 === 0 ? null : `20${10 + (i % 15)}-06-01T00:00:00Z`,
    });
  });
}

function queriesOf(seed: number, n: number): IndexQuery[] {
  const next = random(seed * 31 + 7);
  const pick = () => VOCABULARY[Math.floor(next() * VOCABULARY.length)];
  return Array.from({ length: n }, () => {
    const words = Array.from({ length: next() < 0.6 ? 2 : 3 }, pick);
    const query: IndexQuery = { terms: analyzeQuery(words.join(' ')), order: 'relevance', limit: next() < 0.8 ? 10 : 50, offset: next() < 0.7 ? 0 : Math.floor(next() * 200), countBudgetMs: 60_000 };
    const filter = next();
    if (filter < 0.15) query.documentTypes = [TYPES[Math.floor(next() * 3)]];
    else if (filter < 0.25) query.host = `quelle${Math.floor(next() * 7)}.example`;
    else if (filter < 0.3) query.minAgeDate = '2018-01-01';
    return query;
  });
}

const seen = (result: IndexSearchResult) => ({
  ids: result.hits.map((hit) => hit.document.id),
  matchTypes: result.hits.map((hit) => hit.matchType),
  total: result.total,
  relation: result.totalRelation,
  hasMore: result.hasMore,
});

describe('score lists against FTS5 on random collections', () => {
  it('a bit set with ranks finds every row id of a list at its index, and no other', () => {
    const next = random(5);
    for (const maxSeq of [31, 32, 1000, 70_000]) {
      const seqs = Uint32Array.from(Array.from({ length: maxSeq + 1 }, (_, seq) => seq).filter(() => next() < 0.4));
      const ranked = rankedBitsOf(seqs, maxSeq);
      const expected = new Map(Array.from(seqs, (seq, i) => [seq, i]));
      for (let seq = 0; seq <= maxSeq; seq++) expect(indexOf(ranked, seq)).toBe(expected.get(seq) ?? -1);
    }
  });

  for (const seed of [1, 2]) {
    it(`answers random conjunctions exactly as FTS5 does, on every path (collection ${seed})`, async () => {
      const file = join(mkdtempSync(join(tmpdir(), 'fundus-random-')), 'index.sqlite');
      const writer = new SqliteIndex({ file, rankAllUpTo: Number.POSITIVE_INFINITY });
      const docs = collection(seed, 2400);
      await writer.writeBatch(async () => {
        for (const doc of docs) await writer.put(doc);
      });
      const queries = queriesOf(seed, 120);
      const expected: ReturnType<typeof seen>[] = [];
      for (const query of queries) {
        expected.push(seen(await writer.search(query)));
        expect(writer.lastPlan).toBe('fts5');
      }
      expect(expected.filter((answer) => answer.total > 0).length).toBeGreaterThan(60);
      // Score lists for every listed word, no head lists; block data written with every list of 100
      // documents or more (two threads: half of the lists come from the worker's part file).
      await writer.optimize({ headTermMinMatches: 100_000, blockDataFrom: 100, threads: 2 });
      const lists = ScoreLists.open(scoreListsFile(file))!;
      let stored = 0;
      for (const side of ['exact', 'base'] as const) {
        for (const token of lists.tokensWithAtLeast(1)) {
          const written = lists.readBlocks(side, token);
          if (!written) continue;
          stored++;
          const made = blocksOf(lists.read(side, token)!, lists.lengthNorm, lists.maxSeq, { noScores: true });
          expect(written, `${side}:${token}`).toEqual(made);
        }
      }
      expect(stored).toBeGreaterThan(20);
      lists.close();
      // Binary search only (ranks never), ranks wherever they apply, block-max for every query, and probes.
      const readers = [
        new SqliteIndex({ file, readOnly: true, rankAllUpTo: Number.POSITIVE_INFINITY, blockedFrom: Number.POSITIVE_INFINITY, rankedFrom: Number.POSITIVE_INFINITY }),
        new SqliteIndex({ file, readOnly: true, rankAllUpTo: Number.POSITIVE_INFINITY, blockedFrom: Number.POSITIVE_INFINITY, rankedFrom: 0 }),
        new SqliteIndex({ file, readOnly: true, rankAllUpTo: Number.POSITIVE_INFINITY, blockedFrom: Number.POSITIVE_INFINITY, rankedFrom: 0, listCacheBytes: 64 }),
        new SqliteIndex({ file, readOnly: true, rankAllUpTo: Number.POSITIVE_INFINITY, blockedFrom: 0 }),
        // Block-max with long lists read without their row ids (a million documents' common words): frequencies block by block, or whole.
        new SqliteIndex({ file, readOnly: true, rankAllUpTo: Number.POSITIVE_INFINITY, blockedFrom: 0, lazyFrom: 0, listCacheBytes: 64, frequencyBlocksMax: Number.POSITIVE_INFINITY }),
        new SqliteIndex({ file, readOnly: true, rankAllUpTo: Number.POSITIVE_INFINITY, blockedFrom: 0, lazyFrom: 0 }),
        // Long lists not in memory probed through their bit sets for few candidates (frequencies whole, or block by block).
        new SqliteIndex({ file, readOnly: true, rankAllUpTo: Number.POSITIVE_INFINITY, blockedFrom: Number.POSITIVE_INFINITY, lazyFrom: 0, listCacheBytes: 64 }),
        new SqliteIndex({ file, readOnly: true, rankAllUpTo: Number.POSITIVE_INFINITY, blockedFrom: Number.POSITIVE_INFINITY, lazyFrom: 0, frequencyBlocksMax: Number.POSITIVE_INFINITY }),
        // Caches far too small for the mix: their admission turns newcomers away and drops entries all the time.
        new SqliteIndex({ file, readOnly: true, rankAllUpTo: Number.POSITIVE_INFINITY, blockedFrom: 0, lazyFrom: 0, listCacheBytes: 16_384, blockCacheBytes: 8192, frequencyCacheBytes: 4096, frequencyBlocksMax: 0 }),
        new SqliteIndex({ file, readOnly: true, rankAllUpTo: Number.POSITIVE_INFINITY, blockedFrom: 0, listCacheBytes: 16_384, blockCacheBytes: 8192, frequencyCacheBytes: 4096 }),
      ];
      for (const [r, reader] of readers.entries()) {
        for (const [i, query] of queries.entries()) {
          const answer = seen(await reader.search(query));
          expect(reader.lastPlan, `reader ${r}, query ${i}`).toBe('score_lists');
          expect(answer, `reader ${r}, query ${i}: ${query.terms.map((t) => t.text).join(' ')} ${JSON.stringify({ ...query, terms: undefined })}`).toEqual(expected[i]);
        }
        await reader.close();
      }
      await writer.close();
    }, 240_000);
  }
});

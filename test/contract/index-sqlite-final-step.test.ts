import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { attachFts, ftsFileOf } from '../../services/index/sqlite/fts-file.ts';
import { describe, expect, it } from 'vitest';
import { analyzeQuery } from '../../services/core/analysis/index.ts';
import { ScoreLists, generationOf, highestSeq, scoreListsFile, writeScoreLists, type FacetScan } from '../../services/index/sqlite/score-lists.ts';
import { SqliteIndex } from '../../services/index/sqlite/sqlite-index.ts';
import { makeDoc } from '../helpers/documents.ts';

// The final step of ingestion on two threads (score-lists.ts): the lists written by two threads
// into chunks of one file, with the row sizes and facets read on a third thread beside FTS5's
// 'optimize', hold exactly what one thread writes — the same lists, block data, per-document
// arrays and footer; only where each list lies may differ. A scan of another snapshot is not used.

function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 2 ** 32;
  };
}

const WORDS = ['der', 'die', 'und', 'Antrag', 'Anträge', 'Gesetz', 'Gesetze', 'Frist', 'Haus', 'Häuser', 'Behörde', 'Datei', 'Zuschuss', 'Galvanik', 'Quelltext'];
const TYPES = ['html', 'pdf', 'docx', 'odt'] as const;

function collection(size: number) {
  const next = random(7);
  const word = () => WORDS[Math.min(WORDS.length - 1, Math.floor(Math.exp(next() * Math.log(WORDS.length + 1))) - 1)];
  return Array.from({ length: size }, (_, i) =>
    makeDoc({
      url: `https://q${i % 13}.sub${i % 3}.example/d/${i}`,
      title: Array.from({ length: 1 + (i % 3) }, word).join(' '),
      text: `${Array.from({ length: 5 + Math.floor(next() * 60) }, word).join(' ')} Nummer ${i}.`,
      type: TYPES[i % 4],
      topic: i % 5 === 0 ? null : ['Politik', 'Freizeit', ' Recht '][i % 3],
      isNews: i % 7 === 0,
      modifiedAt: i % 6 === 0 ? null : `20${10 + (i % 16)}-0${1 + (i % 9)}-1${i % 10}T00:00:00Z`,
    }),
  );
}

/** Everything a reader gets from a lists file, without where each list lies. */
function contentOf(file: string) {
  const bytes = readFileSync(file);
  const length = bytes.readUInt32LE(bytes.length - 12);
  const { lists, arrays, ...footer } = JSON.parse(bytes.subarray(bytes.length - 12 - length, bytes.length - 12).toString('utf8'));
  const reader = ScoreLists.open(file)!;
  const perList: string[] = [];
  for (const side of ['exact', 'base'] as const) {
    for (const [token, , documents] of lists[side] as [string, number, number][]) {
      const list = reader.read(side, token)!;
      const blocks = reader.readBlocks(side, token);
      perList.push(`${side}:${token}:${documents}:${Buffer.from(list.seqs.buffer).toString('base64')}:${blocks ? Buffer.from(blocks.maxima.buffer).toString('base64') : '-'}`);
    }
  }
  const arraysRead = [reader.docType, reader.docHost, reader.docTopic, reader.docNews, reader.docAge, reader.lengthNorm].map((array) => Buffer.from(array.buffer).toString('base64'));
  reader.close();
  return { footer, perList, arraysRead, offsets: lists.exact.map((entry: [string, number, number]) => entry[1]) as number[] };
}

describe('the final step on several threads', () => {
  it('writes the same lists, block data and arrays as one thread, the facets read beside FTS5 optimize', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'fundus-final-')), 'index.sqlite');
    const index = new SqliteIndex({ file });
    const docs = collection(3000);
    // Two batches: two FTS5 segments, so that 'optimize' really merges while the facets are read.
    for (const part of [docs.slice(0, 1500), docs.slice(1500)]) {
      await index.writeBatch(async () => {
        for (const doc of part) await index.put(doc);
      });
    }
    await index.optimize({ threads: 2, blockDataFrom: 50, headTermMinMatches: 100_000 });
    const parallel = contentOf(scoreListsFile(file));
    await index.optimize({ threads: 1, blockDataFrom: 50, headTermMinMatches: 100_000 });
    const single = contentOf(scoreListsFile(file));

    expect(single.perList.length).toBeGreaterThan(20);
    expect(single.perList.filter((entry) => !entry.endsWith(':-')).length).toBeGreaterThan(5); // lists with block data
    expect(single.footer.hosts.length).toBe(39);
    expect(single.footer.topics).toEqual(['', 'freizeit', 'recht', 'politik']);
    expect(parallel.footer).toEqual(single.footer);
    expect(parallel.arraysRead).toEqual(single.arraysRead);
    expect(parallel.perList).toEqual(single.perList);
    // The two threads' lists lie in chunks of their own: not in the order one thread writes them.
    expect(parallel.offsets).not.toEqual(single.offsets);
    await index.close();
  });

  it('copies the logs into the index files beside the final step, not in the close', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'fundus-final-')), 'index.sqlite');
    const index = new SqliteIndex({ file });
    await index.writeBatch(async () => {
      for (const doc of collection(600)) await index.put(doc);
    });
    const ftsFile = ftsFileOf(file);
    const written = { rows: statSync(file).size, fts: statSync(ftsFile).size };
    await index.optimize({ threads: 1, headTermMinMatches: 100_000 });
    const optimized = { rows: statSync(file).size, fts: statSync(ftsFile).size };
    await index.close();
    // Until the checkpoints the rows and the merged FTS5 index are in the logs only; after them, the
    // files hold them. Nothing is written to the FTS5 file after its merge: the close copies nothing more.
    expect(optimized.rows).toBeGreaterThan(written.rows);
    expect(optimized.fts).toBeGreaterThan(written.fts);
    expect(optimized.fts).toBe(statSync(ftsFile).size);
    const reopened = new SqliteIndex({ file, readOnly: true });
    expect((await reopened.search({ terms: analyzeQuery('Gesetz'), order: 'relevance', limit: 5, offset: 0, countBudgetMs: 1000 })).total).toBeGreaterThan(0);
    await reopened.close();
  });

  it('copies no log for an index in memory: it writes no file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fundus-final-'));
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      const index = new SqliteIndex({ file: ':memory:' });
      await index.writeBatch(async () => {
        for (const doc of collection(50)) await index.put(doc);
      });
      await index.optimize({ threads: 1 });
      await index.close();
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      process.chdir(cwd);
    }
  });

  it('uses no row sizes or facets read from another snapshot, nor a failed scan', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fundus-final-'));
    const file = join(dir, 'index.sqlite');
    const index = new SqliteIndex({ file });
    const docs = collection(600);
    await index.writeBatch(async () => {
      for (const doc of docs) await index.put(doc);
    });
    await index.optimize({ threads: 1, blockDataFrom: 50, headTermMinMatches: 100_000 });
    const expected = contentOf(scoreListsFile(file));
    await index.close();

    const db = new DatabaseSync(file);
    attachFts(db, file);
    const generation = generationOf(db);
    const maxSeq = highestSeq(db);
    const wrong = (tag: string, seq: number) => ({
      generation: tag,
      maxSeq: seq,
      tokens: new Uint32Array(seq + 1).fill(3),
      type: new Uint8Array(seq + 1),
      host: new Uint32Array(seq + 1),
      topic: new Uint16Array(seq + 1),
      news: new Uint8Array(seq + 1).fill(1),
      age: new Uint32Array(seq + 1),
      types: ['pdf'],
      hosts: ['elsewhere.example'],
      topics: [''],
      agesComparable: true,
    });
    const scans: FacetScan[] = [
      { sizes: Promise.resolve(wrong('stale', maxSeq)), facets: Promise.resolve(wrong('stale', maxSeq)), stop: async () => {} },
      { sizes: Promise.resolve(wrong(generation, maxSeq - 1)), facets: Promise.resolve(wrong(generation, maxSeq - 1)), stop: async () => {} },
      { sizes: Promise.resolve(null), facets: Promise.resolve(null), stop: async () => {} },
    ];
    for (const [i, scan] of scans.entries()) {
      const out = join(dir, `scan-${i}.lists`);
      db.exec('BEGIN IMMEDIATE');
      await writeScoreLists(db, file, out, generation, { threads: 2, blockDataFrom: 50, scan });
      db.exec('COMMIT');
      expect(statSync(out).size).toBeGreaterThan(0);
      const written = contentOf(out);
      expect(written.footer, `scan ${i}`).toEqual(expected.footer);
      expect(written.arraysRead, `scan ${i}`).toEqual(expected.arraysRead);
      expect(written.perList, `scan ${i}`).toEqual(expected.perList);
    }
    db.close();
  });
});

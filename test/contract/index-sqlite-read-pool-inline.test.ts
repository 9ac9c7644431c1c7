import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeQuery } from '../../services/core/analysis/index.ts';
import type { IndexQuery, IndexSearchResult } from '../../services/core/index-port.ts';
import { buildGatewayApp } from '../../services/gateway/app.ts';
import { SqliteReadPool } from '../../services/index/sqlite/read-pool.ts';
import { SqliteIndex } from '../../services/index/sqlite/sqlite-index.ts';
import { makeDoc } from '../helpers/documents.ts';
import { postJson } from '../helpers/gateway.ts';
import { admitAllGuardForTests } from '../helpers/open-guard.ts';

// The read pool answers cheap queries on the calling thread (read-pool.ts `searchIfCheap`) and
// sends the rest to its workers. Whichever path a query takes, the answer must be the worker's:
// the same hits in FTS5's order, the same exact totals, match types and snippets — through HTTP
// as through the pool.

function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 2 ** 32;
  };
}

// Stop words in nearly every document (long lists: heavy), word forms, and rare words (no list).
const VOCABULARY = ['der', 'die', 'und', 'Antrag', 'Anträge', 'Gesetz', 'Gesetze', 'Frist', 'Haus', 'Häuser', 'Behörde', 'Datei', 'Kinderarzt', 'Mietvertrag', 'Galvanik'];
const TYPES = ['html', 'pdf', 'docx'] as const;

function documents(size: number) {
  const next = random(11);
  const word = () => VOCABULARY[Math.min(VOCABULARY.length - 1, Math.floor(Math.exp(next() * Math.log(VOCABULARY.length + 1))) - 1)];
  return Array.from({ length: size }, (_, i) => {
    const body = Array.from({ length: 8 + Math.floor(next() * 30) }, word);
    if (next() < 0.9) body.push('der', 'die');
    if (i % 97 === 0) body.push('Quelltextprüfung'); // a rare word: FTS5 scores it, no list
    return makeDoc({
      url: `https://quelle${i % 5}.example/s/${i}`,
      title: Array.from({ length: 1 + Math.floor(next() * 3) }, word).join(' '),
      text: `${body.join(' ')} Nummer ${i}.`,
      type: TYPES[i % 3],
      modifiedAt: i % 4 === 0 ? null : `20${10 + (i % 15)}-06-01T00:00:00Z`,
    });
  });
}

const QUERIES: { q: string; extra?: Partial<IndexQuery> }[] = [
  { q: 'Galvanik' },
  { q: 'Quelltextprüfung' },
  { q: 'Kinderarzt Mietvertrag' },
  { q: 'Antrag' },
  { q: 'Gesetze', extra: { offset: 20, limit: 50 } },
  { q: 'Frist Behörde', extra: { documentTypes: ['pdf'] } },
  { q: 'Datei', extra: { host: 'quelle2.example' } },
  { q: 'Haus', extra: { minAgeDate: '2018-01-01' } },
  { q: 'der die' },
  { q: 'der Galvanik' },
  { q: 'die Antrag Haus' },
];

const seen = (result: IndexSearchResult) => ({
  ids: result.hits.map((hit) => hit.document.id),
  matchTypes: result.hits.map((hit) => hit.matchType),
  snippets: result.hits.map((hit) => hit.snippet),
  total: result.total,
  relation: result.totalRelation,
  hasMore: result.hasMore,
});

describe('read pool: cheap queries answered on the calling thread', () => {
  let file: string;
  let reference: SqliteIndex;
  const pools: SqliteReadPool[] = [];
  const open = (inlinePostings: number) => {
    const pool = new SqliteReadPool({ file, workers: 1, inlinePostings });
    pools.push(pool);
    return pool;
  };
  const query = (q: string, extra: Partial<IndexQuery> = {}): IndexQuery => ({ terms: analyzeQuery(q), order: 'relevance', limit: 10, offset: 0, countBudgetMs: 60_000, ...extra });

  beforeAll(async () => {
    file = join(mkdtempSync(join(tmpdir(), 'fundus-inline-')), 'index.sqlite');
    const writer = new SqliteIndex({ file });
    await writer.writeBatch(async () => {
      for (const doc of documents(1500)) await writer.put(doc);
    });
    await writer.optimize({ headTermMinMatches: 400 }); // score lists, and head lists for the most frequent words
    await writer.close();
    reference = new SqliteIndex({ file, readOnly: true });
  });
  afterAll(async () => {
    for (const pool of pools) await pool.close();
    await reference.close();
  });

  it('answers every query alike on either path, as the index does in-process', async () => {
    const always = open(Number.MAX_SAFE_INTEGER);
    const never = open(0);
    for (const { q, extra } of QUERIES) {
      for (const hitFieldsOnly of [false, true]) {
        const iq = { ...query(q, extra), hitFieldsOnly };
        const [inline, worker, direct] = [await always.search(iq), await never.search(iq), reference.searchSync(iq)];
        expect(seen(inline), q).toEqual(seen(worker));
        expect(seen(inline).ids, q).toEqual(seen(direct).ids);
        expect([inline.total, inline.totalRelation], q).toEqual([direct.total, 'eq']);
        expect(inline.hits.map((hit) => hit.document), q).toEqual(worker.hits.map((hit) => hit.document));
      }
    }
    // Every query here has lists (or a rare word's few matches) or a head list: none needs a worker.
    expect(always.inlineAnswers).toBe(QUERIES.length * 2);
    expect(never.inlineAnswers).toBe(0);
  });

  it('sends a query with long lists to a worker, and answers a rare word itself', async () => {
    const pool = open(200);
    const heavy = await pool.search(query('der die'));
    expect(heavy.total).toBeGreaterThan(1000);
    expect(pool.inlineAnswers).toBe(0);
    const rare = await pool.search(query('Quelltextprüfung'));
    expect(rare.total).toBe(reference.searchSync(query('Quelltextprüfung')).total);
    expect(rare.total).toBeGreaterThan(0);
    expect(pool.inlineAnswers).toBe(1);
    const pair = await pool.search(query('der Galvanik')); // a short list beside a long one: the sum decides
    expect(pool.inlineAnswers).toBe(1);
    expect(seen(pair)).toEqual(seen(await open(0).search(query('der Galvanik'))));
  });

  it('gives the same HTTP answers whichever path the pool chooses', async () => {
    const apps: FastifyInstance[] = [];
    const urlOf = async (index: SqliteReadPool) => {
      const app = await buildGatewayApp({
        index,
        guard: admitAllGuardForTests(),
        countBudgetMs: 60_000,
        externalUrl: 'http://127.0.0.1:8082',
        logLevel: 'silent',
        now: () => new Date('2026-11-22T12:00:00Z'),
      });
      apps.push(app);
      return app.listen({ host: '127.0.0.1', port: 0 });
    };
    const inlinePool = open(Number.MAX_SAFE_INTEGER);
    const workerPool = open(0);
    const [inlineUrl, workerUrl] = [await urlOf(inlinePool), await urlOf(workerPool)];
    try {
      const bodies = [
        { q: 'Galvanik' },
        { q: 'Quelltextprüfung', limit: 5 },
        { q: 'Kinderarzt Mietvertrag', offset: 3 },
        { q: 'Frist Behörde', document_types: ['pdf'] },
        { q: 'Datei', source: 'quelle2.example' },
        { q: 'Antrag', limit: 50 },
        { q: 'der die Haus' },
      ];
      for (const body of bodies) {
        const [fromInline, fromWorker] = [await postJson(`${inlineUrl}/v1/search`, body), await postJson(`${workerUrl}/v1/search`, body)];
        expect(fromInline.status, JSON.stringify(body)).toBe(200);
        expect(fromInline.body, JSON.stringify(body)).toEqual(fromWorker.body);
        expect(fromInline.body.total_relation).toBe('eq');
      }
      expect(inlinePool.inlineAnswers).toBe(bodies.length);
      expect(workerPool.inlineAnswers).toBe(0);
    } finally {
      for (const app of apps) await app.close();
    }
  });
});

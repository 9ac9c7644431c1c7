import { mkdtempSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeQuery } from '../../services/core/analysis/index.ts';
import type { IndexQuery } from '../../services/core/index-port.ts';
import { SqliteReadPool } from '../../services/index/sqlite/read-pool.ts';
import { SqliteIndex } from '../../services/index/sqlite/sqlite-index.ts';
import { searchDocuments, toSearchHit } from '../../services/core/use-cases/search.ts';
import { CONTRACT_DOCS, makeDoc } from '../helpers/documents.ts';

// The read pool serves the same answers as the in-process adapter, from worker threads.

describe('sqlite read pool (worker threads)', () => {
  let writer: SqliteIndex;
  let pool: SqliteReadPool;
  const docs = CONTRACT_DOCS.map(makeDoc);
  const query = (q: string, extra: Partial<IndexQuery> = {}): IndexQuery => ({ terms: analyzeQuery(q), order: 'relevance', limit: 10, offset: 0, countBudgetMs: 1000, ...extra });

  beforeAll(async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'fundus-pool-')), 'index.sqlite');
    writer = new SqliteIndex({ file });
    for (const doc of docs) await writer.put(doc);
    pool = new SqliteReadPool({ file, workers: 2 });
  });
  afterAll(async () => {
    await pool.close();
    await writer.close();
  });

  it('answers searches like the adapter, with snippets made on the worker', async () => {
    for (const q of [query('Haus'), query('Wahl', { documentTypes: ['docx', 'html'] }), query('Mueller'), query('', { order: 'newest', newsOnly: true })]) {
      const [fromPool, direct] = await Promise.all([pool.search(q), writer.search(q)]);
      expect(fromPool.hits.map((h) => [h.document.id, h.matchType])).toEqual(direct.hits.map((h) => [h.document.id, h.matchType]));
      expect([fromPool.total, fromPool.totalRelation, fromPool.hasMore]).toEqual([direct.total, direct.totalRelation, direct.hasMore]);
      for (const hit of fromPool.hits) expect(typeof hit.snippet).toBe('string');
    }
  });

  it('copies only what a search hit shows when the caller asks for no more (the API search), and the API answer is the same', async () => {
    const q = query('Haus');
    const [lean, direct] = await Promise.all([pool.search({ ...q, hitFieldsOnly: true }), writer.search(q)]);
    expect(lean.hits.length).toBeGreaterThan(0);
    for (const hit of lean.hits) expect([hit.document.text, hit.document.content, hit.document.contentHash]).toEqual(['', {}, '']);
    const full = await pool.search(q);
    expect(full.hits.every((hit) => hit.document.text.length > 0)).toBe(true);
    expect(lean.hits.map((hit) => toSearchHit(hit, hit.snippet!))).toEqual(full.hits.map((hit) => toSearchHit(hit, hit.snippet!)));
    expect(lean.hits.map((hit) => hit.document.id)).toEqual(direct.hits.map((hit) => hit.document.id));
    // The use case asks for it, and answers as it does from the adapter on this thread.
    const params = { q: 'Haus', limit: 10, offset: 0 } as Parameters<typeof searchDocuments>[1];
    expect(await searchDocuments({ index: pool, countBudgetMs: 1000 }, params)).toEqual(await searchDocuments({ index: writer, countBudgetMs: 1000 }, params));
  });

  it('serves documents, sources and stats, and answers many requests at once', async () => {
    expect((await pool.getDocument(docs[0].id))?.text).toBe(docs[0].text);
    expect(await pool.getDocument('urn:uuid:00000000-0000-5000-8000-000000000000')).toBeNull();
    expect(await pool.listSources()).toEqual(await writer.listSources());
    expect(await pool.stats()).toEqual(await writer.stats());
    expect(await pool.ping()).toBe(true);
    const many = await Promise.all(Array.from({ length: 40 }, (_, i) => pool.search(query(i % 2 ? 'Haus' : 'Wahl'))));
    expect(many.map((r) => r.total)).toEqual(Array.from({ length: 40 }, (_, i) => (i % 2 ? 3 : 2)));
  });

  it('refuses writes', async () => {
    await expect(pool.put()).rejects.toThrow(/read-only/);
  });

  it('fails the requests of a worker that could not open the index with 503, and starts it again on the next request', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'fundus-pool-lost-')), 'index.sqlite');
    const own = new SqliteIndex({ file });
    for (const doc of docs) await own.put(doc);
    await own.close();
    const lonely = new SqliteReadPool({ file, workers: 1 });
    try {
      // The worker opens its connection only once its thread has started: the file is gone by then.
      renameSync(file, `${file}.away`);
      await expect(lonely.search(query('Haus'))).rejects.toMatchObject({ code: 'INDEX_UNAVAILABLE' });
      expect(await lonely.ping()).toBe(false);
      renameSync(`${file}.away`, file);
      expect((await lonely.search(query('Haus'))).total).toBe(3);
      expect(await lonely.ping()).toBe(true);
    } finally {
      await lonely.close();
    }
  });
});

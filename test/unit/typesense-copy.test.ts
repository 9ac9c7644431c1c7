import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyzeQuery } from '../../services/core/analysis/index.ts';
import type { DocumentIndex, IndexQuery } from '../../services/core/index-port.ts';
import { storeDocument } from '../../services/core/use-cases/store-document.ts';
import { runIndexCommand } from '../../services/cli/index-command.ts';
import { SqliteIndex } from '../../services/index/sqlite/sqlite-index.ts';
import { createTypesenseClient } from '../../services/index/typesense/client.ts';
import { copySqliteToTypesense } from '../../services/index/typesense/copy.ts';
import { openTypesenseIndex } from '../../services/index/typesense/open.ts';
import { CONTRACT_DOCS, makeDoc } from '../helpers/documents.ts';
import { TypesenseStandIn } from '../helpers/typesense-stand-in.ts';
import { TYPESENSE_SCHEMA_VERSION } from '../../services/index/typesense/schema.ts';

// `fundus index copy` with a stand-in transport: the copy is complete before the alias swaps, and
// the copied index answers like the SQLite index it came from.

async function sqliteWithDocs(): Promise<{ file: string; index: SqliteIndex }> {
  const file = join(mkdtempSync(join(tmpdir(), 'fundus-copy-')), 'index.sqlite');
  const index = new SqliteIndex({ file });
  for (const spec of CONTRACT_DOCS) await storeDocument(index, makeDoc(spec));
  await storeDocument(index, makeDoc({ ...CONTRACT_DOCS[0], url: 'https://www.stadt-a.example/haus?kopie=1' })); // an alias
  const words = Array.from({ length: 80 }, (_, i) => `Wort${i}`).join(' ');
  await storeDocument(index, makeDoc({ url: 'https://gesetze.example/a/', title: 'Verordnung', text: `${words} abgerufen am 1. Mai` }));
  await storeDocument(index, makeDoc({ url: 'https://gesetze.example/a/index.html', title: 'Verordnung', text: `${words} abgerufen am 2. Mai` })); // near duplicate
  return { file, index };
}

const QUERIES: Partial<IndexQuery>[] = [
  { terms: analyzeQuery('Haus') },
  { terms: analyzeQuery('Wahl') },
  { terms: analyzeQuery('Mueller') },
  { terms: analyzeQuery('Städte') },
  { terms: analyzeQuery('Verordnung') },
  { terms: analyzeQuery('Haus'), documentTypes: ['pdf', 'docx'] },
  { terms: analyzeQuery('Wahl'), host: 'blog.stadt-a.example' },
  { terms: [], order: 'newest', newsOnly: true },
];

async function answers(index: DocumentIndex) {
  const out = [];
  for (const extra of QUERIES) {
    const result = await index.search({ terms: [], order: 'relevance', limit: 10, offset: 0, countBudgetMs: 1000, ...extra });
    out.push({ total: result.total, hits: result.hits.map((hit) => [hit.document.id, hit.matchType]).sort() });
  }
  return out;
}

describe('fundus index copy (sqlite -> typesense) with a stand-in transport', () => {
  it('fills a fresh versioned collection, then swaps the alias and keeps the previous one', async () => {
    const { file, index: sqlite } = await sqliteWithDocs();
    const standIn = new TypesenseStandIn();
    const typesense = await openTypesenseIndex({ nodes: ['http://ts.test:8108'], apiKey: 'k', axiosAdapter: standIn.adapter, create: true });
    const client = createTypesenseClient({ nodes: ['http://ts.test:8108'], apiKey: 'k', axiosAdapter: standIn.adapter });
    const summary = await copySqliteToTypesense({ client, sqliteFile: file, alias: 'fundus_web', batchSize: 3, now: () => new Date('2026-11-02T10:15:00Z') });
    expect(summary).toEqual({ collection: `fundus_web_v${TYPESENSE_SCHEMA_VERSION}_20261102101500`, previous: `fundus_web_v${TYPESENSE_SCHEMA_VERSION}`, dropped: false, documents: 8, aliases: 1 });
    expect(standIn.aliases.get('fundus_web')).toBe(`fundus_web_v${TYPESENSE_SCHEMA_VERSION}_20261102101500`);
    expect(standIn.collections.has(`fundus_web_v${TYPESENSE_SCHEMA_VERSION}`)).toBe(true);

    expect(await answers(typesense)).toEqual(await answers(sqlite));
    expect(await typesense.stats()).toEqual(await sqlite.stats());
    expect(await typesense.listSources()).toEqual(await sqlite.listSources());
    const aliasId = makeDoc({ ...CONTRACT_DOCS[0], url: 'https://www.stadt-a.example/haus?kopie=1' }).id;
    expect((await typesense.getDocument(aliasId))?.id).toBe((await sqlite.getDocument(aliasId))?.id);
    await sqlite.close();
  });

  it('leaves the alias alone when the copy is incomplete', async () => {
    const { file, index: sqlite } = await sqliteWithDocs();
    await sqlite.close();
    const standIn = new TypesenseStandIn();
    await openTypesenseIndex({ nodes: ['http://ts.test:8108'], apiKey: 'k', axiosAdapter: standIn.adapter, create: true });
    const client = createTypesenseClient({ nodes: ['http://ts.test:8108'], apiKey: 'k', axiosAdapter: standIn.adapter, numRetries: 0 });
    standIn.failNext(1, 400, (method, path) => method === 'POST' && path.endsWith('/import'));
    await expect(copySqliteToTypesense({ client, sqliteFile: file, alias: 'fundus_web' })).rejects.toThrow();
    expect(standIn.aliases.get('fundus_web')).toBe(`fundus_web_v${TYPESENSE_SCHEMA_VERSION}`);
  });

  it('drops the previous collection on request', async () => {
    const { file, index: sqlite } = await sqliteWithDocs();
    await sqlite.close();
    const standIn = new TypesenseStandIn();
    await openTypesenseIndex({ nodes: ['http://ts.test:8108'], apiKey: 'k', axiosAdapter: standIn.adapter, create: true });
    const client = createTypesenseClient({ nodes: ['http://ts.test:8108'], apiKey: 'k', axiosAdapter: standIn.adapter });
    const summary = await copySqliteToTypesense({ client, sqliteFile: file, alias: 'fundus_web', dropPrevious: true });
    expect(summary.dropped).toBe(true);
    expect([...standIn.collections.keys()]).toEqual([summary.collection]);
  });

  it('explains its usage and refuses other directions', async () => {
    let err = '';
    const io = { out: { write: () => true } as never, err: { write: (s: string) => ((err += s), true) } as never };
    expect(await runIndexCommand(['copy', '--from', 'typesense', '--to', 'sqlite'], {}, io)).toBe(2);
    expect(err).toMatch(/only --from sqlite --to typesense/);
    await expect(runIndexCommand(['copy', '--from', 'sqlite', '--to', 'typesense', '--data', '/tmp/x'], {}, io)).rejects.toThrow(/TYPESENSE_NODES/);
  });
});

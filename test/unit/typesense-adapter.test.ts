import { describe, expect, it } from 'vitest';
import { analyzeQuery } from '../../services/core/analysis/index.ts';
import type { IndexQuery } from '../../services/core/index-port.ts';
import { createTypesenseClient } from '../../services/index/typesense/client.ts';
import { openTypesenseIndex } from '../../services/index/typesense/open.ts';
import { TypesenseIndex } from '../../services/index/typesense/typesense-index.ts';
import { CONTRACT_DOCS, makeDoc } from '../helpers/documents.ts';
import { indexContract } from '../contract/index-contract.ts';
import { TypesenseStandIn } from '../helpers/typesense-stand-in.ts';
import { TYPESENSE_SCHEMA_VERSION } from '../../services/index/typesense/schema.ts';

// The shared index contract, run through the real typesense-js client against an in-memory
// stand-in transport (test/helpers/typesense-stand-in.ts). This checks the adapter's own logic; it is
// not a check against a Typesense server (test/contract/index-typesense.test.ts is).

const NO_WAIT = { attempts: 4, baseDelayMs: 1, maxDelayMs: 2, sleep: async () => {} };

async function openStandIn(standIn = new TypesenseStandIn(), nodes = ['http://ts-0.test:8108']) {
  return openTypesenseIndex({ nodes, apiKey: 'test-key', axiosAdapter: standIn.adapter, retryIntervalSeconds: 0, create: true });
}

indexContract('typesense adapter with a stand-in transport (in-memory emulation, not a Typesense server)', () => openStandIn());

function query(q: string, extra: Partial<IndexQuery> = {}): IndexQuery {
  return { terms: analyzeQuery(q), order: 'relevance', limit: 10, offset: 0, countBudgetMs: 1000, ...extra };
}

describe('typesense adapter with a stand-in transport: its own behaviour', () => {
  it('creates the versioned collection behind the alias on first use', async () => {
    const standIn = new TypesenseStandIn();
    await openStandIn(standIn);
    expect(standIn.aliases.get('fundus_web')).toBe(`fundus_web_v${TYPESENSE_SCHEMA_VERSION}`);
    expect([...standIn.collections.keys()]).toEqual([`fundus_web_v${TYPESENSE_SCHEMA_VERSION}`]);
  });

  it('opens the fediverse index as its own alias', async () => {
    const standIn = new TypesenseStandIn();
    await openTypesenseIndex({ nodes: ['http://ts-0.test:8108'], apiKey: 'k', axiosAdapter: standIn.adapter, collection: 'fediverse', create: true });
    expect(standIn.aliases.get('fundus_fediverse')).toBe(`fundus_fediverse_v${TYPESENSE_SCHEMA_VERSION}`);
  });

  it('refuses an alias that points at another layout version', async () => {
    const standIn = new TypesenseStandIn();
    await openStandIn(standIn);
    standIn.collections.set('fundus_web_v0', { ...standIn.collections.get(`fundus_web_v${TYPESENSE_SCHEMA_VERSION}`)!, name: 'fundus_web_v0' });
    standIn.aliases.set('fundus_web', 'fundus_web_v0');
    await expect(openStandIn(standIn)).rejects.toThrow(new RegExp(`layout version 0.*reads layout version ${TYPESENSE_SCHEMA_VERSION}.*index copy`, "s"));
  });

  it('pages across the exact and word-form passes without losing or repeating hits', async () => {
    const index = await openStandIn();
    const docs = Array.from({ length: 7 }, (_, i) =>
      makeDoc({ url: `https://haeuser.example/${i}`, title: `Seite ${i}`, text: i % 2 ? `Viele Häuser Nummer ${i}` : `Ein Haus Nummer ${i}` }),
    );
    await index.writeBatch(async () => {
      for (const doc of docs) await index.put(doc);
    });
    const seen: string[] = [];
    const types: string[] = [];
    for (let offset = 0; offset < 9; offset += 2) {
      const page = await index.search(query('Haus', { limit: 2, offset }));
      expect(page.total).toBe(7);
      expect(page.hasMore).toBe(offset + 2 < 7);
      seen.push(...page.hits.map((hit) => hit.document.id));
      types.push(...page.hits.map((hit) => hit.matchType));
    }
    expect(new Set(seen).size).toBe(7);
    expect(types).toEqual(['exact', 'exact', 'exact', 'exact', 'word_form', 'word_form', 'word_form']);
  });

  it('reports word-form hits as such in the newest-first order', async () => {
    const index = await openStandIn();
    await index.put(makeDoc({ url: 'https://a.example/1', title: 'Häuser', text: 'Viele Häuser', publishedAt: '2026-01-02' }));
    await index.put(makeDoc({ url: 'https://a.example/2', title: 'Haus', text: 'Ein Haus', publishedAt: '2025-01-02' }));
    const result = await index.search(query('Haus', { order: 'newest' }));
    expect(result.hits.map((hit) => [hit.document.title, hit.matchType])).toEqual([['Häuser', 'word_form'], ['Haus', 'exact']]);
  });

  it('sends one JSONL import per batch, not one request per document', async () => {
    const standIn = new TypesenseStandIn();
    const index = await openStandIn(standIn);
    standIn.requests.length = 0;
    await index.writeBatch(async () => {
      for (const spec of CONTRACT_DOCS) await index.put(makeDoc(spec));
    });
    const writes = standIn.requests.filter((r) => r.method !== 'GET' && !r.path.endsWith('/multi_search'));
    expect(writes.map((r) => r.path)).toEqual(['/collections/fundus_web/documents/import', '/collections/fundus_web/documents']);
  });

  it('writes nothing when the batch fails', async () => {
    const standIn = new TypesenseStandIn();
    const index = await openStandIn(standIn);
    await expect(
      index.writeBatch(async () => {
        await index.put(makeDoc(CONTRACT_DOCS[0]));
        throw new Error('extraction crashed');
      }),
    ).rejects.toThrow('extraction crashed');
    expect(standIn.collections.get(`fundus_web_v${TYPESENSE_SCHEMA_VERSION}`)!.docs.size).toBe(0);
  });

  it('retries an import that meets a 5xx, with back-off, and then succeeds', async () => {
    const standIn = new TypesenseStandIn();
    await openStandIn(standIn);
    const client = createTypesenseClient({ nodes: ['http://ts-0.test:8108'], apiKey: 'k', axiosAdapter: standIn.adapter, numRetries: 0, retryIntervalSeconds: 0 });
    const delays: number[] = [];
    const index = new TypesenseIndex(client, { collection: 'fundus_web', retry: { ...NO_WAIT, random: () => 1, onRetry: (_a, delay) => delays.push(delay) } });
    standIn.failNext(2, 503, (method, path) => method === 'POST' && path.endsWith('/import'));
    await index.writeBatch(async () => {
      await index.put(makeDoc(CONTRACT_DOCS[0]));
    });
    expect(delays).toEqual([1, 2]);
    expect(standIn.collections.get(`fundus_web_v${TYPESENSE_SCHEMA_VERSION}`)!.docs.has(makeDoc(CONTRACT_DOCS[0]).id)).toBe(true);
  });

  it('does not retry a request Typesense rejects (4xx) and keeps the cause', async () => {
    const standIn = new TypesenseStandIn();
    const index = await openStandIn(standIn);
    standIn.failNext(1, 400, (method, path) => method === 'POST' && path.endsWith('/import'));
    const failure = index.writeBatch(async () => {
      await index.put(makeDoc(CONTRACT_DOCS[0]));
    });
    await expect(failure).rejects.toMatchObject({ code: 'INTERNAL', cause: { httpStatus: 400 } });
    expect(standIn.requests.filter((r) => r.path.endsWith('/import'))).toHaveLength(1);
  });

  it('fails over to the next node when one refuses connections', async () => {
    const standIn = new TypesenseStandIn();
    const index = await openStandIn(standIn, ['http://ts-0.test:8108', 'http://ts-1.test:8108', 'http://ts-2.test:8108']);
    await index.put(makeDoc(CONTRACT_DOCS[0]));
    standIn.down.add('ts-0.test:8108');
    standIn.down.add('ts-2.test:8108');
    for (let i = 0; i < 5; i++) expect((await index.search(query('Haus'))).total).toBe(1);
    expect(await index.ping()).toBe(true);
    standIn.down.add('ts-1.test:8108');
    expect(await index.ping()).toBe(false);
    await expect(index.search(query('Haus'))).rejects.toMatchObject({ code: 'INDEX_UNAVAILABLE' });
  });

  it('translates a missing collection into INDEX_UNAVAILABLE with the cause kept', async () => {
    const standIn = new TypesenseStandIn();
    const index = await openStandIn(standIn);
    standIn.aliases.delete('fundus_web');
    const error = await index.search(query('Haus')).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'INDEX_UNAVAILABLE', cause: { httpStatus: 404 } });
  });
});

describe('typesense adapter with a stand-in transport: queries longer than one filter can hold', () => {
  const words = Array.from({ length: 45 }, (_, i) => `wort${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`);

  it('matches all 45 words (40 in Typesense, 5 checked in the adapter) and pages the result', async () => {
    const index = await openStandIn();
    await index.put(makeDoc({ url: 'https://lang.example/alle', title: 'Alle', text: words.join(' ') }));
    await index.put(makeDoc({ url: 'https://lang.example/fast', title: 'Fast alle', text: words.slice(0, 44).join(' ') }));
    await index.put(makeDoc({ url: 'https://lang.example/zwei', title: 'Noch einmal alle', text: `${words.join(' ')} zusatz` }));
    const q = words.join(' ');
    expect(analyzeQuery(q)).toHaveLength(45);
    const result = await index.search(query(q, { limit: 1 }));
    expect(result).toMatchObject({ total: 2, totalRelation: 'eq', hasMore: true });
    expect(result.hits[0].matchType).toBe('exact');
    const second = await index.search(query(q, { limit: 1, offset: 1 }));
    expect(second.hasMore).toBe(false);
    expect(new Set([result.hits[0].document.title, second.hits[0].document.title])).toEqual(new Set(['Alle', 'Noch einmal alle']));
  });
});

describe('typesense adapter with a stand-in transport: start-up', () => {
  it('waits for a cluster that is not reachable yet, then opens', async () => {
    const standIn = new TypesenseStandIn();
    standIn.failNext(2, 503);
    const index = await openTypesenseIndex({ nodes: ['http://ts.test:8108'], apiKey: 'k', axiosAdapter: standIn.adapter, numRetries: 0, startupWaitMs: 10_000 });
    expect(await index.ping()).toBe(true);
  });

  it('gives up after the start-up wait with the cause', async () => {
    const standIn = new TypesenseStandIn();
    standIn.down.add('ts.test:8108');
    const opening = openTypesenseIndex({ nodes: ['http://ts.test:8108'], apiKey: 'k', axiosAdapter: standIn.adapter, numRetries: 0, startupWaitMs: 0 });
    await expect(opening).rejects.toMatchObject({ code: 'INDEX_UNAVAILABLE' });
  });
});

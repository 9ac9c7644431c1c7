import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentIdForUrl } from '../../services/core/urls.ts';
import { buildGatewayApp } from '../../services/gateway/app.ts';
import { SqliteIndex } from '../../services/index/sqlite/sqlite-index.ts';
import { postJson } from '../helpers/gateway.ts';
import { admitAllGuardForTests } from '../helpers/open-guard.ts';
import { runFundus } from '../helpers/processes.ts';
import { CORPUS, describeWithCorpus, readCorpusJsonl } from '../helpers/shared-corpus.ts';

// The shared corpus of real German documents (../shared/corpus) through `fundus ingest` and the
// API, checked against its ground truth as a client would: types, titles, dates, duplicates,
// key-term and word-form search. Without the corpus the suite skips, with one line saying why.

interface Truth {
  url: string;
  type: string;
  title: string;
  published_at: string | null;
  modified_at: string | null;
  dup_group: string | null;
  near_dup_group: string | null;
  source_domain: string;
  key_terms: string[];
  word_form_queries: string[];
}

let truth: Truth[] = [];

function groups(key: 'dup_group' | 'near_dup_group'): Truth[][] {
  const byGroup = new Map<string, Truth[]>();
  for (const doc of truth) if (doc[key]) byGroup.set(doc[key]!, [...(byGroup.get(doc[key]!) ?? []), doc]);
  return [...byGroup.values()];
}

describeWithCorpus('the shared corpus through ingest and the API', () => {
  let base: string;
  let close: () => Promise<void>;

  beforeAll(async () => {
    truth = readCorpusJsonl<Truth>('truth.jsonl');
    const data = mkdtempSync(join(tmpdir(), 'fundus-corpus-'));
    const result = await runFundus(['ingest', '--data', data, '--quiet', CORPUS], {}, 600_000);
    expect(result.code, result.stderr).toBe(0);
    const index = new SqliteIndex({ file: join(data, 'index.sqlite'), readOnly: true });
    const app = await buildGatewayApp({ index, guard: admitAllGuardForTests(), countBudgetMs: 1000, externalUrl: 'http://127.0.0.1', logLevel: 'silent' });
    base = await app.listen({ host: '127.0.0.1', port: 0 });
    close = async () => {
      await app.close();
      await index.close();
    };
  }, 600_000);

  afterAll(async () => close?.());

  const record = async (url: string) => {
    const response = await fetch(`${base}/v1/documents/${documentIdForUrl(url)}`);
    return response.status === 200 ? ((await response.json()) as any) : null;
  };
  const search = async (body: Record<string, unknown>) => (await postJson(`${base}/v1/search`, { limit: 50, ...body })).body;

  it('holds every document under its URL, with the right type, main domain and dates', async () => {
    const wrong: string[] = [];
    for (const doc of truth) {
      const got = await record(doc.url);
      if (!got) {
        wrong.push(`missing ${doc.url}`);
        continue;
      }
      if (got.document_type !== doc.type) wrong.push(`type ${doc.url}: ${got.document_type}`);
      // A duplicate resolves to its group's record, which may live on another domain (a mirror).
      if (!doc.dup_group && got.source_domain !== doc.source_domain) wrong.push(`domain ${doc.url}: ${got.source_domain}`);
    }
    expect(wrong).toEqual([]);
  });

  it('extracts titles and dates as the ground truth has them (at least 95 %)', async () => {
    let titles = 0;
    let dates = 0;
    for (const doc of truth) {
      const got = await record(doc.url);
      if (got?.title.replace(/\s+/g, ' ') === doc.title.replace(/\s+/g, ' ')) titles++;
      const day = (value: string | null) => value?.slice(0, 10) ?? null;
      if (got && day(got.published_at) === doc.published_at && day(got.modified_at) === doc.modified_at) dates++;
    }
    expect(titles / truth.length).toBeGreaterThanOrEqual(0.95);
    expect(dates / truth.length).toBeGreaterThanOrEqual(0.95);
  });

  it('collapses duplicate groups into one record and one hit', async () => {
    for (const group of [...groups('dup_group'), ...groups('near_dup_group')]) {
      const records = await Promise.all(group.map((doc) => record(doc.url)));
      const ids = new Set(records.map((r) => r?.document_id));
      expect(ids.size, group.map((d) => d.url).join(' + ')).toBe(1);
      const hits = (await search({ q: group[0].key_terms.slice(0, 3).join(' ') })).results.filter((hit: any) => ids.has(hit.document_id));
      expect(hits.length, group[0].url).toBe(1);
    }
  });

  it('keeps documents apart that are not duplicates', async () => {
    const dupUrls = new Set(truth.filter((d) => d.dup_group || d.near_dup_group).map((d) => d.url));
    const ids = new Set<string>();
    for (const doc of truth.filter((d) => !dupUrls.has(d.url))) ids.add((await record(doc.url))?.document_id);
    expect(ids.size).toBe(truth.length - dupUrls.size);
  });

  it('finds each document by its key terms (at least 97 %)', async () => {
    let found = 0;
    for (const doc of truth) {
      const id = (await record(doc.url))?.document_id;
      const hits = (await search({ q: doc.key_terms.slice(0, 3).join(' ') })).results;
      if (hits.some((hit: any) => hit.document_id === id)) found++;
    }
    expect(found / truth.length).toBeGreaterThanOrEqual(0.97);
  });

  it('finds documents by other inflections of their words, as word forms (at least 95 %)', async () => {
    let asked = 0;
    let found = 0;
    for (const doc of truth) {
      const id = (await record(doc.url))?.document_id;
      for (const q of doc.word_form_queries) {
        asked++;
        const result = await search({ q, source: doc.source_domain, document_types: [doc.type] });
        const hit = result.results.find((h: any) => h.document_id === id);
        if (hit?.match_type === 'word_form' || (!hit && result.has_more)) found++;
      }
    }
    expect(asked).toBeGreaterThan(1000);
    expect(found / asked).toBeGreaterThanOrEqual(0.95);
  });
});

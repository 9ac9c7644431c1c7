import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentIdForUrl } from '../../services/core/urls.ts';
import { buildGatewayApp } from '../../services/gateway/app.ts';
import { SqliteIndex } from '../../services/index/sqlite/sqlite-index.ts';
import { postJson } from '../helpers/gateway.ts';
import { admitAllGuardForTests } from '../helpers/open-guard.ts';
import { ROOT, runFundus } from '../helpers/processes.ts';

// The demo collection through the whole path a user takes: `fundus ingest` (real extraction of
// HTML, PDF, DOCX, DOC, ODT) and the REST API, checked against samples/expectations.json.

const SAMPLES = resolve(ROOT, 'samples');
const expectations = JSON.parse(readFileSync(join(SAMPLES, 'expectations.json'), 'utf8'));

function urlsByPath(): Map<string, string> {
  const map = new Map<string, string>();
  for (const folder of ['web', 'office']) {
    for (const line of readFileSync(join(SAMPLES, folder, 'manifest.jsonl'), 'utf8').split('\n').filter(Boolean)) {
      const entry = JSON.parse(line);
      map.set(`${folder}/${entry.path}`, entry.url);
    }
  }
  return map;
}

describe('demo collection through ingest and the API', () => {
  const urls = urlsByPath();
  let base: string;
  let close: () => Promise<void>;
  let index: SqliteIndex;

  const search = async (body: Record<string, unknown>) => {
    const response = await postJson(`${base}/v1/search`, { limit: 50, ...body });
    expect(response.status).toBe(200);
    return response.body;
  };
  const record = async (path: string) => {
    const response = await fetch(`${base}/v1/documents/${documentIdForUrl(urls.get(path)!)}`);
    return response.status === 200 ? ((await response.json()) as any) : null;
  };

  beforeAll(async () => {
    const data = mkdtempSync(join(tmpdir(), 'fundus-samples-'));
    const result = await runFundus(['ingest', '--data', data, '--quiet', join(SAMPLES, 'web'), join(SAMPLES, 'office')]);
    expect(result.code, result.stderr).toBe(0);
    index = new SqliteIndex({ file: join(data, 'index.sqlite'), readOnly: true });
    const app = await buildGatewayApp({ index, guard: admitAllGuardForTests(), countBudgetMs: 1000, externalUrl: 'http://127.0.0.1', logLevel: 'silent' });
    base = await app.listen({ host: '127.0.0.1', port: 0 });
    close = async () => {
      await app.close();
      await index.close();
    };
  }, 180_000);

  afterAll(async () => close?.());

  it('finds every word-form case, as a word form', async () => {
    for (const c of expectations.word_form) {
      const hits = (await search({ q: c.q })).results;
      const hit = hits.find((h: any) => h.document_id === documentIdForUrl(urls.get(c.expect_path)!));
      expect(hit, `${c.q} -> ${c.expect_path}`).toBeDefined();
      expect(hit.match_type, c.q).toBe(c.match_type ?? 'word_form');
    }
  });

  it('finds every exact case (umlaut and ß spellings included)', async () => {
    for (const c of expectations.exact) {
      const hits = (await search({ q: c.q })).results;
      const hit = hits.find((h: any) => h.document_id === documentIdForUrl(urls.get(c.expect_path)!));
      expect(hit, `${c.q} -> ${c.expect_path}`).toBeDefined();
    }
  });

  it('finds compound parts', async () => {
    for (const c of expectations.compound) {
      const hits = (await search({ q: c.q })).results;
      expect(hits.some((h: any) => h.document_id === documentIdForUrl(urls.get(c.expect_path)!)), `${c.q} -> ${c.expect_path}`).toBe(true);
    }
  });

  it('keeps noindex pages out', async () => {
    for (const c of expectations.absent) expect((await search({ q: c.q })).total, c.q).toBe(0);
  });

  it('collapses duplicates into one hit and resolves every URL to the one record', async () => {
    for (const group of expectations.duplicates) {
      const records = await Promise.all(group.paths.map(record));
      const ids = new Set(records.map((r: any) => r?.document_id));
      expect(ids.size, group.paths.join(' + ')).toBe(1);
      const title = records[0].title;
      const hits = (await search({ q: title })).results.filter((h: any) => h.title === title);
      expect(hits, title).toHaveLength(1);
    }
  });

  it('flags news articles', async () => {
    for (const path of expectations.news) expect((await record(path))?.news, path).toBe(true);
  });

  it('extracts titles a person would give (at least 90 % exact)', async () => {
    const entries = Object.entries(expectations.titles as Record<string, string>);
    const wrong: string[] = [];
    for (const [path, title] of entries) {
      const doc = await record(path);
      if (doc && doc.title !== title) wrong.push(`${path}: "${doc.title}" != "${title}"`);
    }
    expect(wrong.length / entries.length, wrong.join('\n')).toBeLessThanOrEqual(0.1);
  });

  it('extracts dates (at least 90 % of published and modified dates), undated stays undated', async () => {
    const entries = Object.entries(expectations.dates as Record<string, { published_at: string | null; modified_at: string | null }>);
    const wrong: string[] = [];
    for (const [path, dates] of entries) {
      const doc = await record(path);
      if (!doc) continue;
      const got = { published_at: doc.published_at?.slice(0, 10) ?? null, modified_at: doc.modified_at?.slice(0, 10) ?? null };
      if (got.published_at !== dates.published_at || got.modified_at !== dates.modified_at) wrong.push(`${path}: ${JSON.stringify(got)} != ${JSON.stringify(dates)}`);
    }
    expect(wrong.length / entries.length, wrong.join('\n')).toBeLessThanOrEqual(0.1);
    for (const path of expectations.undated) {
      const doc = await record(path);
      if (doc) expect([doc.published_at, doc.modified_at], path).toEqual([null, null]);
    }
  });

  it('labels topics mostly right and never outside the taxonomy', async () => {
    const entries = Object.entries(expectations.topics as Record<string, string>);
    let right = 0;
    let labelled = 0;
    for (const [path, topic] of entries) {
      const doc = await record(path);
      if (!doc?.topic) continue;
      labelled++;
      const acceptable = [topic, ...(expectations.topics_also_acceptable[path] ?? [])];
      if (acceptable.includes(doc.topic)) right++;
    }
    expect(labelled).toBeGreaterThan(entries.length / 2);
    expect(right / labelled).toBeGreaterThanOrEqual(0.75);
  });
});

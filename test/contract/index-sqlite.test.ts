import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { IndexQuery } from '../../services/core/index-port.ts';
import { HEAD_LIST_LENGTH } from '../../services/index/sqlite/head-terms.ts';
import { SqliteIndex } from '../../services/index/sqlite/sqlite-index.ts';
import { analyzeQuery } from '../../services/core/analysis/index.ts';
import { makeDoc, CONTRACT_DOCS } from '../helpers/documents.ts';
import { indexContract } from './index-contract.ts';

indexContract('sqlite (file)', async () => new SqliteIndex({ file: join(mkdtempSync(join(tmpdir(), 'fundus-idx-')), 'index.sqlite') }));
// The same contract with every relevance query ranked in title tiers (the path of large match sets).
indexContract('sqlite (title tiers)', async () => new SqliteIndex({ file: join(mkdtempSync(join(tmpdir(), 'fundus-idx-')), 'index.sqlite'), rankAllUpTo: 0 }));

/** Rebuilds the head-term lists (every word a list) before each search, so one-word queries take them. */
class HeadTermsEverywhere extends SqliteIndex {
  override async search(query: IndexQuery) {
    await this.optimize({ headTermMinMatches: 1 });
    return super.search(query);
  }
}
indexContract('sqlite (head-term lists)', async () => new HeadTermsEverywhere({ file: join(mkdtempSync(join(tmpdir(), 'fundus-idx-')), 'index.sqlite') }));

describe('sqlite index: its own behaviour', () => {
  it('pages through title tiers without gaps or repeats, titled matches first', async () => {
    const index = new SqliteIndex({ file: join(mkdtempSync(join(tmpdir(), 'fundus-idx-')), 'index.sqlite'), rankAllUpTo: 5 });
    const docs = Array.from({ length: 40 }, (_, i) =>
      makeDoc({ url: `https://tiers.example/${i}`, title: i % 4 === 0 ? `Satzung Nummer ${i}` : `Bericht ${i}`, text: `Die Satzung regelt Fall ${i}. ${'Text '.repeat(i % 7)}` }),
    );
    for (const doc of docs) await index.put(doc);
    const seen: string[] = [];
    for (let offset = 0; offset < 45; offset += 7) {
      const page = await index.search({ terms: analyzeQuery('Satzung'), order: 'relevance', limit: 7, offset, countBudgetMs: 1000 });
      expect(page.total).toBe(40);
      seen.push(...page.hits.map((hit) => hit.document.title));
      expect(page.hasMore).toBe(offset + 7 < 40);
    }
    expect(seen).toHaveLength(40);
    expect(new Set(seen).size).toBe(40);
    expect(seen.slice(0, 10).every((title) => title.startsWith('Satzung'))).toBe(true);
    expect(seen.slice(10).every((title) => title.startsWith('Bericht'))).toBe(true);
    await index.close();
  });

  describe('head-term lists', () => {
    const newIndex = () => new SqliteIndex({ file: join(mkdtempSync(join(tmpdir(), 'fundus-idx-')), 'index.sqlite'), rankAllUpTo: Number.POSITIVE_INFINITY });
    const types = ['html', 'pdf', 'docx'] as const;
    // Enough documents that the list (1051 ranks) is shorter than the matches: the filtered and
    // deep pages are then answered from a prefix of the ranking, which must equal FTS5's own order.
    const docs = Array.from({ length: HEAD_LIST_LENGTH + 300 }, (_, i) =>
      makeDoc({
        url: `https://${i % 5 === 0 ? 'amt.' : ''}stadt${i % 3}.example/seite/${i}`,
        title: i % 9 === 0 ? `Satzung ${i}` : `Bericht ${i}`,
        text: `${'Die Satzung gilt. '.repeat(1 + (i % 11))}Dazu ${'weitere Worte '.repeat(i % 13)} Fall ${i}.`,
        type: types[i % 3],
        topic: i % 4 === 0 ? 'Recht' : 'Verwaltung',
        modifiedAt: i % 6 === 0 ? null : `20${10 + (i % 16)}-03-01T00:00:00Z`,
      }),
    );
    const word = (q: string, extra: Partial<IndexQuery> = {}): IndexQuery => ({
      terms: analyzeQuery(q), order: 'relevance', limit: 10, offset: 0, countBudgetMs: 60_000, ...extra,
    });
    const ids = (result: { hits: { document: { id: string } }[] }) => result.hits.map((hit) => hit.document.id);

    async function filled(): Promise<SqliteIndex> {
      const index = newIndex();
      await index.writeBatch(async () => {
        for (const doc of docs) await index.put(doc);
      });
      return index;
    }

    it('answer one-word queries in the same order, pages and totals as FTS5 ranking', async () => {
      const index = await filled();
      const cases: Partial<IndexQuery>[] = [
        {},
        { offset: 990, limit: 50 },
        { offset: 1000, limit: 50 },
        { documentTypes: ['pdf'] },
        { documentTypes: ['pdf', 'docx'], offset: 300, limit: 50 },
        { host: 'stadt1.example' },
        { host: 'amt.stadt2.example', offset: 20 },
        { topic: 'recht' },
        { minAgeDate: '2020-01-01' },
        { topic: 'Recht', documentTypes: ['html'], offset: 5 },
        { documentTypes: ['html', 'pdf'], minAgeDate: '2015-06-01', host: 'stadt0.example' },
      ];
      const expected = cases.map(() => null as unknown);
      for (const [i, extra] of cases.entries()) {
        const result = await index.search(word('Satzung', extra));
        expect(index.lastPlan).toBe('fts5');
        expected[i] = { ids: ids(result), total: result.total, relation: result.totalRelation, hasMore: result.hasMore };
      }
      // Once ranked on this thread, once on two worker threads: the same lists.
      for (const threads of [1, 2]) {
        const built = await index.optimize({ headTermMinMatches: 100, threads });
        expect(built.lists).toBeGreaterThan(0);
        for (const [i, extra] of cases.entries()) {
          const result = await index.search(word('Satzung', extra));
          expect(index.lastPlan, JSON.stringify(extra)).toBe('head_terms');
          expect({ ids: ids(result), total: result.total, relation: result.totalRelation, hasMore: result.hasMore }, JSON.stringify(extra)).toEqual(expected[i]);
        }
      }
      await index.close();
    });

    it('answer queries of several listed words exactly when the threshold proves it, else from documents in every list', async () => {
      const index = await filled();
      const queries = ['Satzung gilt', 'Satzung weitere', 'Bericht weitere Worte', 'Satzung Fall', 'die Satzung gilt weitere'];
      const cases: Partial<IndexQuery>[] = [{}, { offset: 40, limit: 50 }, { documentTypes: ['pdf'] }, { host: 'stadt1.example', limit: 20 }];
      const expected = new Map<string, { ids: string[]; total: number }>();
      for (const q of queries) {
        for (const extra of cases) {
          const result = await index.search(word(q, extra));
          expected.set(q + JSON.stringify(extra), { ids: ids(result), total: result.total });
        }
      }
      await index.optimize({ headTermMinMatches: 100 });
      const plans: string[] = [];
      for (const q of queries) {
        for (const extra of cases) {
          const result = await index.search(word(q, extra));
          const want = expected.get(q + JSON.stringify(extra))!;
          plans.push(index.lastPlan);
          expect(result.total, q).toBe(want.total);
          if (index.lastPlan === 'head_terms') expect(ids(result), `${q} ${JSON.stringify(extra)}`).toEqual(want.ids);
          expect(ids(result)).toHaveLength(want.ids.length);
          // Bounded or exact, every hit holds every word.
          for (const hit of result.hits) {
            const words = `${hit.document.title} ${hit.document.text}`.toLowerCase();
            for (const w of q.toLowerCase().split(' ')) expect(words).toContain(w);
          }
        }
      }
      expect(plans).toContain('head_terms');
      expect(plans.filter((plan) => plan === 'fts5')).toEqual([]);
      await index.close();
    });

    it('fall back to FTS5 when a page lies beyond the list, too few listed documents pass the filters, or the index changed', async () => {
      const index = await filled();
      await index.optimize({ headTermMinMatches: 100 });
      await index.search(word('Satzung', { offset: 1001, limit: 50 }));
      expect(index.lastPlan).toBe('fts5');
      await index.search(word('Satzung', { host: 'nirgends.example' }));
      expect(index.lastPlan).toBe('fts5');
      await index.search(word('Satzung Quastenflosser'));
      expect(index.lastPlan).toBe('fts5');
      await index.search(word('Satzung'));
      expect(index.lastPlan).toBe('head_terms');

      const newcomer = makeDoc({ url: 'https://neu.example/satzung', title: 'Satzung Satzung Satzung', text: 'Satzung.' });
      await index.put(newcomer);
      const result = await index.search(word('Satzung'));
      expect(index.lastPlan).toBe('fts5');
      expect(ids(result)[0]).toBe(newcomer.id);
      expect(result.total).toBe(docs.length + 1);
      await index.close();
    });
  });

  it('lets a read-only reader see what the writer committed', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'fundus-idx-')), 'index.sqlite');
    const writer = new SqliteIndex({ file });
    const reader = new SqliteIndex({ file, readOnly: true });
    await writer.put(makeDoc(CONTRACT_DOCS[0]));
    expect((await reader.stats()).documents).toBe(1);
    await expect(reader.put(makeDoc(CONTRACT_DOCS[1]))).rejects.toThrow(/readonly|read-only/i);
    await writer.close();
    await reader.close();
  });

  it('creates an empty index when a reader starts first', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'fundus-idx-')), 'index.sqlite');
    const reader = new SqliteIndex({ file, readOnly: true });
    expect(await reader.stats()).toEqual({ documents: 0, sources: 0, lastDocumentChange: null });
    await reader.close();
  });
});

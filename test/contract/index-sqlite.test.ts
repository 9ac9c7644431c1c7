import { existsSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { ftsFileOf, ftsSchemaOf, openIndexReader } from '../../services/index/sqlite/fts-file.ts';
import type { IndexQuery, IndexSearchResult } from '../../services/core/index-port.ts';
import { Fts5FormatError, leafPages, readTermPostings } from '../../services/index/sqlite/fts5-postings.ts';
import { scoreListsFile } from '../../services/index/sqlite/score-lists.ts';
import { HEAD_LIST_LENGTH } from '../../services/index/sqlite/head-terms.ts';
import { IndexNotReadyError, SqliteIndex } from '../../services/index/sqlite/sqlite-index.ts';
import { analyzeQuery } from '../../services/core/analysis/index.ts';
import { titleKeyOf } from '../../services/core/text.ts';
import { makeDoc, CONTRACT_DOCS } from '../helpers/documents.ts';
import { indexContract } from './index-contract.ts';

indexContract('sqlite (file)', async () => new SqliteIndex({ file: join(mkdtempSync(join(tmpdir(), 'fundus-idx-')), 'index.sqlite') }));
// The same contract with every relevance query ranked in title tiers (the path of large match sets).
indexContract('sqlite (title tiers)', async () => new SqliteIndex({ file: join(mkdtempSync(join(tmpdir(), 'fundus-idx-')), 'index.sqlite'), rankAllUpTo: 0 }));

/**
 * Rebuilds the head-term lists (every word a list) and the score lists before each search, so
 * one-word queries take the head lists and all others the score lists.
 */
class HeadTermsEverywhere extends SqliteIndex {
  override async search(query: IndexQuery) {
    await this.optimize({ headTermMinMatches: 1 });
    return super.search(query);
  }
}
indexContract('sqlite (head-term and score lists)', async () => new HeadTermsEverywhere({ file: join(mkdtempSync(join(tmpdir(), 'fundus-idx-')), 'index.sqlite') }));

describe('sqlite index: its own behaviour', () => {
  it('keeps nouns in -ung apart from their verb; ß=ss and a hyphenated word joined are the same exact (folded) form', async () => {
    const index = new SqliteIndex({ file: join(mkdtempSync(join(tmpdir(), 'fundus-idx-')), 'index.sqlite') });
    const put = (path: string, title: string, text: string) => index.put(makeDoc({ url: `https://forms.example/${path}`, title, text }));
    await put('abbildung', 'Werkzeuge', 'Die Abbildung zeigt das Werkzeug.');
    await put('abbild', 'Kopien', 'Ein Abbild der Ebene wird abgebildet.');
    await put('ausschuss', 'Geschäftsordnung', 'Der Ausschuß tagt öffentlich.');
    await put('journal', 'Journal', 'Die Journal-Datei wächst.');
    const hits = async (q: string) =>
      (await index.search({ terms: analyzeQuery(q), order: 'relevance', limit: 10, offset: 0, countBudgetMs: 1000 })).hits.map((hit) => [hit.document.title, hit.matchType]);
    expect(await hits('Abbildungen')).toEqual([['Werkzeuge', 'word_form']]);
    expect(await hits('Abbild')).toEqual([['Kopien', 'exact']]);
    expect(await hits('Ausschuss')).toEqual([['Geschäftsordnung', 'exact']]);
    expect(await hits('Ausschuß')).toEqual([['Geschäftsordnung', 'exact']]);
    expect(await hits('Journaldatei')).toEqual([['Journal', 'exact']]);
    expect(await hits('Journal-Datei')).toEqual([['Journal', 'exact']]);
    await index.close();
  });

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

  describe('head-term and score lists', () => {
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

    /** `leafBytes`: FTS5 leaves of that size (a new file's are 32,000 bytes; SQLite's default 4050 spreads a small index over many pages). */
    async function filled(leafBytes?: number): Promise<SqliteIndex> {
      const index = newIndex();
      if (leafBytes) {
        const fts = new DatabaseSync(ftsFileOf(index.file));
        fts.exec(`INSERT INTO documents_fts(documents_fts, rank) VALUES ('pgsz', ${leafBytes})`);
        fts.close();
      }
      await index.writeBatch(async () => {
        for (const doc of docs) await index.put(doc);
      });
      return index;
    }

    /** Everything a caller sees of a result, to compare the paths with FTS5's own answers. */
    const seen = (result: IndexSearchResult) => ({
      ids: ids(result),
      matchTypes: result.hits.map((hit) => hit.matchType),
      total: result.total,
      relation: result.totalRelation,
      hasMore: result.hasMore,
    });
    const queries = ['Satzung', 'Satzungen', 'Satzung gilt', 'Satzung weitere', 'Bericht weitere Worte', 'die Satzung gilt weitere', 'Satzung Fall 17', 'Fall 17', 'Satzung Quastenflosser'];
    const cases: Partial<IndexQuery>[] = [
      {},
      { offset: 990, limit: 50 },
      { offset: 1001, limit: 50 },
      { documentTypes: ['pdf'] },
      { documentTypes: ['pdf', 'docx'], offset: 300, limit: 50 },
      { host: 'stadt1.example' },
      { host: 'amt.stadt2.example', offset: 20 },
      { topic: 'recht' },
      { topic: 'Unbekannt' },
      { minAgeDate: '2020-01-01' },
      { topic: 'Recht', documentTypes: ['html'], offset: 5 },
      { documentTypes: ['html', 'pdf'], minAgeDate: '2015-06-01', host: 'stadt0.example' },
    ];

    async function answersOf(index: SqliteIndex): Promise<Map<string, { plan: string; seen: ReturnType<typeof seen> }>> {
      const answers = new Map<string, { plan: string; seen: ReturnType<typeof seen> }>();
      for (const q of queries) {
        for (const extra of cases) {
          const result = await index.search(word(q, extra));
          answers.set(`${q} ${JSON.stringify(extra)}`, { plan: index.lastPlan, seen: seen(result) });
        }
      }
      return answers;
    }

    it("answer every query with FTS5's order, pages, match types and exact totals", async () => {
      const index = await filled();
      const expected = await answersOf(index);
      expect(new Set([...expected.values()].map((answer) => answer.plan))).toEqual(new Set(['fts5']));
      // Head lists ranked on this thread, then on two worker threads; then with deep head lists for
      // every word and a reader that takes the block-max path (list-search.ts) for every query —
      // also with list caches so small that lists are dropped (and their memory given back) all
      // the time: 64 bytes keep none, 96 KiB about a dozen.
      const variants = [
        { threads: 1, deep: false },
        { threads: 2, deep: false },
        { threads: 1, deep: true },
        { threads: 1, deep: true, listCacheBytes: 64 },
        { threads: 1, deep: true, listCacheBytes: 96 * 1024 },
      ];
      for (const { threads, deep, listCacheBytes } of variants) {
        const built = await index.optimize({ headTermMinMatches: 100, threads, ...(deep ? { deepHeadMinMatches: 100 } : {}) });
        expect(built.lists).toBeGreaterThan(0);
        expect(built.scoreLists?.lists).toBeGreaterThan(0);
        const reader = deep
          ? new SqliteIndex({ file: index.file, readOnly: true, rankAllUpTo: Number.POSITIVE_INFINITY, blockedFrom: 0, listCacheBytes })
          : index;
        const answers = await answersOf(reader);
        for (const [key, answer] of answers) {
          expect(answer.seen, key).toEqual(expected.get(key)!.seen);
          const oneWordHead = key.startsWith('Satzung {') && (key.endsWith('{}') || key.includes('"offset":990') || (deep && key.includes('"offset":1001')));
          expect(answer.plan, key).toBe(oneWordHead ? 'head_terms' : 'score_lists');
        }
        if (reader !== index) await reader.close();
      }
      await index.close();
    });

    it('read the postings FTS5 holds, across leaf pages: the same documents and counts as fts5vocab', async () => {
      const index = await filled(4050);
      await index.optimize();
      const db = openIndexReader(index.file);
      db.exec(`CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(${ftsSchemaOf(index.file)}, documents_fts, 'col')`);
      const columns = ['title_exact', 'body_exact', 'title_base', 'body_base', 'facets'];
      const decoded = new Map<string, number[]>();
      let longest = 0;
      readTermPostings(db, ({ token, rowids, counts }) => {
        longest = Math.max(longest, rowids.length);
        const perColumn = Array(columns.length * 2).fill(0);
        rowids.forEach((_, i) => {
          for (let c = 0; c < columns.length; c++) {
            const n = counts[i * columns.length + c];
            if (n) {
              perColumn[2 * c]++;
              perColumn[2 * c + 1] += n;
            }
          }
        });
        decoded.set(token, perColumn);
      });
      const vocab = db.prepare('SELECT term, col, doc, cnt FROM temp.vocab').all() as { term: string; col: string; doc: number; cnt: number }[];
      expect(vocab.length).toBeGreaterThan(100);
      for (const row of vocab) {
        const c = columns.indexOf(row.col);
        expect(decoded.get(row.term)?.slice(2 * c, 2 * c + 2), `${row.term} in ${row.col}`).toEqual([row.doc, row.cnt]);
      }
      expect(longest).toBe(docs.length); // the facet every document carries: a doclist over many pages

      // Readers of page ranges (the parallel build) together read every term once, in order.
      const pages = leafPages(db);
      expect(pages).toBeGreaterThan(10);
      const whole: string[] = [];
      readTermPostings(db, ({ token, rowids, counts }) => whole.push(`${token}:${rowids.join(',')}:${counts.join(',')}`));
      for (const cuts of [[Math.floor(pages / 2)], [2, 3, pages - 1, pages], [1, pages + 1]]) {
        const bounds = [1, ...cuts, Number.POSITIVE_INFINITY];
        const pieced: string[] = [];
        for (let r = 0; r + 1 < bounds.length; r++) {
          readTermPostings(db, ({ token, rowids, counts }) => pieced.push(`${token}:${rowids.join(',')}:${counts.join(',')}`), { fromPage: bounds[r], toPage: bounds[r + 1] });
        }
        expect(pieced, `cut at ${cuts.join(', ')}`).toEqual(whole);
      }
      db.close();
      await index.close();
    });

    it('are not read from an index of several segments, and give way to FTS5 when the index changes', async () => {
      const index = newIndex();
      // Two write batches: two FTS5 segments until 'optimize' merges them.
      await index.writeBatch(async () => {
        for (const doc of docs.slice(0, 600)) await index.put(doc);
      });
      await index.writeBatch(async () => {
        for (const doc of docs.slice(600)) await index.put(doc);
      });
      const db = openIndexReader(index.file);
      expect(() => readTermPostings(db, () => {})).toThrow(Fts5FormatError);
      db.close();

      const expected = await answersOf(index);
      await index.optimize({ headTermMinMatches: 100 });
      await index.search(word('Satzung gilt'));
      expect(index.lastPlan).toBe('score_lists');

      const newcomer = makeDoc({ url: 'https://neu.example/satzung', title: 'Satzung Satzung Satzung', text: 'Satzung gilt.' });
      await index.put(newcomer);
      for (const q of ['Satzung', 'Satzung gilt']) {
        const result = await index.search(word(q));
        expect(index.lastPlan).toBe('fts5');
        expect(result.total).toBe(docs.length + 1);
        if (q === 'Satzung') expect(ids(result)[0]).toBe(newcomer.id);
      }
      // Removed again and merged: the lists of the new generation answer as FTS5 does now (FTS5
      // keeps a deleted row in its averages, so its scores are not quite those of before). A copy
      // of the file without score lists gives FTS5's answers.
      await index.remove(newcomer.id);
      await index.optimize({ headTermMinMatches: 100 });
      const copy = join(mkdtempSync(join(tmpdir(), 'fundus-idx-')), 'index.sqlite');
      const source = openIndexReader(index.file);
      source.exec(`VACUUM INTO '${copy}'`);
      source.exec(`VACUUM fts INTO '${ftsFileOf(copy)}'`);
      source.close();
      const plain = new SqliteIndex({ file: copy, readOnly: true, rankAllUpTo: Number.POSITIVE_INFINITY });
      const fts5Answers = await answersOf(plain);
      const answers = await answersOf(index);
      for (const [key, answer] of answers) {
        expect(answer.plan, key).not.toBe('fts5');
        expect(answer.seen, key).toEqual(fts5Answers.get(key)!.seen);
        expect(answer.seen.total, key).toBe(expected.get(key)!.seen.total);
      }
      expect([...fts5Answers.values()].filter((answer) => answer.plan === 'score_lists')).toEqual([]);
      await plain.close();
      await index.close();
    });

    it('a reader of the same file (it keeps lists between searches) follows every change of the writer', async () => {
      const writer = newIndex();
      await writer.writeBatch(async () => {
        for (const doc of docs) await writer.put(doc);
      });
      await writer.optimize({ headTermMinMatches: 100 });
      const reader = new SqliteIndex({ file: writer.file, readOnly: true });
      const look = async (q: string, plan: string, total: number) => {
        const result = await reader.search(word(q));
        expect(reader.lastPlan, q).toBe(plan);
        expect(result.total, q).toBe(total);
        return ids(result);
      };
      await look('Satzung', 'head_terms', docs.length);
      await look('Satzung gilt', 'score_lists', docs.length);

      const newcomer = makeDoc({ url: 'https://neu.example/satzung', title: 'Satzung Satzung Satzung', text: 'Satzung gilt.' });
      await writer.put(newcomer);
      expect((await look('Satzung', 'fts5', docs.length + 1))[0]).toBe(newcomer.id);
      await look('Satzung gilt', 'fts5', docs.length + 1);
      await writer.optimize({ headTermMinMatches: 100 });
      expect((await look('Satzung', 'head_terms', docs.length + 1))[0]).toBe(newcomer.id);
      await look('Satzung gilt', 'score_lists', docs.length + 1);
      await writer.remove(newcomer.id);
      expect(await look('Satzung', 'fts5', docs.length)).not.toContain(newcomer.id);
      await reader.close();
      await writer.close();
    });
  });

  it("near-duplicate candidates from the writer's title windows equal the index's, through adds, updates, removals, rollbacks and another writer", async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'fundus-idx-')), 'index.sqlite');
    const writer = new SqliteIndex({ file });
    const other = new SqliteIndex({ file });
    const reader = new SqliteIndex({ file, readOnly: true });
    const words = Array.from({ length: 60 }, (_, i) => `Wort${i}`);
    const impressum = (i: number, title = 'Impressum') =>
      makeDoc({ url: `https://site${i}.example/impressum`, title, text: i % 7 === 0 ? 'Zu kurz.' : words.map((word, k) => `${word}${(i * k) % 13}`).join(' ') });
    const key = titleKeyOf('Impressum');
    const anyFingerprint = impressum(1).fingerprint!;
    // 64 bits: every record with a fingerprint is close, so the whole window comes back, newest first.
    const candidates = async (index: SqliteIndex) => (await index.findNearDuplicateCandidates(key, anyFingerprint, 64, 1000)).map((doc) => doc.id);
    const inBatch = () => writer.writeBatch(() => candidates(writer));
    const putAll = (index: SqliteIndex, docs: ReturnType<typeof impressum>[]) =>
      index.writeBatch(async () => {
        for (const doc of docs) await index.put(doc);
      });

    await putAll(writer, Array.from({ length: 150 }, (_, i) => impressum(i)));
    expect(await inBatch()).toEqual(await candidates(reader)); // the window read from the index
    await putAll(writer, Array.from({ length: 100 }, (_, i) => impressum(150 + i))); // kept up to date past 200
    const truth = await candidates(reader);
    expect(truth.length).toBeGreaterThan(150);
    expect(await inBatch()).toEqual(truth);

    await putAll(other, [impressum(400), impressum(401)]);
    await other.remove(impressum(249).id);
    expect(await inBatch()).toEqual(await candidates(reader));

    await expect(
      writer.writeBatch(async () => {
        await writer.put(impressum(500));
        await candidates(writer);
        throw new Error('abgebrochen');
      }),
    ).rejects.toThrow('abgebrochen');
    expect(await inBatch()).toEqual(await candidates(reader));

    await writer.put(impressum(248, 'Kontakt')); // an update that moves a record out of the title
    expect(await inBatch()).toEqual(await candidates(reader));
    await writer.remove(impressum(247).id);
    expect(await inBatch()).toEqual(await candidates(reader));
    expect(await candidates(reader)).not.toContain(impressum(248).id);
    await Promise.all([writer.close(), other.close(), reader.close()]);
  });

  it('answers through FTS5 when the score-list file is damaged or missing', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'fundus-idx-')), 'index.sqlite');
    const writer = new SqliteIndex({ file });
    for (const spec of CONTRACT_DOCS) await writer.put(makeDoc(spec));
    await writer.optimize();
    const query: IndexQuery = { terms: analyzeQuery('Haus Garten'), order: 'relevance', limit: 10, offset: 0, countBudgetMs: 1000 };
    const reader = new SqliteIndex({ file, readOnly: true });
    const expected = await reader.search(query);
    expect(reader.lastPlan).toBe('score_lists');
    await reader.close();
    for (const damage of [(path: string) => writeFileSync(path, 'kein Index'), (path: string) => truncateSync(path, 100), (path: string) => rmSync(path)]) {
      damage(scoreListsFile(file));
      const fresh = new SqliteIndex({ file, readOnly: true });
      const result = await fresh.search(query);
      expect(fresh.lastPlan).toBe('fts5');
      expect(result.hits.map((hit) => hit.document.id)).toEqual(expected.hits.map((hit) => hit.document.id));
      expect(result.total).toBe(expected.total);
      await fresh.close();
    }
    await writer.close();
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

  it("a reader's page of hit fields (the API's) shows every change the writer commits: a new title and text, a removal", async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'fundus-idx-')), 'index.sqlite');
    const writer = new SqliteIndex({ file });
    const reader = new SqliteIndex({ file, readOnly: true });
    const first = { ...makeDoc({ url: 'https://rows.example/a', title: 'Satzung alt', text: 'Die Satzung gilt seit gestern.' }), dates: { published_at: '2026-01-02' } };
    const second = makeDoc({ url: 'https://rows.example/b', title: 'Bericht', text: 'Eine Satzung für alle.' });
    await writer.put(first);
    await writer.put(second);
    const page = async () => {
      const result = await reader.search({ terms: analyzeQuery('Satzung'), order: 'relevance', limit: 10, offset: 0, countBudgetMs: 1000, hitFieldsOnly: true });
      return result.hits.map((hit) => [hit.document.id, hit.document.title, hit.document.text, hit.document.dates]);
    };
    const before = await page();
    expect(before).toContainEqual([first.id, 'Satzung alt', 'Die Satzung gilt seit gestern.', first.dates]);
    expect(await page()).toEqual(before); // the same page again (its rows kept by the reader)
    await writer.put({ ...first, title: 'Satzung neu', text: 'Die Satzung gilt ab heute.', dates: { published_at: '2026-03-04' }, changedAt: '2026-11-20T08:00:00.000Z' });
    const after = await page();
    expect(after).toContainEqual([first.id, 'Satzung neu', 'Die Satzung gilt ab heute.', { published_at: '2026-03-04' }]);
    expect(after).toContainEqual(before.find((row) => row[0] === second.id));
    await writer.remove(second.id);
    expect((await page()).map((row) => row[0])).toEqual([first.id]);
    await writer.close();
    await reader.close();
  });

  it('stores the time of the last change once per batch: seen inside the batch, by readers after its commit, never after a rollback', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'fundus-idx-')), 'index.sqlite');
    const writer = new SqliteIndex({ file });
    const reader = new SqliteIndex({ file, readOnly: true });
    const at = (day: number) => `2026-11-${String(day).padStart(2, '0')}T08:00:00.000Z`;
    const doc = (i: number, day: number) => ({ ...makeDoc({ ...CONTRACT_DOCS[i], url: `https://batch.example/${i}` }), changedAt: at(day) });
    await writer.writeBatch(async () => {
      await writer.put(doc(0, 12));
      await writer.put(doc(1, 14));
      await writer.put(doc(2, 13));
      expect((await writer.stats()).lastDocumentChange).toBe(at(14));
      expect((await reader.stats()).lastDocumentChange).toBeNull();
    });
    expect((await reader.stats()).lastDocumentChange).toBe(at(14));
    await expect(
      writer.writeBatch(async () => {
        await writer.put(doc(3, 20));
        throw new Error('batch fails');
      }),
    ).rejects.toThrow('batch fails');
    await writer.put(doc(4, 10)); // older than what is stored: the newest stays
    expect((await reader.stats())).toMatchObject({ documents: 4, lastDocumentChange: at(14) });
    expect((await writer.stats()).lastDocumentChange).toBe(at(14));
    await writer.close();
    await reader.close();
  });

  it('a reader that starts first writes nothing: not ready until a writer has created the index', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'fundus-idx-')), 'index.sqlite');
    expect(() => new SqliteIndex({ file, readOnly: true })).toThrow(IndexNotReadyError);
    expect(existsSync(file)).toBe(false);
    await new SqliteIndex({ file }).close();
    const reader = new SqliteIndex({ file, readOnly: true });
    expect(await reader.stats()).toEqual({ documents: 0, sources: 0, lastDocumentChange: null });
    await reader.close();
  });
});

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { analyzeQuery } from '../../services/core/analysis/index.ts';
import type { DocumentIndex, IndexQuery } from '../../services/core/index-port.ts';
import { storeDocument } from '../../services/core/use-cases/store-document.ts';
import { shingleSimilarity, titleKeyOf } from '../../services/core/text.ts';
import { documentIdForUrl } from '../../services/core/urls.ts';
import { CONTRACT_DOCS, makeDoc } from '../helpers/documents.ts';

// The contract every index adapter passes (STYLE.md "Tests"): each adapter's test file calls
// `indexContract` with a factory for a fresh, empty index.

function query(q: string, extra: Partial<IndexQuery> = {}): IndexQuery {
  return { terms: analyzeQuery(q), order: 'relevance', limit: 10, offset: 0, countBudgetMs: 1000, ...extra };
}

export function indexContract(name: string, createIndex: () => Promise<DocumentIndex>): void {
  describe(`index contract: ${name}`, () => {
    let index: DocumentIndex;
    const docs = CONTRACT_DOCS.map(makeDoc);
    const titles = async (q: IndexQuery) => (await index.search(q)).hits.map((hit) => hit.document.title);

    beforeEach(async () => {
      index = await createIndex();
      for (const doc of docs) expect(await index.put(doc)).toBe('added');
    });
    afterEach(async () => {
      await index.close();
    });

    it('requires every term to match (AND)', async () => {
      expect(await titles(query('Haus See'))).toEqual(['Das Haus am See']);
      expect(await titles(query('Haus Zebra'))).toEqual([]);
    });

    it('matches German word forms and reports match_type', async () => {
      const result = await index.search(query('Haus'));
      const byTitle = Object.fromEntries(result.hits.map((hit) => [hit.document.title, hit.matchType]));
      expect(byTitle['Das Haus am See']).toBe('exact');
      expect(byTitle['Neue Häuser']).toBe('word_form');
      expect(result.hits[0].matchType).toBe('exact');
      expect(await titles(query('Kind'))).toEqual(expect.arrayContaining(['Interview mit Anna Müller', 'Ein neues Gesetz']));
      expect(await titles(query('Städte'))).toEqual(expect.arrayContaining(['Neue Häuser', 'Ein neues Gesetz']));
    });

    it('treats umlaut transcriptions and ß as the same word', async () => {
      const result = await index.search(query('Mueller'));
      expect(result.hits.map((hit) => hit.document.title)).toEqual(['Interview mit Anna Müller']);
      expect(result.hits[0].matchType).toBe('exact');
    });

    it('finds compound parts, ranked below exact hits', async () => {
      const result = await index.search(query('Wahl'));
      expect(result.hits.map((hit) => hit.document.title)).toEqual(['Wahl des Vorstands', 'Die Bundestagswahl']);
      expect(result.hits.map((hit) => hit.matchType)).toEqual(['exact', 'word_form']);
      expect(await titles(query('Bundestagswahl'))).toEqual(['Die Bundestagswahl']);
    });

    it('filters by document type (OR), host with subdomains, topic, news and age', async () => {
      expect(await titles(query('Haus', { documentTypes: ['pdf'] }))).toEqual(['Neue Häuser']);
      expect((await titles(query('Haus', { documentTypes: ['pdf', 'html', 'docx'] }))).sort()).toEqual(['Das Haus am See', 'Neue Häuser', 'Wahl des Vorstands']);
      expect((await titles(query('Wahl', { host: 'stadt-a.example' })))).toEqual(['Die Bundestagswahl']);
      expect((await titles(query('Wahl', { host: 'blog.stadt-a.example' })))).toEqual(['Die Bundestagswahl']);
      expect((await titles(query('Haus', { host: 'blog.stadt-a.example' })))).toEqual([]);
      expect((await titles(query('Wahl', { topic: 'Politik' }))).sort()).toEqual(['Die Bundestagswahl', 'Wahl des Vorstands']);
      expect(await titles(query('Wahl', { newsOnly: true }))).toEqual(['Die Bundestagswahl']);
      expect(await titles(query('Haus', { minAgeDate: '2026-01-01' }))).toEqual(['Das Haus am See']);
      expect(await titles(query('Wahl', { minAgeDate: '2000-01-01' }))).toEqual(['Die Bundestagswahl']); // undated excluded
    });

    it('lists every document newest first without terms', async () => {
      const result = await index.search({ terms: [], order: 'newest', limit: 3, offset: 0, countBudgetMs: 1000, newsOnly: true });
      expect(result.hits.map((hit) => hit.document.title)).toEqual(['Die Bundestagswahl', 'Interview mit Anna Müller']);
      expect(result.total).toBe(2);
    });

    it('pages with limit, offset, has_more and an exact total', async () => {
      const first = await index.search(query('Haus', { limit: 1 }));
      expect(first.hits).toHaveLength(1);
      expect(first.hasMore).toBe(true);
      expect(first.total).toBe(3);
      expect(first.totalRelation).toBe('eq');
      const last = await index.search(query('Haus', { limit: 1, offset: 2 }));
      expect(last.hasMore).toBe(false);
      expect(last.total).toBe(3);
      const beyond = await index.search(query('Haus', { limit: 5, offset: 10 }));
      expect(beyond.hits).toEqual([]);
      expect(beyond.total).toBe(3);
    });

    it('reports a lower bound when counting runs out of time', async () => {
      const many = Array.from({ length: 2500 }, (_, i) => makeDoc({ url: `https://viele.example/${i}`, title: `Eintrag ${i}`, text: `Zähler Nummer ${i}` }));
      await index.writeBatch(async () => {
        for (const doc of many) await index.put(doc);
      });
      const counted = await index.search(query('Zähler', { limit: 1 }));
      expect(counted).toMatchObject({ total: 2500, totalRelation: 'eq', hasMore: true });
      const cut = await index.search(query('Zähler', { limit: 1, countBudgetMs: 0 }));
      expect(cut.totalRelation).toBe('gte');
      expect(cut.total).toBeGreaterThanOrEqual(2);
      expect(cut.total).toBeLessThan(2500);
    });

    it('keeps records idempotent and reports changes', async () => {
      expect(await index.put(docs[0])).toBe('unchanged');
      const before = await index.stats();
      const changed = { ...docs[0], text: `${docs[0].text} Ergänzt.`, changedAt: '2026-11-20T08:00:00.000Z' };
      expect(await index.put(changed)).toBe('updated');
      expect((await index.stats()).lastDocumentChange).toBe('2026-11-20T08:00:00.000Z');
      expect(before.lastDocumentChange).toBe('2026-11-02T10:00:00.000Z');
      expect(await titles(query('Ergänzt'))).toEqual(['Das Haus am See']);
    });

    it('collapses duplicates: aliases resolve, near-duplicates stay out of results and totals', async () => {
      const primary = docs[0];
      await index.addAlias(documentIdForUrl('https://www.stadt-a.example/haus/index.html'), 'https://www.stadt-a.example/haus/index.html', primary.id);
      expect((await index.getDocument(documentIdForUrl('https://www.stadt-a.example/haus/index.html')))?.id).toBe(primary.id);
      const near = makeDoc({ url: 'https://www.stadt-a.example/haus-kopie', title: 'Das Haus am See', text: primary.text });
      await index.put({ ...near, duplicateOf: primary.id });
      expect(await titles(query('See'))).toEqual(['Das Haus am See']);
      expect((await index.search(query('See'))).total).toBe(1);
      expect((await index.getDocument(near.id))?.duplicateOf).toBe(primary.id);
      expect((await index.stats()).documents).toBe(docs.length);
    });

    it('applies the duplicate rules through storeDocument', async () => {
      const copy = makeDoc({ ...CONTRACT_DOCS[0], url: 'https://www.stadt-a.example/haus?kopie=1' });
      expect(await storeDocument(index, copy)).toBe('duplicate');
      expect((await index.getDocument(copy.id))?.id).toBe(docs[0].id);
      const words = Array.from({ length: 80 }, (_, i) => `Wort${i}`).join(' ');
      const a = makeDoc({ url: 'https://gesetze.example/a/', title: 'Verordnung', text: `${words} Dokument abgerufen am 1. Mai` });
      const b = makeDoc({ url: 'https://gesetze.example/a/index.html', title: 'Verordnung', text: `${words} Dokument abgerufen am 2. Mai` });
      expect(await storeDocument(index, a)).toBe('added');
      expect(await storeDocument(index, b)).toBe('near_duplicate');
      expect((await index.search(query('Verordnung'))).total).toBe(1);
      expect(await storeDocument(index, b)).toBe('unchanged');
    });

    it('does not fold texts of one template that differ throughout (same title, another name)', async () => {
      // Two laws made from one template: ~96 % of their 3-shingles shared, but they differ in 8
      // places, wherever the name recurs; a page fetched twice differs in one or two.
      const law = (name: string): string =>
        Array.from({ length: 8 }, (_, i) => `${Array.from({ length: 150 }, (_, j) => `Satz${i}x${j}`).join(' ')} ${name}`).join(' ');
      const a = makeDoc({ url: 'https://gesetze.example/yug/', title: 'Gesetz über die Zusammenarbeit mit dem Gerichtshof', text: law('Jugoslawien') });
      const b = makeDoc({ url: 'https://gesetze.example/rua/', title: 'Gesetz über die Zusammenarbeit mit dem Gerichtshof', text: law('Ruanda') });
      expect(shingleSimilarity(a.text, b.text)).toBeGreaterThan(0.85);
      expect(await storeDocument(index, a)).toBe('added');
      expect(await storeDocument(index, b)).toBe('added');
      expect((await index.search(query('Ruanda'))).total).toBe(1);
      expect((await index.search(query('Jugoslawien'))).total).toBe(1);
    });

    it('finds records by content hash and title key', async () => {
      expect((await index.findByContentHash(docs[1].contentHash))?.id).toBe(docs[1].id);
      expect(await index.findByContentHash('0'.repeat(64))).toBeNull();
      const words = Array.from({ length: 60 }, (_, i) => `Begriff${i}`).join(' ');
      const doc = makeDoc({ url: 'https://fp.example/1', title: 'Neue  HÄUSER', text: words });
      const other = makeDoc({ url: 'https://fp.example/2', title: 'Neue Häuser', text: Array.from({ length: 60 }, (_, i) => `Anderes${i * 7}`).join(' ') });
      await index.put(doc);
      await index.put(other);
      const candidates = (fp: string, bits: number) => index.findNearDuplicateCandidates(titleKeyOf('neue häuser'), fp, bits, 10);
      expect((await candidates(doc.fingerprint!, 0)).map((d) => d.id)).toEqual([doc.id]);
      // What the near-duplicate check compares: the text, and whether the candidate is a primary.
      expect(await candidates(doc.fingerprint!, 0)).toEqual([expect.objectContaining({ id: doc.id, text: doc.text, duplicateOf: null })]);
      expect((await candidates(doc.fingerprint!, 64)).map((d) => d.id).sort()).toEqual([doc.id, other.id].sort());
      expect(await index.findNearDuplicateCandidates(titleKeyOf('Gibt es nicht'), doc.fingerprint!, 64, 10)).toEqual([]);
    });

    it('lists sources and stats', async () => {
      expect(await index.listSources()).toEqual([
        { domain: 'stadt-a.example', documents: 3 },
        { domain: 'stadt-b.example', documents: 2 },
        { domain: 'stadt-c.example', documents: 1 },
      ]);
      expect(await index.stats()).toEqual({ documents: 6, sources: 3, lastDocumentChange: '2026-11-02T10:00:00.000Z' });
    });

    it('removes records', async () => {
      expect(await index.remove(docs[0].id)).toBe(true);
      expect(await index.remove(docs[0].id)).toBe(false);
      expect(await index.getDocument(docs[0].id)).toBeNull();
      expect(await titles(query('See'))).toEqual([]);
    });

    it('answers ping', async () => {
      expect(await index.ping()).toBe(true);
    });
  });
}

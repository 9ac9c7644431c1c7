import { describe, expect, it } from 'vitest';
import { analyzeForIndex } from '../../services/core/analysis/index.ts';
import { titleKeyOfDocument, type ExtractedDocument, type StoredDocument } from '../../services/core/document.ts';
import { contentHashOf, contentOf, titleKeyOf } from '../../services/core/text.ts';
import { buildStoredDocument } from '../../services/ingest/build-document.ts';
import { prepareForIndex } from '../../services/ingest/prepare.ts';

// The ingestion workers compute a document's analysis, content hash and title key ahead
// (prepare.ts); the writer's record (build-document.ts) must hold exactly what it would compute
// itself from the title it stores, also when that title is trimmed or a fallback from the URL.

function extracted(title: string, options: { fetchedFrom?: string; canonicalUrl?: string | null } = {}): ExtractedDocument {
  const doc: ExtractedDocument = {
    documentType: 'html',
    contentType: 'text/html',
    title,
    text: 'Die Verordnung über die Straßenreinigung gilt ab dem ersten Januar für alle Anlieger.',
    language: 'de',
    canonicalUrl: options.canonicalUrl ?? null,
    publishedAt: null,
    modifiedAt: null,
    contentDate: null,
    dates: {},
    isNews: false,
    noindex: false,
    content: {},
  };
  return { ...doc, prepared: prepareForIndex(doc, options.fetchedFrom) };
}

const item = { url: 'https://stadt.example/satzungen/strassen-reinigung.html', fetchedAt: '2026-11-20T08:00:00.000Z', headers: {}, label: 'x', read: async () => new Uint8Array() };

describe('a record built from a prepared document', () => {
  for (const title of ['Straßenreinigungssatzung', '  Straßenreinigungssatzung \n', '   ']) {
    it(`holds what the writer would compute for the title ${JSON.stringify(title)}`, () => {
      const record = buildStoredDocument(item, extracted(title), null, new Date('2026-11-21T00:00:00Z'));
      expect(record.title).toBe(title.trim() || 'strassen reinigung');
      expect(record.prepared?.title).toEqual(analyzeForIndex(record.title));
      expect(record.prepared?.body).toEqual(analyzeForIndex(record.text));
      expect(titleKeyOfDocument(record)).toBe(titleKeyOf(record.title));
      expect(record.contentHash).toBe(contentHashOf(contentOf(record.title, record.text)));
    });
  }

  const withoutPrepared = ({ prepared: _prepared, ...record }: StoredDocument) => record;
  const cases: [string, { fetchedFrom?: string; canonicalUrl?: string | null }][] = [
    ['no canonical link', { fetchedFrom: item.url }],
    ['a canonical link on the same site', { fetchedFrom: item.url, canonicalUrl: 'https://www.stadt.example/satzungen/strassenreinigung?utm_source=x' }],
    ['a canonical link to another site (not trusted)', { fetchedFrom: item.url, canonicalUrl: 'https://andere.example/kopie' }],
    ['ids computed for another URL (not used)', { fetchedFrom: 'https://stadt.example/anderes.html' }],
    ['no URL given to the worker', {}],
  ];
  for (const [name, options] of cases) {
    it(`has the ids and URLs the writer would compute, with ${name}`, () => {
      const now = new Date('2026-11-21T00:00:00Z');
      const prepared = extracted('Straßenreinigungssatzung', options);
      const record = buildStoredDocument(item, prepared, null, now);
      const { prepared: _none, ...plain } = prepared;
      expect(withoutPrepared(record)).toEqual(withoutPrepared(buildStoredDocument(item, plain, null, now)));
    });
  }
});

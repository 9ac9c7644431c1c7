import type { DocumentType, StoredDocument } from '../../services/core/document.ts';
import { MIME_BY_DOCUMENT_TYPE } from '../../services/core/document.ts';
import { contentHashOf, fingerprintOf } from '../../services/core/text.ts';
import { documentIdForUrl, hostOf, normalizeUrl, registrableDomain, sourceIdFor } from '../../services/core/urls.ts';

export interface DocSpec {
  url: string;
  title: string;
  text: string;
  type?: DocumentType;
  publishedAt?: string | null;
  modifiedAt?: string | null;
  topic?: string | null;
  isNews?: boolean;
  fetchedAt?: string;
}

/** A stored document as ingestion would build it, for tests that write straight into an index. */
export function makeDoc(spec: DocSpec): StoredDocument {
  const url = normalizeUrl(spec.url);
  const host = hostOf(url);
  const sourceDomain = registrableDomain(host);
  const type = spec.type ?? 'html';
  return {
    id: documentIdForUrl(url),
    url,
    canonicalUrl: url,
    host,
    sourceDomain,
    sourceId: sourceIdFor(sourceDomain),
    title: spec.title,
    text: spec.text,
    contentType: MIME_BY_DOCUMENT_TYPE[type],
    documentType: type,
    language: 'de',
    publishedAt: spec.publishedAt ?? null,
    modifiedAt: spec.modifiedAt ?? null,
    contentDate: null,
    dates: {},
    fetchedAt: spec.fetchedAt ?? '2026-11-01T10:00:00Z',
    contentHash: contentHashOf(`${spec.title}\n${spec.text}`),
    fingerprint: fingerprintOf(spec.text),
    topic: spec.topic ?? null,
    isNews: spec.isNews ?? false,
    content: {},
    duplicateOf: null,
    changedAt: '2026-11-02T10:00:00.000Z',
  };
}

/** A small German collection covering every rule the index contract checks. */
export const CONTRACT_DOCS: DocSpec[] = [
  { url: 'https://www.stadt-a.example/haus', title: 'Das Haus am See', text: 'Das Haus steht am See. Der Garten des Hauses ist groß.', publishedAt: '2026-10-01', topic: 'Freizeit' },
  { url: 'https://www.stadt-a.example/haeuser', title: 'Neue Häuser', text: 'In der Stadt entstehen neue Häuser mit Gärten.', publishedAt: '2010-05-04', type: 'pdf' },
  { url: 'https://blog.stadt-a.example/wahl', title: 'Die Bundestagswahl', text: 'Zur Bundestagswahl gehen viele Bürgerinnen und Bürger.', modifiedAt: '2026-09-15', isNews: true, topic: 'Politik' },
  { url: 'https://www.stadt-b.example/wahl', title: 'Wahl des Vorstands', text: 'Die Wahl des Vorstands findet im Haus der Vereine statt.', topic: 'Politik', type: 'docx' },
  { url: 'https://www.stadt-b.example/mueller', title: 'Interview mit Anna Müller', text: 'Anna Müller spricht über Gesetze und Kindern in Städten.', publishedAt: '2025-12-24', isNews: true, type: 'odt' },
  { url: 'https://www.stadt-c.example/gesetz', title: 'Ein neues Gesetz', text: 'Das Gesetz regelt den Schutz der Kinder in der Stadt.', type: 'doc' },
];

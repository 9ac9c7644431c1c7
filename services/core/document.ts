// The document model (DESIGN.md section 3): what ingestion produces and every index adapter stores.

import { titleKeyOf } from './text.ts';

export const DOCUMENT_TYPES = ['html', 'pdf', 'docx', 'doc', 'odt'] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];

export const MIME_BY_DOCUMENT_TYPE: Record<DocumentType, string> = {
  html: 'text/html',
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  doc: 'application/msword',
  odt: 'application/vnd.oasis.opendocument.text',
};

/**
 * The CPU-heavy derivations of a document for the index (German analysis, SimHash, offline topic),
 * computed in the extraction workers so that the single index writer only writes.
 */
export interface IndexPreparation {
  title: { exact: string; base: string };
  body: { exact: string; base: string };
  fingerprint: string | null;
  topic: string | null;
  /** contentHashOf(contentOf(title, text)) with the extracted title. */
  contentHash: string;
  /** titleKeyOf(the extracted title): near-duplicate candidates share it. */
  titleKey: string;
  /** Ids and URLs of the record, when the worker was told the URL the document was fetched from. */
  identity?: DocumentIdentity;
}

/** Who a document is (build-document.ts `identityOf`): its ids and normalised URLs. */
export interface DocumentIdentity {
  /** The URL the document was fetched from, as given: the identity holds for this URL only. */
  fetchedUrl: string;
  normalizedFetchedUrl: string;
  canonicalUrl: string;
  host: string;
  sourceDomain: string;
  sourceId: string;
  id: string;
}

/** What an extractor reads out of one file's bytes, before ids and sources are assigned. */
export interface ExtractedDocument {
  documentType: DocumentType;
  contentType: string;
  title: string;
  text: string;
  language: string | null;
  /** Canonical URL named by the document itself (HTML `<link rel="canonical">`), absolute. */
  canonicalUrl: string | null;
  publishedAt: string | null;
  modifiedAt: string | null;
  /** A date named in the content itself (e.g. "Ausfertigungsdatum: 12.01.2016"). */
  contentDate: string | null;
  /** Every date found, by where it was found (e.g. `json_ld_date_published`, `http_last_modified`). */
  dates: Record<string, string>;
  /** Recognised as news (schema.org NewsArticle, og:type article with a publication date, ...). */
  isNews: boolean;
  /** Robots meta said noindex. */
  noindex: boolean;
  /** Per-format extras (page count, author, keywords, ...). */
  content: Record<string, unknown>;
  /** Precomputed by the worker that extracted it; never stored. */
  prepared?: IndexPreparation;
}

/** A document as stored in an index: extraction plus identity, source and fingerprints. */
export interface StoredDocument {
  /** `urn:uuid:` + UUIDv5 of the normalised canonical URL. */
  id: string;
  url: string;
  canonicalUrl: string;
  host: string;
  sourceDomain: string;
  sourceId: string;
  title: string;
  text: string;
  contentType: string;
  documentType: DocumentType;
  language: string | null;
  publishedAt: string | null;
  modifiedAt: string | null;
  contentDate: string | null;
  dates: Record<string, string>;
  fetchedAt: string;
  /** sha256 of the normalised text. */
  contentHash: string;
  /** 64-bit SimHash of the text, 16 hex digits; null for texts too short to fingerprint. */
  fingerprint: string | null;
  topic: string | null;
  isNews: boolean;
  content: Record<string, unknown>;
  /** Set when this record is a near-duplicate collapsed under another record's id. */
  duplicateOf: string | null;
  /** When this record last changed in the index (ISO 8601). */
  changedAt: string;
  /** Analysed title and body computed ahead (ingestion workers); never stored, not part of the record. */
  prepared?: Pick<IndexPreparation, 'title' | 'body' | 'titleKey'>;
}

/** The key of a document's title (`titleKeyOf`), computed ahead by the ingestion workers when they could. */
export function titleKeyOfDocument(doc: Pick<StoredDocument, 'title' | 'prepared'>): string {
  return doc.prepared?.titleKey ?? titleKeyOf(doc.title);
}

/** The date that `max_age_months` measures: the later of modification and publication (spec 2). */
export function ageDateOf(doc: Pick<StoredDocument, 'modifiedAt' | 'publishedAt'>): string | null {
  const dates = [doc.modifiedAt, doc.publishedAt].filter((d): d is string => Boolean(d));
  if (dates.length === 0) return null;
  return dates.sort().at(-1)!;
}

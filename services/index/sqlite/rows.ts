import { ageDateOf, titleKeyOfDocument, type DocumentType, type StoredDocument } from '../../core/document.ts';

// The `documents` table's rows and the document model, both ways.

export interface DocumentRow {
  seq: number;
  id: string;
  url: string;
  canonical_url: string;
  host: string;
  source_domain: string;
  source_id: string;
  title: string;
  text: string;
  content_type: string;
  document_type: string;
  language: string | null;
  published_at: string | null;
  modified_at: string | null;
  content_date: string | null;
  dates: string;
  fetched_at: string;
  content_hash: string;
  fingerprint: string | null;
  topic: string | null;
  is_news: number;
  content: string;
  duplicate_of: string | null;
  changed_at: string;
}


export function toDocument(row: DocumentRow): StoredDocument {
  return {
    id: row.id,
    url: row.url,
    canonicalUrl: row.canonical_url,
    host: row.host,
    sourceDomain: row.source_domain,
    sourceId: row.source_id,
    title: row.title,
    text: row.text,
    contentType: row.content_type,
    documentType: row.document_type as DocumentType,
    language: row.language,
    publishedAt: row.published_at,
    modifiedAt: row.modified_at,
    contentDate: row.content_date,
    dates: JSON.parse(row.dates),
    fetchedAt: row.fetched_at,
    contentHash: row.content_hash,
    fingerprint: row.fingerprint,
    topic: row.topic,
    isNews: row.is_news === 1,
    content: JSON.parse(row.content),
    duplicateOf: row.duplicate_of,
    changedAt: row.changed_at,
  };
}

/**
 * What a search hit reads of a row (core's toSearchHit, and the text for its snippet): the columns
 * a page fetches when the caller asks for hit fields only. A third less to read and convert than
 * the whole row (content, hashes, fingerprint, keys), at 100k documents about 13 µs of 100 a page.
 */
const HIT_COLUMN_NAMES = [
  'seq', 'id', 'url', 'source_domain', 'source_id', 'title', 'text', 'content_type', 'document_type', 'language',
  'published_at', 'modified_at', 'content_date', 'dates', 'fetched_at', 'topic', 'is_news',
] as const;
export const HIT_COLUMNS = HIT_COLUMN_NAMES.join(', ');


/**
 * A hit's record from a row of HIT_COLUMNS read as an array (`setReturnArrays`), the fields it did
 * not read left empty. node:sqlite makes each row object a dictionary-mode object of a shape of its
 * own (a new hidden class per row); read by position, a page's rows cost a fraction of that.
 */
export function hitDocumentOf(values: unknown[]): StoredDocument {
  return toDocument({
    seq: values[0] as number,
    id: values[1] as string,
    url: values[2] as string,
    canonical_url: '',
    host: '',
    source_domain: values[3] as string,
    source_id: values[4] as string,
    title: values[5] as string,
    text: values[6] as string,
    content_type: values[7] as string,
    document_type: values[8] as string,
    language: values[9] as string | null,
    published_at: values[10] as string | null,
    modified_at: values[11] as string | null,
    content_date: values[12] as string | null,
    dates: values[13] as string,
    fetched_at: values[14] as string,
    content_hash: '',
    fingerprint: null,
    topic: values[15] as string | null,
    is_news: values[16] as number,
    content: '{}',
    duplicate_of: null,
    changed_at: '',
  });
}

const BEYOND_LATIN1 = /[^\u0000-\u00ff]/;

/** What a row of HIT_COLUMNS holds in memory, about: V8 keeps a string of Latin-1 characters at one byte a character, others at two. */
export function hitRowBytes(values: unknown[]): number {
  let bytes = 64 + 8 * values.length;
  for (const value of values) if (typeof value === 'string') bytes += 16 + (BEYOND_LATIN1.test(value) ? 2 : 1) * value.length;
  return bytes;
}

/**
 * The values of ROW_COLUMNS for `doc`, in their order: bound by position, a write makes no object
 * of named parameters (building one was about 2 % of the writer's thread).
 */
export function rowValuesOf(doc: StoredDocument): (string | number | null)[] {
  return [
    doc.id,
    doc.url,
    doc.canonicalUrl,
    doc.host,
    doc.sourceDomain,
    doc.sourceId,
    doc.title,
    doc.text,
    doc.contentType,
    doc.documentType,
    doc.language,
    doc.publishedAt,
    doc.modifiedAt,
    doc.contentDate,
    ageDateOf(doc),
    JSON.stringify(doc.dates),
    doc.fetchedAt,
    doc.contentHash,
    titleKeyOfDocument(doc),
    doc.fingerprint,
    doc.topic,
    doc.isNews ? 1 : 0,
    JSON.stringify(doc.content),
    doc.duplicateOf,
    doc.changedAt,
  ];
}

/** Everything that makes a record different, except when it changed. */
export function signatureOf(doc: StoredDocument): string {
  const { changedAt: _changedAt, prepared: _prepared, ...rest } = doc;
  return JSON.stringify(rest);
}

export const ROW_COLUMNS = `id, url, canonical_url, host, source_domain, source_id, title, text, content_type, document_type, language,
  published_at, modified_at, content_date, age_date, dates, fetched_at, content_hash, title_key, fingerprint, topic, is_news, content,
  duplicate_of, changed_at`;
const ROW_NAMES = ROW_COLUMNS.split(',').map((column) => column.trim());
export const ROW_PLACEHOLDERS = ROW_NAMES.map(() => '?').join(', ');
/** Where rowValuesOf puts the title key and the fingerprint. */
export const TITLE_KEY_VALUE = ROW_NAMES.indexOf('title_key');
export const FINGERPRINT_VALUE = ROW_NAMES.indexOf('fingerprint');

import { createHash } from 'node:crypto';
import { analyzeForIndex } from '../../core/analysis/index.ts';
import { ageDateOf, titleKeyOfDocument, type DocumentType, type StoredDocument } from '../../core/document.ts';
import { hostSuffixes } from '../../core/urls.ts';

// A stored document as a Typesense record, and back. Every value that a filter compares is a
// token of [a-z0-9]: Typesense tokenizes string fields (drops symbols, folds diacritics), so a raw
// "stadt-a.example" and "stadta.example" would compare equal. Plain-ASCII words keep their readable
// form; anything else is hashed, under its own prefix letter so that the two forms cannot collide.

export type TypesenseRecord = Record<string, string | number | boolean | string[]>;

const PLAIN = /^[a-z0-9]+$/;

function hash(value: string): string {
  return createHash('sha1').update(value).digest('hex').slice(0, 20);
}

/** Matching token of an exact (folded) form. */
export function exactToken(exact: string): string {
  return PLAIN.test(exact) ? `x${exact}` : `y${hash(exact)}`;
}

/** Matching token of a base form (stem, compound part). */
export function baseToken(base: string): string {
  return PLAIN.test(base) ? `b${base}` : `c${hash(base)}`;
}

export function hostKey(host: string): string {
  return `h${hash(host.toLowerCase())}`;
}

export function topicKey(topic: string): string {
  return `p${hash(topic.trim().toLowerCase())}`;
}

/** Key of a document id on alias records, to find and delete the aliases of a record. */
export function idKey(id: string): string {
  return `i${hash(id)}`;
}

/** Epoch seconds of an ISO date or timestamp; null when it does not parse (treated as undated). */
export function epochSeconds(iso: string | null): number | null {
  if (!iso) return null;
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : null;
}

/** The matching tokens of a text: one per distinct exact form and base form. */
export function termTokens(analysed: { exact: string; base: string }): string[] {
  const tokens = new Set<string>();
  for (const exact of analysed.exact.split(' ')) if (exact) tokens.add(exactToken(exact));
  for (const base of analysed.base.split(' ')) if (base) tokens.add(baseToken(base));
  return [...tokens];
}

function put(record: TypesenseRecord, key: string, value: string | number | boolean | string[] | null | undefined): void {
  // Typesense rejects null for typed fields in some versions: optional fields are left out instead.
  if (value !== null && value !== undefined) record[key] = value;
}

export function toRecord(doc: StoredDocument): TypesenseRecord {
  const record: TypesenseRecord = { id: doc.id, kind: 'document', listed: !doc.duplicateOf };
  if (!doc.duplicateOf) {
    const title = analyzeForIndex(doc.title);
    const body = analyzeForIndex(doc.text);
    const titleTerms = termTokens(title);
    record.title_exact = title.exact;
    record.all_exact = `${title.exact} ${body.exact}`.trim();
    record.title_terms = titleTerms;
    record.terms = [...new Set([...titleTerms, ...termTokens(body)])];
    record.host_keys = hostSuffixes(doc.host).map(hostKey);
    if (doc.topic) record.topic_key = topicKey(doc.topic);
    put(record, 'age_ts', epochSeconds(ageDateOf(doc)));
  }
  record.document_type = doc.documentType;
  record.is_news = doc.isNews;
  put(record, 'changed_ts', epochSeconds(doc.changedAt));
  record.source_domain = doc.sourceDomain;
  record.content_hash = doc.contentHash;
  record.title_key = titleKeyOfDocument(doc);

  record.url = doc.url;
  record.canonical_url = doc.canonicalUrl;
  record.host = doc.host;
  record.source_id = doc.sourceId;
  record.title = doc.title;
  record.text = doc.text;
  record.content_type = doc.contentType;
  put(record, 'language', doc.language);
  put(record, 'published_at', doc.publishedAt);
  put(record, 'modified_at', doc.modifiedAt);
  put(record, 'content_date', doc.contentDate);
  record.dates_json = JSON.stringify(doc.dates);
  record.fetched_at = doc.fetchedAt;
  put(record, 'fingerprint', doc.fingerprint);
  put(record, 'topic', doc.topic);
  record.content_json = JSON.stringify(doc.content);
  put(record, 'duplicate_of', doc.duplicateOf);
  record.changed_at = doc.changedAt;
  return record;
}

function text(record: Record<string, unknown>, key: string): string {
  const value = record[key];
  return typeof value === 'string' ? value : '';
}

function nullable(record: Record<string, unknown>, key: string): string | null {
  const value = record[key];
  return typeof value === 'string' ? value : null;
}

function json(record: Record<string, unknown>, key: string): Record<string, never> {
  const value = record[key];
  return typeof value === 'string' && value ? JSON.parse(value) : {};
}

export function fromRecord(record: Record<string, unknown>): StoredDocument {
  return {
    id: text(record, 'id'),
    url: text(record, 'url'),
    canonicalUrl: text(record, 'canonical_url'),
    host: text(record, 'host'),
    sourceDomain: text(record, 'source_domain'),
    sourceId: text(record, 'source_id'),
    title: text(record, 'title'),
    text: text(record, 'text'),
    contentType: text(record, 'content_type'),
    documentType: text(record, 'document_type') as DocumentType,
    language: nullable(record, 'language'),
    publishedAt: nullable(record, 'published_at'),
    modifiedAt: nullable(record, 'modified_at'),
    contentDate: nullable(record, 'content_date'),
    dates: json(record, 'dates_json'),
    fetchedAt: text(record, 'fetched_at'),
    contentHash: text(record, 'content_hash'),
    fingerprint: nullable(record, 'fingerprint'),
    topic: nullable(record, 'topic'),
    isNews: record.is_news === true,
    content: json(record, 'content_json'),
    duplicateOf: nullable(record, 'duplicate_of'),
    changedAt: text(record, 'changed_at'),
  };
}

/** Everything that makes a record different, except when it changed (as the SQLite adapter). */
export function signatureOf(doc: StoredDocument): string {
  const { changedAt: _changedAt, ...rest } = doc;
  return JSON.stringify(rest);
}

export const ALIAS_PREFIX = 'alias:';
export const META_ID = 'meta:last_document_change';

export function aliasRecord(aliasId: string, url: string, primaryId: string): TypesenseRecord {
  return { id: `${ALIAS_PREFIX}${aliasId}`, kind: 'alias', listed: false, alias_key: idKey(primaryId), alias_of: primaryId, url };
}

export function metaRecord(lastDocumentChange: string): TypesenseRecord {
  return { id: META_ID, kind: 'meta', listed: false, value: lastDocumentChange };
}

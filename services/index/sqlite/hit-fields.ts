import type { StoredDocument } from '../../core/document.ts';
import type { IndexQuery, IndexSearchResult } from '../../core/index-port.ts';
import { makeSnippet } from '../../core/snippet.ts';

// What a search answer carries out of the read pool, whether a worker or the HTTP thread made it
// (read-pool.ts): snippets made from the whole text, then only what the caller reads.

/** Texts of hits cross the thread boundary only this far; the snippet is made from the whole text first. */
const HIT_TEXT_LIMIT = 5000;

/**
 * What a search hit shows of a record (core's toSearchHit), the rest left empty: copying a reply to
 * the HTTP thread costs by its fields, and the text, content and hashes are most of them.
 */
function hitFieldsOf(doc: StoredDocument): StoredDocument {
  return {
    id: doc.id,
    url: doc.url,
    canonicalUrl: '',
    host: '',
    sourceDomain: doc.sourceDomain,
    sourceId: doc.sourceId,
    title: doc.title,
    text: '',
    contentType: doc.contentType,
    documentType: doc.documentType,
    language: doc.language,
    publishedAt: doc.publishedAt,
    modifiedAt: doc.modifiedAt,
    contentDate: doc.contentDate,
    dates: doc.dates,
    fetchedAt: doc.fetchedAt,
    contentHash: '',
    fingerprint: null,
    topic: doc.topic,
    isNews: doc.isNews,
    content: {},
    duplicateOf: null,
    changedAt: '',
  };
}

/** Adds every hit's snippet and trims its record to what the caller reads (in place). */
export function finishHits(result: IndexSearchResult, query: IndexQuery): IndexSearchResult {
  for (const hit of result.hits) {
    hit.snippet = makeSnippet(hit.document.text || hit.document.title, query.terms);
    if (query.hitFieldsOnly) hit.document = hitFieldsOf(hit.document);
    else if (hit.document.text.length > HIT_TEXT_LIMIT) hit.document.text = hit.document.text.slice(0, HIT_TEXT_LIMIT);
  }
  return result;
}

import { analyzeForIndex } from '../core/analysis/index.ts';
import type { DocumentIdentity, ExtractedDocument, IndexPreparation } from '../core/document.ts';
import { contentHashOf, contentOf, fingerprintOf, titleKeyOf } from '../core/text.ts';
import { identityOf } from './build-document.ts';
import { scoreTopicsOfBases } from './topics/keyword-classifier.ts';

/**
 * The part of a preparation that needs no word analysis: with the extraction pool's roles it is made
 * where the document was extracted, so that the process that analyses does only that (pool.ts ROLES).
 */
export interface TextPreparation {
  fingerprint: string | null;
  contentHash: string;
  titleKey: string;
  identity?: DocumentIdentity;
}

export function prepareText(doc: ExtractedDocument, url?: string): TextPreparation {
  return {
    fingerprint: fingerprintOf(doc.text),
    contentHash: contentHashOf(contentOf(doc.title.trim(), doc.text)),
    titleKey: titleKeyOf(doc.title),
    ...(url && { identity: identityOf(url, doc.canonicalUrl) }),
  };
}

/**
 * Everything an index write needs that costs CPU; runs in the extraction workers (both cores). `url`:
 * where the document was fetched, if known. `topic: false` when the document brings its own topic
 * (a record with a `topic` field): the offline classifier's answer would not be used. `text`: the
 * prepareText of the same document and URL, when it was made already.
 */
export function prepareForIndex(doc: ExtractedDocument, url?: string, options: { topic?: boolean; text?: TextPreparation } = {}): IndexPreparation {
  const title = analyzeForIndex(doc.title);
  const body = analyzeForIndex(doc.text);
  const text = options.text ?? prepareText(doc, url);
  return {
    title,
    body,
    fingerprint: text.fingerprint,
    topic: options.topic === false ? null : scoreTopicsOfBases(title.base, body.base).topic,
    contentHash: text.contentHash,
    titleKey: text.titleKey,
    ...(text.identity && { identity: text.identity }),
  };
}

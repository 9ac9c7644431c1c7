import { analyzeForIndex } from '../core/analysis/index.ts';
import type { ExtractedDocument, IndexPreparation } from '../core/document.ts';
import { contentHashOf, contentOf, fingerprintOf, titleKeyOf } from '../core/text.ts';
import { identityOf } from './build-document.ts';
import { scoreTopicsOfBases } from './topics/keyword-classifier.ts';

/**
 * Everything an index write needs that costs CPU; runs in the extraction workers (both cores). `url`:
 * where the document was fetched, if known. `topic: false` when the document brings its own topic
 * (a record with a `topic` field): the offline classifier's answer would not be used.
 */
export function prepareForIndex(doc: ExtractedDocument, url?: string, options: { topic?: boolean } = {}): IndexPreparation {
  const title = analyzeForIndex(doc.title);
  const body = analyzeForIndex(doc.text);
  return {
    title,
    body,
    fingerprint: fingerprintOf(doc.text),
    topic: options.topic === false ? null : scoreTopicsOfBases(title.base, body.base).topic,
    contentHash: contentHashOf(contentOf(doc.title.trim(), doc.text)),
    titleKey: titleKeyOf(doc.title),
    ...(url && { identity: identityOf(url, doc.canonicalUrl) }),
  };
}

import { analyzeForIndex } from '../core/analysis/index.ts';
import type { ExtractedDocument, IndexPreparation } from '../core/document.ts';
import { contentHashOf, contentOf, fingerprintOf } from '../core/text.ts';
import { scoreTopicsOfBases } from './topics/keyword-classifier.ts';

/** Everything an index write needs that costs CPU; runs in the extraction workers (both cores). */
export function prepareForIndex(doc: ExtractedDocument): IndexPreparation {
  const title = analyzeForIndex(doc.title);
  const body = analyzeForIndex(doc.text);
  return {
    title,
    body,
    fingerprint: fingerprintOf(doc.text),
    topic: scoreTopicsOfBases(title.base, body.base).topic,
    contentHash: contentHashOf(contentOf(doc.title.trim(), doc.text)),
  };
}

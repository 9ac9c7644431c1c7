import { analyzeForIndex } from '../core/analysis/index.ts';
import type { ExtractedDocument, IndexPreparation } from '../core/document.ts';
import { fingerprintOf } from '../core/text.ts';
import { classifyTopicByKeywords } from './topics/keyword-classifier.ts';

/** Everything an index write needs that costs CPU; runs in the extraction workers (both cores). */
export function prepareForIndex(doc: ExtractedDocument): IndexPreparation {
  return {
    title: analyzeForIndex(doc.title),
    body: analyzeForIndex(doc.text),
    fingerprint: fingerprintOf(doc.text),
    topic: classifyTopicByKeywords(doc),
  };
}

import type { DocumentIndex } from '../../core/index-port.ts';
import { documentIdForPost, postToDocument, samePost, versionOf } from './post-document.ts';
import type { SkipReason, Verdict } from './post.ts';

// Writes verdicts into the fediverse index. Removal happens only on an explicit signal from the
// source: a Delete activity, a 404/410 for the post (fetch), or the post seen again as no longer
// public or by an author who has opted out since. A post merely absent from a listing stays.

// Reasons that say "this post must not be in the index"; a malformed item says nothing about the post.
const REMOVING = new Set<SkipReason>(['not_public', 'opted_out', 'empty']);

export interface ApplySummary {
  added: number;
  updated: number;
  unchanged: number;
  removed: number;
  /** Older than the version already stored (an old file read after a newer one). */
  stale: number;
  skipped: Record<SkipReason, number>;
}

export function emptySummary(): ApplySummary {
  return { added: 0, updated: 0, unchanged: 0, removed: 0, stale: 0, skipped: { not_public: 0, opted_out: 0, reblog: 0, empty: 0, malformed: 0 } };
}

export function addSummaries(total: ApplySummary, part: ApplySummary): ApplySummary {
  for (const key of ['added', 'updated', 'unchanged', 'removed', 'stale'] as const) total[key] += part[key];
  for (const key of Object.keys(total.skipped) as SkipReason[]) total.skipped[key] += part.skipped[key];
  return total;
}

/**
 * Applies verdicts in order, in one write batch. Within one batch a Delete wins over a Create or
 * Update of the same post wherever it appears (outboxes are not always in time order).
 */
export async function applyVerdicts(index: DocumentIndex, verdicts: Verdict[], now: Date): Promise<ApplySummary> {
  const summary = emptySummary();
  const deleted = new Set(verdicts.flatMap((v) => (v.kind === 'delete' ? [documentIdForPost(v.uri)] : [])));
  await index.writeBatch(async () => {
    for (const verdict of verdicts) {
      if (verdict.kind === 'delete') {
        if (await index.remove(documentIdForPost(verdict.uri))) summary.removed++;
        continue;
      }
      if (verdict.kind === 'skip') {
        summary.skipped[verdict.reason]++;
        if (verdict.uri && REMOVING.has(verdict.reason) && (await index.remove(documentIdForPost(verdict.uri)))) summary.removed++;
        continue;
      }
      const doc = postToDocument(verdict.post, now);
      if (deleted.has(doc.id)) continue;
      const existing = await index.getDocument(doc.id);
      if (existing && existing.id === doc.id) {
        if (versionOf(existing) > versionOf(doc)) {
          summary.stale++;
          continue;
        }
        if (samePost(existing, { ...doc, fetchedAt: existing.fetchedAt })) {
          summary.unchanged++;
          continue;
        }
      }
      const outcome = await index.put(doc);
      summary[outcome]++;
    }
  });
  return summary;
}

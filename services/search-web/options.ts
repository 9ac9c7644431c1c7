import { DOCUMENT_TYPES } from '../core/document.ts';
import type { DocumentIndex } from '../core/index-port.ts';
import { TOPICS } from '../core/topics.ts';
import { PUBLIC_LIMITS, type OptionsResponse } from './schemas.ts';

// GET /api/options: what the filters accept. Counting sources groups the whole index, so the answer
// is kept for a minute: the figures change only when ingestion runs.

const CACHE_MS = 60_000;

export interface OptionsDeps {
  index: DocumentIndex;
  fediverseIndex: DocumentIndex;
  /** Configured instances (FUNDUS_FEDIVERSE_INSTANCES); empty: those in the fediverse index. */
  fediverseInstances: string[];
}

export async function collectOptions(deps: OptionsDeps): Promise<OptionsResponse> {
  const [sources, instances] = await Promise.all([deps.index.listSources(), deps.fediverseIndex.listSources()]);
  const posts = new Map(instances.map((source) => [source.domain, source.documents]));
  const selected = deps.fediverseInstances.map((host) => host.trim().toLowerCase()).filter(Boolean);
  return {
    sources: sources.slice(0, PUBLIC_LIMITS.sourcesMax).map(({ domain, documents }) => ({ domain, documents })),
    topics: TOPICS.map(({ label, description }) => ({ label, description })),
    document_types: [...DOCUMENT_TYPES],
    fediverse_instances: selected.length
      ? [...new Set(selected)].map((instance) => ({ instance, posts: posts.get(instance) ?? 0 }))
      : instances.map(({ domain, documents }) => ({ instance: domain, posts: documents })),
    page_size: PUBLIC_LIMITS.pageSize,
    max_offset: PUBLIC_LIMITS.offsetMax,
  };
}

/** collectOptions, remembered for a minute. */
export function cachedOptions(deps: OptionsDeps, clock: () => number = () => performance.now()): () => Promise<OptionsResponse> {
  let cached: { at: number; value: Promise<OptionsResponse> } | null = null;
  return () => {
    if (!cached || clock() - cached.at > CACHE_MS) {
      const value = collectOptions(deps);
      cached = { at: clock(), value };
      value.catch(() => (cached = null));
    }
    return cached.value;
  };
}

import { analyzeQuery } from '../analysis/index.ts';
import type { StoredDocument } from '../document.ts';
import type { DocumentIndex, IndexHit, IndexQuery } from '../index-port.ts';
import type { SearchHit, SearchParameters, SearchResponse } from '../schemas/index.ts';
import { makeSnippet } from '../snippet.ts';
import { stageClock } from '../stage-timings.ts';
import { normalizeSourceFilter } from '../urls.ts';

export interface SearchDeps {
  index: DocumentIndex;
  /** Time budget for counting `total` before it is reported as a lower bound. */
  countBudgetMs: number;
  now?: () => Date;
}

/** The first day that is still within `months` months before `now` (ISO date). */
export function cutoffDate(now: Date, months: number): string {
  const cutoff = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - months, now.getUTCDate()));
  return cutoff.toISOString().slice(0, 10);
}

function emptyResponse(params: SearchParameters): SearchResponse {
  return { results: [], offset: params.offset, limit: params.limit, has_more: false, provider: 'local', total: 0, total_relation: 'eq' };
}

export function toSearchHit(hit: IndexHit, snippet: string): SearchHit {
  const doc: StoredDocument = hit.document;
  return {
    document_id: doc.id,
    title: doc.title,
    snippet,
    url: doc.url,
    source_id: doc.sourceId,
    source_domain: doc.sourceDomain,
    fetched_at: doc.fetchedAt,
    content_type: doc.contentType,
    match_type: hit.matchType,
    published_at: doc.publishedAt,
    content_date: doc.contentDate,
    dates: { ...doc.dates, published_at: doc.publishedAt, modified_at: doc.modifiedAt },
    content: { document_type: doc.documentType, language: doc.language, topic: doc.topic, news: doc.isNews },
  };
}

/**
 * Builds the index query shared by every search surface (REST, MCP, the public endpoints).
 * Returns null when a filter can match nothing (e.g. a source that is no domain at all).
 */
export function toIndexQuery(
  params: { q?: string | null; source?: string | null; topic?: string | null; max_age_months?: number | null; document_types?: IndexQuery['documentTypes'] },
  page: { limit: number; offset: number; order: IndexQuery['order']; newsOnly?: boolean },
  deps: Pick<SearchDeps, 'countBudgetMs' | 'now'>,
): IndexQuery | null {
  const terms = params.q ? analyzeQuery(params.q) : [];
  if (params.q && terms.length === 0) return null;
  const query: IndexQuery = { terms, order: page.order, limit: page.limit, offset: page.offset, countBudgetMs: deps.countBudgetMs };
  if (params.source) {
    const host = normalizeSourceFilter(params.source);
    if (!host) return null;
    query.host = host;
  }
  if (params.topic?.trim()) query.topic = params.topic.trim();
  if (params.document_types?.length) query.documentTypes = [...new Set(params.document_types)];
  if (params.max_age_months) query.minAgeDate = cutoffDate((deps.now ?? (() => new Date()))(), params.max_age_months);
  if (page.newsOnly) query.newsOnly = true;
  return query;
}

export async function searchDocuments(deps: SearchDeps, params: SearchParameters): Promise<SearchResponse> {
  const clock = stageClock(); // null unless FUNDUS_STAGE_TIMINGS (benchmark only)
  const query = toIndexQuery(params, { limit: params.limit, offset: params.offset, order: 'relevance' }, deps);
  clock?.lap('main.analysis');
  if (!query) return emptyResponse(params);
  query.hitFieldsOnly = true; // toSearchHit below reads no text, content or hashes
  const result = await deps.index.search(query);
  clock?.lap('main.index_call');
  const response: SearchResponse = {
    results: result.hits.map((hit) => toSearchHit(hit, hit.snippet ?? makeSnippet(hit.document.text || hit.document.title, query.terms))),
    offset: params.offset,
    limit: params.limit,
    has_more: result.hasMore,
    provider: 'local',
    total: result.total,
    total_relation: result.totalRelation,
  };
  clock?.lap('main.response');
  return response;
}

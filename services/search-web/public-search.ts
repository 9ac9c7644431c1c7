import type { QueryTerm } from '../core/analysis/index.ts';
import type { DocumentIndex, IndexHit, IndexQuery, IndexSearchResult } from '../core/index-port.ts';
import { findTermMatches, makeSnippet } from '../core/snippet.ts';
import { toIndexQuery } from '../core/use-cases/search.ts';
import { makeExcerpt } from './excerpt.ts';
import {
  PUBLIC_LIMITS,
  type FediverseSearchRequest,
  type NewsSearchRequest,
  type SocialHit,
  type SocialRequest,
  type SocialResponse,
  type WebHit,
  type WebSearchRequest,
  type WebSearchResponse,
} from './schemas.ts';

// The four public searches: parse has happened, this maps parameters onto the shared index query
// (core's toIndexQuery, the same German matching as /v1/search) and hits onto the public item shapes.

export interface PublicSearchDeps {
  index: DocumentIndex;
  fediverseIndex: DocumentIndex;
  countBudgetMs: number;
  now?: () => Date;
}

type Page = { offset: number; order: IndexQuery['order']; newsOnly?: boolean };

function blank(text: string | null | undefined): string | undefined {
  return text?.trim() ? text : undefined;
}

async function run(index: DocumentIndex, query: IndexQuery | null): Promise<IndexSearchResult> {
  if (!query) return { hits: [], hasMore: false, total: 0, totalRelation: 'eq' };
  return index.search(query);
}

function envelope<T>(result: IndexSearchResult, results: T[], offset: number) {
  return {
    results,
    provider: 'local',
    // Past offset 1000 there is no next page to ask for, so none is announced.
    has_more: result.hasMore && offset + PUBLIC_LIMITS.pageSize <= PUBLIC_LIMITS.offsetMax,
    total: result.total,
    total_relation: result.totalRelation,
    offset,
  };
}

function highlightsOf(snippet: string, terms: QueryTerm[]): { start: number; end: number }[] {
  return findTermMatches(snippet, terms).map(({ start, end }) => ({ start, end }));
}

function toWebHit(hit: IndexHit, terms: QueryTerm[]): WebHit {
  const doc = hit.document;
  const snippet = hit.snippet ?? makeSnippet(doc.text || doc.title, terms);
  return {
    document_id: doc.id,
    title: doc.title,
    url: doc.url,
    snippet,
    highlights: highlightsOf(snippet, terms),
    source_domain: doc.sourceDomain,
    content_type: doc.contentType,
    document_type: doc.documentType,
    match_type: hit.matchType,
    published_at: doc.publishedAt,
    modified_at: doc.modifiedAt,
    topic: doc.topic,
    language: doc.language,
  };
}

function stringOr(value: unknown, fallback: string | null): string | null {
  return typeof value === 'string' ? value : fallback;
}

function countOf(value: unknown): number | null {
  return typeof value === 'number' && Number.isInteger(value) ? value : null;
}

function toSocialHit(hit: IndexHit, terms: QueryTerm[]): SocialHit {
  const doc = hit.document;
  const content = doc.content;
  // The excerpt works on whitespace-normalised text; the matched word is looked up in the same text.
  const text = doc.text.replace(/\s+/gu, ' ').trim();
  const focus = findTermMatches(text, terms)[0]?.start;
  const snippet = makeExcerpt(text, { focus });
  return {
    document_id: doc.id,
    url: stringOr(content.original_url, doc.url)!,
    snippet,
    highlights: highlightsOf(snippet, terms),
    author_handle: stringOr(content.author_handle, '')!,
    author_name: stringOr(content.author_name, doc.title)!,
    author_url: stringOr(content.author_url, null),
    instance: stringOr(content.instance, doc.host)!,
    created_at: stringOr(content.created_at, doc.publishedAt ?? doc.fetchedAt)!,
    edited_at: stringOr(content.edited_at, null),
    language: doc.language,
    tags: Array.isArray(content.tags) ? content.tags.filter((tag): tag is string => typeof tag === 'string') : [],
    content_warning: stringOr(content.content_warning, null),
    replies_count: countOf(content.replies_count),
    reblogs_count: countOf(content.reblogs_count),
    favourites_count: countOf(content.favourites_count),
    match_type: hit.matchType,
  };
}

async function searchWebIndex(deps: PublicSearchDeps, params: WebSearchRequest | NewsSearchRequest, page: Page): Promise<WebSearchResponse> {
  const query = toIndexQuery({ ...params, q: blank(params.q) }, { limit: PUBLIC_LIMITS.pageSize, ...page }, deps);
  const result = await run(deps.index, query);
  const terms = query?.terms ?? [];
  return envelope(result, result.hits.map((hit) => toWebHit(hit, terms)), page.offset);
}

async function searchPosts(deps: PublicSearchDeps, params: FediverseSearchRequest | SocialRequest, order: IndexQuery['order']): Promise<SocialResponse> {
  const query = toIndexQuery({ q: blank(params.q), source: params.source, max_age_months: params.max_age_months }, { limit: PUBLIC_LIMITS.pageSize, offset: params.offset, order }, deps);
  const result = await run(deps.fediverseIndex, query);
  const terms = query?.terms ?? [];
  return envelope(result, result.hits.map((hit) => toSocialHit(hit, terms)), params.offset);
}

/** POST /api/search: the web index by relevance. */
export function searchWeb(deps: PublicSearchDeps, params: WebSearchRequest): Promise<WebSearchResponse> {
  return searchWebIndex(deps, params, { offset: params.offset, order: 'relevance' });
}

/** POST /api/news: pages recognised as news, newest first. */
export function searchNews(deps: PublicSearchDeps, params: NewsSearchRequest): Promise<WebSearchResponse> {
  return searchWebIndex(deps, params, { offset: params.offset, order: 'newest', newsOnly: true });
}

/** POST /api/fediverse/search: posts by relevance. */
export function searchFediverse(deps: PublicSearchDeps, params: FediverseSearchRequest): Promise<SocialResponse> {
  return searchPosts(deps, params, 'relevance');
}

/** POST /api/social: posts newest first. */
export function searchSocial(deps: PublicSearchDeps, params: SocialRequest): Promise<SocialResponse> {
  return searchPosts(deps, params, 'newest');
}

import type { IndexHit, IndexQuery } from '../../core/index-port.ts';
import { MAX_PLANNED_TERMS, matchFilter, termAlternatives, type SearchRequest } from './query.ts';
import { exactToken, fromRecord } from './record.ts';

// Typesense refuses a filter_by of more than 100 operations (clauses plus && and ||). One term is
// one clause, so a query of more than MAX_FILTER_TERMS distinct words (possible within the 400
// characters of `q`) cannot be sent whole. Such a query sends its first MAX_FILTER_TERMS terms as
// usual and checks the others here, on the matching tokens of each candidate. Documents that
// contain forty given words are few; past LONG_QUERY_CANDIDATES the total becomes a lower bound.

/** 40 terms + at most 6 facet clauses = 46 clauses and 45 `&&`: 91 operations, below 100. */
export const MAX_FILTER_TERMS = MAX_PLANNED_TERMS;
export const LONG_QUERY_CANDIDATES = 2_000;
const PAGE = 250;

export function isLongQuery(query: IndexQuery): boolean {
  return query.terms.length > MAX_FILTER_TERMS;
}

/** The candidate pages: every record matching the first MAX_FILTER_TERMS terms and the filters. */
export function candidateRequests(query: IndexQuery, collection: string, page: number): SearchRequest {
  return {
    collection,
    q: '*',
    filter_by: matchFilter({ ...query, terms: query.terms.slice(0, MAX_FILTER_TERMS) }),
    sort_by: 'age_ts:desc,changed_ts:desc',
    exclude_fields: 'title_exact,all_exact,title_terms,host_keys',
    highlight_fields: 'none',
    highlight_full_fields: 'none',
    page,
    per_page: PAGE,
  };
}

export interface Candidates {
  records: Record<string, unknown>[];
  /** All candidates were seen (the total is exact). */
  complete: boolean;
}

export async function collectCandidates(
  query: IndexQuery,
  collection: string,
  search: (request: SearchRequest) => Promise<{ found: number; hits?: { document: Record<string, unknown> }[] }>,
): Promise<Candidates> {
  const records: Record<string, unknown>[] = [];
  for (let page = 1; records.length < LONG_QUERY_CANDIDATES; page++) {
    const result = await search(candidateRequests(query, collection, page));
    const hits = result.hits ?? [];
    records.push(...hits.map((hit) => hit.document));
    if (hits.length < PAGE || records.length >= result.found) return { records, complete: true };
  }
  return { records, complete: false };
}

/** Ranks and pages the candidates that match every term: exact hits first (relevance), or newest. */
export function pageCandidates(query: IndexQuery, candidates: Candidates): { hits: IndexHit[]; hasMore: boolean; total: number; complete: boolean } {
  const rest = query.terms.slice(MAX_FILTER_TERMS);
  const matching: IndexHit[] = [];
  for (const record of candidates.records) {
    const tokens = new Set(Array.isArray(record.terms) ? (record.terms as string[]) : []);
    if (!rest.every((term) => termAlternatives(term).some((token) => tokens.has(token)))) continue;
    const exact = query.terms.every((term) => tokens.has(exactToken(term.exact)));
    const { terms: _terms, ...stored } = record;
    matching.push({ document: fromRecord(stored), matchType: exact ? 'exact' : 'word_form' });
  }
  // Candidates arrive newest first; a stable sort keeps that order within exact and word-form hits.
  if (query.order === 'relevance') matching.sort((a, b) => Number(b.matchType === 'exact') - Number(a.matchType === 'exact'));
  const window = matching.slice(query.offset, query.offset + query.limit + 1);
  return { hits: window.slice(0, query.limit), hasMore: window.length > query.limit, total: matching.length, complete: candidates.complete };
}

import type { QueryTerm } from '../../core/analysis/index.ts';
import type { IndexQuery } from '../../core/index-port.ts';
import { baseToken, epochSeconds, exactToken, hostKey, topicKey } from './record.ts';
import { INDEX_ONLY_FIELDS } from './schema.ts';

// How an IndexQuery becomes Typesense searches (the design is in README.md of this folder).
//
// Matching is done by `filter_by` alone, so it is exact and complete: every term is one clause
// `terms:=[x<exact>, b<base>...]` (OR inside the brackets) and the clauses are joined with `&&`.
// Typesense's text query cannot express "this word OR one of its base forms" per term, so the text
// query is only used where it matches exactly the filtered set: documents in which every term
// occurs in its exact form (pass A). Word-form-only hits come from a wildcard search over the
// whole match set ordered "exact first" (pass B); skipping pass B's first `found(A) - offset`
// positions leaves exactly the word-form hits, so one multi_search answers any page.

export type SearchRequest = Record<string, string | number | boolean>;

/** A filter literal. Our values are [a-z0-9] tokens, ids and type names; a backtick cannot be escaped. */
export function literal(value: string): string {
  if (value.includes('`')) throw new Error(`a Typesense filter value cannot contain a backtick: ${JSON.stringify(value)}`);
  return `\`${value}\``;
}

export function anyOf(field: string, values: readonly string[]): string {
  const unique = [...new Set(values)];
  return unique.length === 1 ? `${field}:=${literal(unique[0])}` : `${field}:=[${unique.map(literal).join(', ')}]`;
}

export function termAlternatives(term: QueryTerm): string[] {
  return [exactToken(term.exact), ...term.bases.filter(Boolean).map(baseToken)];
}

/** The term matches in its exact form or one of its base forms, in the title or the body. */
export function termClause(term: QueryTerm, field = 'terms'): string {
  return anyOf(field, termAlternatives(term));
}

/** Every term occurs in its exact form: the documents whose match_type is `exact`. */
export function allExactClause(terms: readonly QueryTerm[]): string {
  return terms.map((term) => anyOf('terms', [exactToken(term.exact)])).join(' && ');
}

/** The filters of the port besides the terms, always restricted to searchable primary records. */
export function facetClauses(query: IndexQuery): string[] {
  const clauses = ['listed:=true'];
  if (query.documentTypes?.length) clauses.push(anyOf('document_type', query.documentTypes));
  if (query.host) clauses.push(anyOf('host_keys', [hostKey(query.host)]));
  if (query.topic?.trim()) clauses.push(anyOf('topic_key', [topicKey(query.topic)]));
  if (query.newsOnly) clauses.push('is_news:=true');
  if (query.minAgeDate) {
    const min = epochSeconds(query.minAgeDate);
    if (min === null) throw new Error(`minAgeDate is not a date: ${query.minAgeDate}`);
    // Undated records have no age_ts and so never satisfy the range (spec 4.1 rule 2).
    clauses.push(`age_ts:>=${min}`);
  }
  return clauses;
}

export function matchFilter(query: IndexQuery): string {
  return [...facetClauses(query), ...query.terms.map((term) => termClause(term))].join(' && ');
}

// Typesense's own relaxations would widen the match set beyond the German matching rules. Per-field
// parameters are strings in the API description (MultiSearchParameters: num_typos, prefix); the
// server reads every search parameter as a string anyway (src/core_api.cpp). split_join_tokens is
// not a multi_search parameter in the description, and is left out: it only runs when the query
// finds nothing, and pass A's filter admits only documents holding every word of its query.
const STRICT: SearchRequest = {
  num_typos: '0',
  typo_tokens_threshold: 0,
  drop_tokens_threshold: 0,
  prefix: 'false',
  enable_synonyms: false,
  enable_typos_for_numerical_tokens: false,
  enable_typos_for_alpha_numerical_tokens: false,
};

const RESULT_FIELDS: SearchRequest = {
  exclude_fields: INDEX_ONLY_FIELDS.join(','),
  highlight_fields: 'none',
  highlight_full_fields: 'none',
};

/**
 * Pass B's rank: exact hits first, then word-form hits with all terms in the title, then with any
 * term in the title, then the rest. Typesense allows ONE `_eval` per sort_by (src/collection.cpp:
 * "Only one sorting eval expression is allowed.", 422), so the tiers are one weighted list
 * `_eval([ (<filter>):<score>, ... ])` (src/collection_manager.cpp parse_multi_eval); a document
 * scores the score of the first filter it matches, else 0 (src/index.cpp). Only the order of the
 * word-form hits matters: B's exact hits are skipped (pass A ranks them).
 */
export function rankTiers(terms: readonly QueryTerm[]): string {
  const exact = allExactClause(terms);
  const all = terms.map((term) => termClause(term, 'title_terms')).join(' && ');
  const any = anyOf('title_terms', terms.flatMap(termAlternatives));
  return `_eval([ (${exact}):3, (${all}):2, (${any}):1 ])`;
}

export interface RelevancePlan {
  kind: 'relevance';
  /** Pass A: the all-exact hits, ranked by Typesense's text match over the exact forms. */
  exact: SearchRequest;
  /** Pass B: every hit, exact ones first; positions from found(A) on are the word-form hits. */
  all: SearchRequest;
}

export interface NewestPlan {
  kind: 'newest';
  all: SearchRequest;
}

/** Typesense parses at most 100 filter operations; long queries take the path of long-query.ts. */
export const MAX_PLANNED_TERMS = 40;

export function planSearch(query: IndexQuery, collection: string): RelevancePlan | NewestPlan {
  if (query.terms.length > MAX_PLANNED_TERMS) throw new Error(`${query.terms.length} terms exceed the ${MAX_PLANNED_TERMS} one Typesense filter can hold (long-query.ts)`);
  const page = { offset: query.offset, limit: query.limit + 1 };
  const filter = matchFilter(query);
  if (query.order === 'newest' || query.terms.length === 0) {
    return { kind: 'newest', all: { collection, q: '*', filter_by: filter, sort_by: 'age_ts:desc,changed_ts:desc', ...page, ...RESULT_FIELDS } };
  }
  const exact = allExactClause(query.terms);
  return {
    kind: 'relevance',
    exact: {
      collection,
      q: query.terms.map((term) => term.exact).join(' '),
      query_by: 'title_exact,all_exact',
      query_by_weights: '3,1',
      text_match_type: 'sum_score',
      filter_by: `${[...facetClauses(query), exact].join(' && ')}`,
      sort_by: '_text_match:desc,age_ts:desc',
      ...page,
      ...STRICT,
      ...RESULT_FIELDS,
    },
    all: {
      collection,
      q: '*',
      filter_by: filter,
      sort_by: `${rankTiers(query.terms)}:desc,age_ts:desc`,
      ...page,
      ...RESULT_FIELDS,
    },
  };
}

/** Which ids of a page have every term in its exact form (for the newest-first order). */
export function exactIdsRequest(collection: string, ids: readonly string[], terms: readonly QueryTerm[]): SearchRequest {
  return {
    collection,
    q: '*',
    filter_by: `${anyOf('id', ids)} && ${allExactClause(terms)}`,
    include_fields: 'id',
    offset: 0,
    limit: ids.length,
  };
}

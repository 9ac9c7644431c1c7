import { describe, expect, it } from 'vitest';
import { Errors } from 'typesense';
import { analyzeQuery, type QueryTerm } from '../../services/core/analysis/index.ts';
import type { IndexQuery } from '../../services/core/index-port.ts';
import { clientOptions, parseNode } from '../../services/index/typesense/client.ts';
import { isRetryable, searchResultError, translateError } from '../../services/index/typesense/errors.ts';
import { chunkRecords } from '../../services/index/typesense/importer.ts';
import {
  allExactClause,
  anyOf,
  exactIdsRequest,
  facetClauses,
  literal,
  matchFilter,
  planSearch,
  termClause,
  rankTiers,
} from '../../services/index/typesense/query.ts';
import { hostKey, topicKey } from '../../services/index/typesense/record.ts';
import { backoffDelay, withRetry, type RetryPolicy } from '../../services/index/typesense/retry.ts';
import { compileFilter } from '../helpers/typesense-node-state.ts';

// How IndexQueries become Typesense parameters, checked without a server.

const term = (exact: string, ...bases: string[]): QueryTerm => ({ text: exact, exact, bases });

function query(extra: Partial<IndexQuery> = {}): IndexQuery {
  return { terms: [term('haus', 'haus')], order: 'relevance', limit: 10, offset: 0, countBudgetMs: 50, ...extra };
}

describe('typesense filter literals', () => {
  it('wraps every value in backticks, so commas, brackets and colons stay inside the value', () => {
    expect(literal('urn:uuid:1234')).toBe('`urn:uuid:1234`');
    expect(anyOf('id', ['a,b', 'c]d'])).toBe('id:=[`a,b`, `c]d`]');
    expect(anyOf('document_type', ['pdf'])).toBe('document_type:=`pdf`');
    expect(anyOf('document_type', ['pdf', 'pdf', 'html'])).toBe('document_type:=[`pdf`, `html`]');
  });

  it('refuses a backtick, which Typesense cannot escape inside a literal', () => {
    expect(() => literal('a`b')).toThrow(/backtick/);
  });

  it('parses as the stand-in reads filter_by (values with commas and brackets stay whole)', () => {
    const matches = compileFilter(anyOf('id', ['a,b', 'c]d']), { fields: [] });
    expect(matches({ id: 'a,b' })).toBe(true);
    expect(matches({ id: 'c]d' })).toBe(true);
    expect(matches({ id: 'a' })).toBe(false);
  });
});

describe('typesense term clauses', () => {
  it('matches a term by its exact form or any base form (one clause, OR inside)', () => {
    expect(termClause(term('haeuser', 'haus'))).toBe('terms:=[`xhaeuser`, `bhaus`]');
    expect(termClause(term('haus', 'haus'))).toBe('terms:=[`xhaus`, `bhaus`]');
  });

  it('joins terms with AND', () => {
    const filter = matchFilter(query({ terms: [term('haus', 'haus'), term('see', 'see')] }));
    expect(filter).toBe('listed:=true && terms:=[`xhaus`, `bhaus`] && terms:=[`xsee`, `bsee`]');
  });

  it('hashes forms outside [a-z0-9] under their own prefix letters', () => {
    const clause = termClause(term('straße', 'strass'));
    expect(clause).toMatch(/^terms:=\[`y[0-9a-f]{20}`, `bstrass`\]$/);
    expect(termClause(term('x', 'ü'))).toMatch(/`c[0-9a-f]{20}`/);
  });

  it('keeps operators of user input out of the filter (analysis leaves letters and digits only)', () => {
    const terms = analyzeQuery('haus` || listed:=false && (x)');
    const filter = matchFilter(query({ terms }));
    expect(filter.startsWith('listed:=true && ')).toBe(true);
    for (const t of terms) expect(t.exact).toMatch(/^[\p{L}\p{N}]+$/u);
    expect(filter).not.toContain('listed:=false');
  });

  it('describes all-exact as every term in its exact form', () => {
    expect(allExactClause([term('haus', 'haus'), term('see', 'see')])).toBe('terms:=`xhaus` && terms:=`xsee`');
  });
});

describe('typesense facet filters', () => {
  it('always restricts to listed records (no duplicates, aliases or meta records)', () => {
    expect(facetClauses(query())).toEqual(['listed:=true']);
  });

  it('filters by document types with OR', () => {
    expect(facetClauses(query({ documentTypes: ['pdf', 'html'] }))).toContain('document_type:=[`pdf`, `html`]');
  });

  it('filters by host through the hashed host keys (a host matches itself and its subdomains)', () => {
    expect(facetClauses(query({ host: 'stadt-a.example' }))).toContain(`host_keys:=\`${hostKey('stadt-a.example')}\``);
    expect(hostKey('Stadt-A.example')).toBe(hostKey('stadt-a.example'));
    expect(hostKey('stadta.example')).not.toBe(hostKey('stadt-a.example'));
  });

  it('filters by topic case-insensitively', () => {
    expect(facetClauses(query({ topic: ' Politik ' }))).toContain(`topic_key:=\`${topicKey('politik')}\``);
  });

  it('filters news and age (age in epoch seconds; undated records have no age and never match)', () => {
    const clauses = facetClauses(query({ newsOnly: true, minAgeDate: '2026-01-01' }));
    expect(clauses).toContain('is_news:=true');
    expect(clauses).toContain(`age_ts:>=${Date.UTC(2026, 0, 1) / 1000}`);
  });

  it('refuses an age that is no date rather than filtering on nonsense', () => {
    expect(() => facetClauses(query({ minAgeDate: 'gestern' }))).toThrow(/not a date/);
  });
});

describe('typesense search plans', () => {
  it('turns off every relaxation of the text query (typos, prefixes, dropped words, synonyms)', () => {
    const plan = planSearch(query(), 'fundus_web');
    if (plan.kind !== 'relevance') throw new Error('expected a relevance plan');
    expect(plan.exact).toMatchObject({
      collection: 'fundus_web',
      q: 'haus',
      query_by: 'title_exact,all_exact',
      num_typos: '0',
      typo_tokens_threshold: 0,
      drop_tokens_threshold: 0,
      prefix: 'false',
      enable_synonyms: false,
      filter_by: 'listed:=true && terms:=`xhaus`',
      sort_by: '_text_match:desc,age_ts:desc',
    });
  });

  it('asks both passes for one hit more than the page, from the same offset', () => {
    const plan = planSearch(query({ limit: 5, offset: 20 }), 'fundus_web');
    if (plan.kind !== 'relevance') throw new Error('expected a relevance plan');
    expect([plan.exact.offset, plan.exact.limit, plan.all.offset, plan.all.limit]).toEqual([20, 6, 20, 6]);
  });

  it('orders pass B exact first, then by title tiers, then newest, with ONE weighted _eval (src/collection.cpp allows one)', () => {
    const terms = [term('haus', 'haus'), term('see', 'see')];
    const plan = planSearch(query({ terms }), 'fundus_web');
    if (plan.kind !== 'relevance') throw new Error('expected a relevance plan');
    expect(plan.all.q).toBe('*');
    expect(plan.all.sort_by).toBe(`${rankTiers(terms)}:desc,age_ts:desc`);
    expect(String(plan.all.sort_by).match(/_eval\(/g)).toHaveLength(1);
    expect(rankTiers(terms)).toBe(
      '_eval([ (terms:=`xhaus` && terms:=`xsee`):3, (title_terms:=[`xhaus`, `bhaus`] && title_terms:=[`xsee`, `bsee`]):2, (title_terms:=[`xhaus`, `bhaus`, `xsee`, `bsee`]):1 ])',
    );
  });

  it('lists newest first without terms, and for the news order', () => {
    expect(planSearch(query({ terms: [], order: 'newest', newsOnly: true }), 'fundus_web')).toMatchObject({
      kind: 'newest',
      all: { q: '*', filter_by: 'listed:=true && is_news:=true', sort_by: 'age_ts:desc,changed_ts:desc' },
    });
    expect(planSearch(query({ order: 'newest' }), 'c').kind).toBe('newest');
  });

  it('never returns the large index-only fields with hits', () => {
    const plan = planSearch(query(), 'fundus_web');
    if (plan.kind !== 'relevance') throw new Error('expected a relevance plan');
    for (const request of [plan.exact, plan.all]) {
      expect(String(request.exclude_fields).split(',')).toEqual(expect.arrayContaining(['terms', 'all_exact', 'title_terms']));
      expect(request.highlight_fields).toBe('none');
    }
  });

  it('asks which ids of a page are exact matches', () => {
    expect(exactIdsRequest('c', ['urn:uuid:a', 'urn:uuid:b'], [term('haus', 'haus')])).toMatchObject({
      filter_by: 'id:=[`urn:uuid:a`, `urn:uuid:b`] && terms:=`xhaus`',
      include_fields: 'id',
      limit: 2,
    });
  });
});

describe('typesense nodes', () => {
  it('reads every node of TYPESENSE_NODES', () => {
    expect(parseNode('https://ts-0.internal:8108')).toEqual({ host: 'ts-0.internal', port: 8108, protocol: 'https' });
    expect(parseNode('http://10.0.0.5')).toEqual({ host: '10.0.0.5', port: 80, protocol: 'http' });
    expect(parseNode('https://search.example/ts/')).toEqual({ host: 'search.example', port: 443, protocol: 'https', path: '/ts' });
    expect(() => parseNode('ts-0:8108')).toThrow(/http or https|not a URL/);
  });

  it('gives the client all nodes, health checks and enough retries to reach each node', () => {
    const options = clientOptions({ nodes: ['http://a:8108', 'http://b:8108', 'http://c:8108'], apiKey: 'k' });
    expect(options.nodes).toHaveLength(3);
    expect(options.numRetries).toBe(4);
    expect(options.healthcheckIntervalSeconds).toBe(15);
    expect(options.connectionTimeoutSeconds).toBe(5);
  });
});

describe('typesense errors and the retry policy with a stand-in transport', () => {
  const fast: RetryPolicy = { attempts: 4, baseDelayMs: 100, maxDelayMs: 250, sleep: async () => {}, random: () => 1 };

  it('retries server faults and network failures only', () => {
    expect(isRetryable(new Errors.ServerError('x', undefined, 503))).toBe(true);
    expect(isRetryable(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isRetryable(new Errors.ObjectNotFound('x', undefined, 404))).toBe(false);
    expect(isRetryable(new Errors.RequestMalformed('x', undefined, 400))).toBe(false);
    expect(isRetryable(new Errors.RequestUnauthorized('x', undefined, 401))).toBe(false);
    expect(isRetryable(new Error('programming error'))).toBe(false);
  });

  it('retries an import whose failed lines are all server faults, not one with a rejected line', () => {
    const payload = { documentsInJSONLFormat: '', options: {}, failedItems: [], successCount: 0 };
    const lagging = new Errors.ImportError('x', [{ success: true }, { success: false, code: 503, error: 'Not Ready or Lagging' }] as never, payload);
    const invalid = new Errors.ImportError('x', [{ success: false, code: 400, error: 'Field `kind` not found' }] as never, payload);
    expect(isRetryable(lagging)).toBe(true);
    expect(isRetryable(invalid)).toBe(false);
  });

  it('backs off exponentially up to a ceiling, with full jitter', () => {
    expect([1, 2, 3, 4].map((attempt) => backoffDelay({ ...fast, random: () => 1 }, attempt))).toEqual([100, 200, 250, 250]);
    expect(backoffDelay({ ...fast, random: () => 0.5 }, 2)).toBe(100);
  });

  it('gives up after the last attempt and throws the last error', async () => {
    let calls = 0;
    const failing = withRetry(fast, async () => {
      calls++;
      throw new Errors.ServerError(`fail ${calls}`, undefined, 503);
    });
    await expect(failing).rejects.toThrow('fail 4');
    expect(calls).toBe(4);
  });

  it('stops at once on a client error', async () => {
    let calls = 0;
    await expect(
      withRetry(fast, async () => {
        calls++;
        throw new Errors.ObjectUnprocessable('bad', undefined, 422);
      }),
    ).rejects.toThrow('bad');
    expect(calls).toBe(1);
  });

  it('translates typed errors into the core error table and keeps the cause', () => {
    const missing = new Errors.ObjectNotFound('gone', undefined, 404);
    expect(translateError(missing, { what: 'get', notFound: 'DOCUMENT_NOT_FOUND' })).toMatchObject({ code: 'DOCUMENT_NOT_FOUND', cause: missing });
    expect(translateError(missing, { what: 'search' })).toMatchObject({ code: 'INDEX_UNAVAILABLE', status: 503 });
    expect(translateError(new Errors.RequestUnauthorized('no', undefined, 401), { what: 'x' }).message).toMatch(/TYPESENSE_API_KEY/);
    expect(translateError(new Errors.RequestMalformed('bad', undefined, 400), { what: 'x' })).toMatchObject({ code: 'INTERNAL', status: 500 });
    expect(translateError(new Errors.ServerError('down', undefined, 503), { what: 'x' })).toMatchObject({ code: 'INDEX_UNAVAILABLE' });
  });

  it('turns per-search errors of a multi_search answer into the typed errors', () => {
    expect(searchResultError({ code: 404, error: 'Not found.' })).toBeInstanceOf(Errors.ObjectNotFound);
    expect(searchResultError({ code: 400, error: 'Bad filter' })).toBeInstanceOf(Errors.RequestMalformed);
    expect(searchResultError({ code: 503, error: 'Lagging' })).toBeInstanceOf(Errors.ServerError);
  });
});

describe('typesense import batches', () => {
  it('cuts batches by count and by size', () => {
    const records = Array.from({ length: 5 }, (_, i) => ({ id: String(i), text: 'x'.repeat(100) }));
    expect(chunkRecords(records, 2, 1_000_000).map((c) => c.length)).toEqual([2, 2, 1]);
    expect(chunkRecords(records, 100, 250).map((c) => c.length)).toEqual([2, 2, 1]);
    expect(chunkRecords([{ id: 'big', text: 'x'.repeat(1000) }], 100, 10)).toHaveLength(1); // an oversized record still goes alone
  });
});

describe('typesense filter size', () => {
  const operations = (filter: string) => (filter.match(/&&|\|\|/g)?.length ?? 0) * 2 + 1;

  it('keeps every filter and _eval of the longest plannable query below Typesense limit of 100 operations', () => {
    const terms = Array.from({ length: 40 }, (_, i) => term(`w${i}`, `w${i}`));
    const plan = planSearch(
      query({ terms, documentTypes: ['pdf', 'html'], host: 'a.example', topic: 'Politik', newsOnly: true, minAgeDate: '2026-01-01' }),
      'c',
    );
    if (plan.kind !== 'relevance') throw new Error('expected a relevance plan');
    for (const filter of [plan.exact.filter_by, plan.all.filter_by, allExactClause(terms)]) {
      expect(operations(String(filter))).toBeLessThanOrEqual(100);
    }
    // Each filter of the weighted _eval is parsed on its own (src/collection.cpp, one filter tree each).
    for (const item of rankTiers(terms).slice('_eval(['.length, -'])'.length).split(/\):\d+,?/).filter((part) => part.trim())) {
      expect(operations(item.trim().replace(/^\(/, ''))).toBeLessThanOrEqual(100);
    }
  });

  it('refuses to plan more terms than one filter holds (the adapter takes the long-query path)', () => {
    const terms = Array.from({ length: 41 }, (_, i) => term(`w${i}`, `w${i}`));
    expect(() => planSearch(query({ terms }), 'c')).toThrow(/41 terms/);
  });
});

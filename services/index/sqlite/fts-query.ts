import { createHash } from 'node:crypto';
import { BoundedCache } from '../../core/analysis/bounded-cache.ts';
import type { QueryTerm } from '../../core/analysis/index.ts';
import type { StoredDocument } from '../../core/document.ts';
import { hostSuffixes } from '../../core/urls.ts';
import type { IndexQuery } from '../../core/index-port.ts';

// Filters travel inside the FTS5 match as tokens of the `facets` column, so that FTS5 intersects
// them with the terms' posting lists instead of SQLite checking every matching row afterwards.

function hashed(value: string): string {
  return createHash('sha1').update(value).digest('hex').slice(0, 16);
}

export const ALL_DOCUMENTS_TOKEN = 'a_all';

export function typeToken(type: string): string {
  return `t_${type}`;
}

export function hostToken(host: string): string {
  return `h_${hashed(host)}`;
}

export function topicToken(topic: string): string {
  return `p_${hashed(topic.trim().toLowerCase())}`;
}

export const NEWS_TOKEN = 'n_news';

/**
 * The host and topic tokens of the documents written last, by host or topic: one SHA-1 each per
 * new value instead of three or four per document (a tenth of the writer's thread's JavaScript).
 */
const recentFacetTokens = new BoundedCache<string>(50_000);

export function facetsOf(doc: StoredDocument): string {
  const tokens = [ALL_DOCUMENTS_TOKEN, typeToken(doc.documentType)];
  const hostTokens = recentFacetTokens.get(`h${doc.host}`, () => hostSuffixes(doc.host).map(hostToken).join(' '));
  if (hostTokens) tokens.push(hostTokens);
  if (doc.topic) tokens.push(recentFacetTokens.get(`p${doc.topic}`, () => topicToken(doc.topic!)));
  if (doc.isNews) tokens.push(NEWS_TOKEN);
  return tokens.join(' ');
}

function quote(token: string): string {
  return `"${token.replaceAll('"', '""')}"`;
}

/** One phrase: a token in the exact columns or in the base columns (what score lists hold, score-lists.ts). */
export function phraseMatch(side: 'exact' | 'base', token: string): string {
  return `${side === 'exact' ? '{title_exact body_exact}' : '{title_base body_base}'} : ${quote(token)}`;
}

/** One query term: its exact form in the exact columns, or one of its base forms in the base columns. */
export function termMatch(term: QueryTerm): string {
  const bases = [...new Set(term.bases)].map(quote).join(' OR ');
  const exact = `{title_exact body_exact} : ${quote(term.exact)}`;
  return bases ? `(${exact} OR {title_base body_base} : (${bases}))` : `(${exact})`;
}

/** The FTS5 MATCH expression of a query: every term (exact or base form) AND every filter. */
export function buildMatch(query: IndexQuery): string {
  const parts = query.terms.map(termMatch);
  if (query.documentTypes?.length) parts.push(`facets : (${query.documentTypes.map((t) => quote(typeToken(t))).join(' OR ')})`);
  if (query.host) parts.push(`facets : ${quote(hostToken(query.host))}`);
  if (query.topic) parts.push(`facets : ${quote(topicToken(query.topic))}`);
  if (query.newsOnly) parts.push(`facets : ${quote(NEWS_TOKEN)}`);
  if (parts.length === 0 || query.terms.length === 0) parts.unshift(`facets : ${quote(ALL_DOCUMENTS_TOKEN)}`);
  return parts.join(' AND ');
}

/** Matches documents in which every term occurs in its exact (folded) form. */
export function buildExactMatch(terms: QueryTerm[]): string {
  return terms.map((term) => `{title_exact body_exact} : ${quote(term.exact)}`).join(' AND ');
}

/** Matches documents with at least one form of a query word in the title. */
export function buildTitleMatch(terms: QueryTerm[]): string {
  const forms = [...new Set(terms.flatMap((term) => [term.exact, ...term.bases]))].map(quote);
  return `{title_exact title_base} : (${forms.join(' OR ')})`;
}

import { availableParallelism } from 'node:os';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { Worker } from 'node:worker_threads';
import { analyzeQuery } from '../../core/analysis/index.ts';
import type { IndexQuery } from '../../core/index-port.ts';
import { hostSuffixes } from '../../core/urls.ts';
import { termMatch } from './fts-query.ts';
import { siblingUrl } from './sibling.ts';

// Head-term lists: for every query word that matches many documents, its first ranks in bm25
// order and its count, computed once after ingestion. FTS5 scores every match of a query (about
// 1.6 µs each) and scans whole posting lists for the idf, so a common word costs tens to hundreds
// of milliseconds however few results are shown; a stored list answers the same single-word query,
// with the same order, from one row. The lists hold only while the index is unchanged: every write
// batch bumps `generation`, and a reader uses the lists only if they were built at that generation.
// Filters are applied to a list in rank order, which keeps the order exact as long as enough
// documents of the list pass them; otherwise, and for every other query, FTS5 ranks as before.

/** Ranks kept per word: deep enough for offset 1000 with limit 50, plus one to tell `has_more`. */
export const HEAD_LIST_LENGTH = 1051;
/** Words matching fewer documents rank fast enough in FTS5 (under about 2 ms). */
export const HEAD_TERM_MIN_MATCHES = 1000;

export interface HeadList {
  seqs: Int32Array;
  total: number;
}

export interface HeadTermsBuild {
  words: number;
  lists: number;
  seconds: number;
}

const TEXT_COLUMNS = "'title_exact', 'body_exact', 'title_base', 'body_base'";

/** Ranked by FTS5, one list: its first HEAD_LIST_LENGTH row ids and its total; null below `minMatches`. */
export function rankHeadTerm(db: DatabaseSync, expression: string, minMatches: number): { expression: string; list: HeadList | null } {
  const total = Number((db.prepare('SELECT count(*) AS n FROM documents_fts WHERE documents_fts MATCH ?').get(expression) as { n: number }).n);
  if (total < minMatches) return { expression, list: null };
  const ranked = db.prepare('SELECT rowid FROM documents_fts WHERE documents_fts MATCH ? ORDER BY rank, rowid LIMIT ?').all(expression, HEAD_LIST_LENGTH);
  return { expression, list: { seqs: Int32Array.from(ranked as { rowid: number }[], (row) => row.rowid), total } };
}

/** The match expressions of every word that occurs in at least `minMatches` documents (one column suffices). */
function headExpressions(db: DatabaseSync, minMatches: number): string[] {
  db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.head_vocab USING fts5vocab(main, documents_fts, 'col')`);
  const words = db.prepare(`SELECT term FROM temp.head_vocab WHERE col IN (${TEXT_COLUMNS}) GROUP BY term HAVING max(doc) >= ?`).all(minMatches) as { term: string }[];
  const expressions = new Set<string>();
  for (const { term } of words) {
    // The index holds folded words; a word analysed again gives the expression its queries build.
    const terms = analyzeQuery(term);
    if (terms.length === 1) expressions.add(termMatch(terms[0]));
  }
  return [...expressions];
}

/** Below this many words the lists are ranked on the calling thread (tests, small collections). */
const WORDS_PER_THREAD = 200;

/**
 * Rebuilds every list, ranking on `threads` worker threads with their own read connections, and
 * writes them in one transaction together with the generation they belong to.
 */
export async function buildHeadTerms(db: DatabaseSync, file: string, options: { minMatches?: number; threads?: number } = {}): Promise<HeadTermsBuild> {
  const started = performance.now();
  const minMatches = options.minMatches ?? HEAD_TERM_MIN_MATCHES;
  const expressions = headExpressions(db, minMatches);
  const threads = file === ':memory:' ? 1 : Math.min(expressions.length, options.threads ?? Math.min(availableParallelism(), Math.ceil(expressions.length / WORDS_PER_THREAD)));
  const ranked: { expression: string; list: HeadList | null }[] = [];
  if (threads <= 1) {
    for (const expression of expressions) ranked.push(rankHeadTerm(db, expression, minMatches));
  } else {
    const url = siblingUrl('head-terms-worker');
    await Promise.all(
      Array.from({ length: threads }, (_, shard) => {
        const worker = new Worker(url, { workerData: { file, minMatches, expressions: expressions.filter((_, i) => i % threads === shard) } });
        worker.on('message', (result: { expression: string; list: HeadList | null }) => ranked.push(result));
        return new Promise<void>((resolve, reject) => {
          worker.on('error', reject);
          worker.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`head-term worker exited with ${code}`))));
        });
      }),
    );
  }
  const insert = db.prepare('INSERT OR REPLACE INTO head_terms (expression, total, seqs) VALUES (?, ?, ?)');
  db.exec('BEGIN IMMEDIATE');
  try {
    db.exec('DELETE FROM head_terms');
    for (const { expression, list } of ranked) if (list) insert.run(expression, list.total, new Uint8Array(list.seqs.buffer, list.seqs.byteOffset, list.seqs.byteLength));
    db.prepare(`INSERT OR REPLACE INTO meta (key, value) VALUES ('head_terms_generation', (SELECT value FROM meta WHERE key = 'generation'))`).run();
    db.exec('COMMIT');
  } catch (error) {
    db.exec('ROLLBACK');
    throw error;
  }
  return { words: expressions.length, lists: ranked.filter((r) => r.list).length, seconds: (performance.now() - started) / 1000 };
}

/** The stored list of a one-word query, if the lists are as new as the index. */
export function readHeadList(statement: (sql: string) => StatementSync, expression: string): HeadList | null {
  const row = statement(
    `SELECT h.total, h.seqs FROM head_terms h
     WHERE h.expression = ? AND (SELECT value FROM meta WHERE key = 'generation') IS (SELECT value FROM meta WHERE key = 'head_terms_generation')`,
  ).get(expression) as { total: number; seqs: Uint8Array } | undefined;
  if (!row) return null;
  // Copy: a BLOB's bytes need not be aligned for an Int32Array view.
  const bytes = row.seqs.slice();
  return { seqs: new Int32Array(bytes.buffer, 0, bytes.byteLength / 4), total: Number(row.total) };
}

export interface FacetRow {
  seq: number;
  document_type: string;
  host: string;
  topic: string | null;
  is_news: number;
  age_date: string | null;
}

export function hasFilters(query: IndexQuery): boolean {
  return Boolean(query.documentTypes?.length || query.host || query.topic || query.newsOnly || query.minAgeDate);
}

/** The same filters as the FTS5 facet tokens and the age condition of the ranked query. */
export function passesFilters(row: FacetRow, query: IndexQuery): boolean {
  if (query.documentTypes?.length && !query.documentTypes.includes(row.document_type as never)) return false;
  if (query.host && !hostSuffixes(row.host).includes(query.host)) return false;
  if (query.topic && row.topic?.trim().toLowerCase() !== query.topic.trim().toLowerCase()) return false;
  if (query.newsOnly && row.is_news !== 1) return false;
  if (query.minAgeDate && !(row.age_date && row.age_date >= query.minAgeDate)) return false;
  return true;
}

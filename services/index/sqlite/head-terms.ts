import { availableParallelism } from 'node:os';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { Worker } from 'node:worker_threads';
import { analyzeQuery, type QueryTerm } from '../../core/analysis/index.ts';
import type { IndexQuery } from '../../core/index-port.ts';
import { ftsSchemaOf } from './fts-file.ts';
import { termMatch } from './fts-query.ts';
import { siblingUrl } from './sibling.ts';

// Head-term lists ("champion lists", Manning et al., IR book 7.1.3): for every query word that
// matches many documents, its first ranks and its count, computed once
// after ingestion. A one-word query without filters, the most common kind, is answered from one
// row: the list is a prefix of FTS5's own order. Other queries rank from the score lists
// (score-lists.ts), which are built in the same step.
// The lists hold only while the index is unchanged: every write batch bumps `generation`, and a
// reader uses the lists only if they were built at that generation; otherwise FTS5 answers.

/** Ranks kept per word: deep enough for offset 1000 with limit 50, plus one to tell `has_more`. */
export const HEAD_LIST_LENGTH = 1051;
/**
 * Ranks kept for the most frequent words: every page the API allows (offset 10000, limit 50, plus
 * one). Ranking such a word at query time walks over 100k postings; 40 KB a word spares it
 * (at a million documents, about 1700 words: 70 MB).
 */
export const DEEP_HEAD_LIST_LENGTH = 10_051;
export const DEEP_HEAD_MIN_MATCHES = 50_000;
/**
 * Words matching fewer documents rank fast enough in FTS5 (1000 matches: about 2 ms); in large
 * collections the bar rises to half a percent of the documents, so that building the lists stays a
 * few minutes per million documents.
 */
export function headTermMinMatches(documents: number): number {
  return Math.max(1000, Math.round(documents / 200));
}

export interface HeadList {
  seqs: Int32Array;
  total: number;
}

export interface HeadTermsBuild {
  minMatches: number;
  words: number;
  lists: number;
  seconds: number;
}

const TEXT_COLUMNS = "'title_exact', 'body_exact', 'title_base', 'body_base'";

/** Ranked by FTS5, one list: its first HEAD_LIST_LENGTH row ids and its total; null below `minMatches`. */
export function rankHeadTerm(db: DatabaseSync, expression: string, minMatches: number): { expression: string; list: HeadList | null } {
  const total = Number((db.prepare('SELECT count(*) AS n FROM documents_fts WHERE documents_fts MATCH ?').get(expression) as { n: number }).n);
  if (total < minMatches) return { expression, list: null };
  const ranked = db.prepare('SELECT rowid FROM documents_fts WHERE documents_fts MATCH ? ORDER BY rank, rowid LIMIT ?').all(expression, HEAD_LIST_LENGTH) as {
    rowid: number;
  }[];
  return { expression, list: { seqs: Int32Array.from(ranked, (row) => row.rowid), total } };
}

/**
 * Index words (tokens) that may match at least `minMatches` documents: read from the score lists
 * when they are fresh (their document counts are at hand), else those that occur in at least
 * `minMatches` documents in one column, from a pass over the whole FTS5 index.
 */
export type HeadWordSource = (minMatches: number) => string[];

/** The match expressions (with their query terms) of the candidate words; words that match fewer documents get no list later. */
function headExpressions(db: DatabaseSync, file: string, minMatches: number, source: HeadWordSource | undefined): Map<string, QueryTerm> {
  let words: string[];
  if (source) {
    words = source(minMatches);
  } else {
    db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.head_vocab USING fts5vocab(${ftsSchemaOf(file)}, documents_fts, 'col')`);
    const rows = db.prepare(`SELECT term FROM temp.head_vocab WHERE col IN (${TEXT_COLUMNS}) GROUP BY term HAVING max(doc) >= ?`).all(minMatches) as { term: string }[];
    words = rows.map((row) => row.term);
  }
  const expressions = new Map<string, QueryTerm>();
  for (const term of words) {
    // The index holds folded words; a word analysed again gives the expression its queries build.
    const terms = analyzeQuery(term);
    if (terms.length === 1) expressions.set(termMatch(terms[0]), terms[0]);
  }
  return expressions;
}

/** Ranks one word from the score lists: its first row ids (as many as it may keep) and its total. */
export type HeadTermRanker = (term: QueryTerm) => { seqs: number[]; total: number } | null;

/** The stored list of a ranked word: as deep as its count earns, none below `minMatches`. */
export function headListOf(page: ReturnType<HeadTermRanker>, minMatches: number, deepMinMatches: number): HeadList | null {
  if (!page || page.total < minMatches) return null;
  const length = page.total >= deepMinMatches ? DEEP_HEAD_LIST_LENGTH : HEAD_LIST_LENGTH;
  return { seqs: Int32Array.from(page.seqs.slice(0, length)), total: page.total };
}

/** What a head-term worker is given: its share of the words, ranked from the score lists when `fromLists`, else by FTS5. */
export interface HeadTermsShare {
  file: string;
  minMatches: number;
  deepMinMatches: number;
  fromLists: boolean;
  words: [expression: string, term: QueryTerm][];
}

/** Below this many words the lists are ranked on the calling thread (tests, small collections). */
const WORDS_PER_THREAD = 200;

/**
 * Rebuilds every list — from the score lists when there are any (`ranker`), else ranked by FTS5 on
 * `threads` worker threads with their own read connections — and writes them in one transaction
 * together with the generation they belong to.
 */
export async function buildHeadTerms(
  db: DatabaseSync,
  file: string,
  options: { minMatches?: number; deepMinMatches?: number; threads?: number; ranker?: HeadTermRanker; words?: HeadWordSource } = {},
): Promise<HeadTermsBuild> {
  const started = performance.now();
  const documents = Number((db.prepare('SELECT count(*) AS n FROM documents WHERE duplicate_of IS NULL').get() as { n: number }).n);
  const minMatches = options.minMatches ?? headTermMinMatches(documents);
  const terms = headExpressions(db, file, minMatches, options.words);
  const expressions = [...terms.keys()];
  const threads = file === ':memory:' ? 1 : Math.min(expressions.length, options.threads ?? Math.min(availableParallelism(), Math.ceil(expressions.length / WORDS_PER_THREAD)));
  const deepMinMatches = options.deepMinMatches ?? DEEP_HEAD_MIN_MATCHES;
  const ranked: { expression: string; list: HeadList | null }[] = [];
  if (threads <= 1 && options.ranker) {
    for (const [expression, term] of terms) ranked.push({ expression, list: headListOf(options.ranker(term), minMatches, deepMinMatches) });
  } else if (threads <= 1) {
    for (const expression of expressions) ranked.push(rankHeadTerm(db, expression, minMatches));
  } else {
    // Each worker opens its own reader (and, with score lists, its own list searcher).
    const url = siblingUrl('head-terms-worker');
    const words = [...terms];
    await Promise.all(
      Array.from({ length: threads }, (_, shard) => {
        const share: HeadTermsShare = { file, minMatches, deepMinMatches, fromLists: Boolean(options.ranker), words: words.filter((_, i) => i % threads === shard) };
        const worker = new Worker(url, { workerData: share });
        worker.on('message', (result: { expression: string; list: HeadList | null }) => ranked.push(result));
        return new Promise<void>((resolve, reject) => {
          worker.on('error', reject);
          worker.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`head-term worker exited with ${code}`))));
        });
      }),
    );
  }
  const insert = db.prepare('INSERT OR REPLACE INTO head_terms (expression, total, seqs, scores) VALUES (?, ?, ?, ?)');
  // The layout keeps a scores column that nothing reads any more: it is left empty.
  const noScores = new Uint8Array(0);
  db.exec('BEGIN IMMEDIATE');
  try {
    db.exec('DELETE FROM head_terms');
    for (const { expression, list } of ranked) if (list) insert.run(expression, list.total, new Uint8Array(list.seqs.buffer, list.seqs.byteOffset, list.seqs.byteLength), noScores);
    db.prepare(`INSERT OR REPLACE INTO meta (key, value) VALUES ('head_terms_generation', (SELECT value FROM meta WHERE key = 'generation'))`).run();
    db.exec('COMMIT');
  } catch (error) {
    db.exec('ROLLBACK');
    throw error;
  }
  return { minMatches, words: expressions.length, lists: ranked.filter((r) => r.list).length, seconds: (performance.now() - started) / 1000 };
}

/** The stored list of a one-word query, if the lists are as new as the index. */
export function readHeadList(statement: (sql: string) => StatementSync, expression: string): HeadList | null {
  const row = statement(
    `SELECT h.total, h.seqs FROM head_terms h
     WHERE h.expression = ? AND (SELECT value FROM meta WHERE key = 'generation') IS (SELECT value FROM meta WHERE key = 'head_terms_generation')`,
  ).get(expression) as { total: number; seqs: Uint8Array } | undefined;
  if (!row) return null;
  // A copy: a BLOB's bytes need not be aligned for a typed-array view.
  const seqs = row.seqs.slice();
  return { seqs: new Int32Array(seqs.buffer, 0, seqs.byteLength / 4), total: Number(row.total) };
}

export function hasFilters(query: IndexQuery): boolean {
  return Boolean(query.documentTypes?.length || query.host || query.topic || query.newsOnly || query.minAgeDate);
}

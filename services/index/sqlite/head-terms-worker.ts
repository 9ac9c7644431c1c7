// Worker thread of the head-term build (head-terms.ts): ranks its share of the words — from the
// score lists on its own reader when they are fresh, else by FTS5 on its own read-only
// connection — and sends each list back; the main thread writes them.
// Imports use .ts extensions so this file runs from source (Node 24 strips types) and compiled.
import { parentPort, workerData } from 'node:worker_threads';
import { openIndexReader } from './fts-file.ts';
import { headListOf, rankHeadTerm, type HeadTermsShare } from './head-terms.ts';
import { SqliteIndex } from './sqlite-index.ts';

const { file, words, minMatches, deepMinMatches, fromLists } = workerData as HeadTermsShare;
// Each word is ranked once; only base forms that several words share are read again: small caches
// (a reader's defaults, 208 MiB of lists, blocks and frequencies, made the build's peak memory).
const CACHE_BYTES = 16 * 2 ** 20;
const index = fromLists ? new SqliteIndex({ file, readOnly: true, listCacheBytes: CACHE_BYTES, blockCacheBytes: CACHE_BYTES, frequencyCacheBytes: CACHE_BYTES }) : null;
const ranker = index?.headTermRanker(deepMinMatches) ?? null;
if (ranker) {
  for (const [expression, term] of words) parentPort!.postMessage({ expression, list: headListOf(ranker(term), minMatches, deepMinMatches) });
} else {
  const db = openIndexReader(file);
  for (const [expression] of words) parentPort!.postMessage(rankHeadTerm(db, expression, minMatches));
  db.close();
}
index?.closeSync();

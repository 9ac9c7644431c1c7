// Quick re-ranking of the quality queries with other bm25 column weights, for trying a weighting
// before ingesting again: seconds instead of minutes.
//
//   node_modules/.bin/node scripts/bench/quality.ts --keep            # prints "kept DIR" once
//   node_modules/.bin/node scripts/bench/quality-rank.ts DIR 1,0.01,10,1,0 1,0,10,1,0 [--misses FILE]
//
// DIR is a folder kept by quality.ts (its index, queries.jsonl and the corpus truth it was made
// from). Each weight list (title_exact, body_exact, title_base, body_base, facets; schema.ts) ranks
// every query by FTS5's own bm25 order over the kept index — the order the embedded index answers
// with — and prints the same figures as quality.ts: key terms recall@10 and MRR@10, word forms
// found in the top 50 with match_type word_form (not every word in its exact form), compound heads
// and modifiers @10. With the weights of schema.ts it gives quality.ts's Fundus row. --misses FILE
// writes the missed queries of each weight list to FILE.<weights>.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openIndexReader } from '../../services/index/sqlite/fts-file.ts';
import { analyzeQuery } from '../../services/core/analysis/index.ts';
import { buildExactMatch, buildMatch } from '../../services/index/sqlite/fts-query.ts';
import { CORPUS_DIR } from './analysis-corpus.ts';
import { scriptArgs } from './lib/args.ts';

const { values, positionals } = scriptArgs(import.meta.filename, { allowPositionals: true, options: { corpus: { type: 'string', default: CORPUS_DIR }, misses: { type: 'string' } } });
const [dir, ...weightLists] = positionals;
if (!dir || weightLists.length === 0) throw new Error('usage: quality-rank.ts DIR WEIGHTS... (WEIGHTS: five numbers, comma-separated)');

interface Truth { path: string; url: string; dup_group: string | null; near_dup_group: string | null }
type Kind = 'key' | 'word_form' | 'head' | 'modifier';

const db = openIndexReader(join(dir, 'data/index.sqlite'));
const seqOfId = new Map<string, number>();
const seqOfUrl = new Map<string, number>();
for (const row of db.prepare('SELECT seq, id, url FROM documents').all() as { seq: number; id: string; url: string }[]) {
  seqOfId.set(row.id, row.seq);
  seqOfUrl.set(row.url, row.seq);
}
for (const row of db.prepare('SELECT url, document_id FROM aliases').all() as { url: string; document_id: string }[]) seqOfUrl.set(row.url, seqOfId.get(row.document_id)!);

// The same relevance as quality.ts: the document, or a copy the truth puts in its duplicate group.
const truth = readFileSync(join(values.corpus as string, 'truth.jsonl'), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Truth);
const groupOf = (entry: Truth): string => entry.dup_group ?? entry.near_dup_group ?? entry.url;
const seqsOfGroup = new Map<string, Set<number>>();
const groupOfSeq = new Map<number, string>();
const entryOfPath = new Map<string, Truth>();
for (const entry of truth) {
  entryOfPath.set(entry.path, entry);
  const seq = seqOfUrl.get(entry.url);
  if (seq === undefined) continue;
  const group = seqsOfGroup.get(groupOf(entry)) ?? new Set<number>();
  group.add(seq);
  seqsOfGroup.set(groupOf(entry), group);
  if (!groupOfSeq.has(seq)) groupOfSeq.set(seq, groupOf(entry));
}

const kindOf = (qid: string): Kind => (qid.startsWith('key:') ? 'key' : qid.startsWith('wf') ? 'word_form' : qid.startsWith('head:') ? 'head' : 'modifier');
const queries = readFileSync(join(dir, 'queries.jsonl'), 'utf8').split('\n').filter(Boolean).map((line) => {
  const { qid, q } = JSON.parse(line) as { qid: string; q: string };
  const kind = kindOf(qid);
  const target = qid.slice(qid.indexOf(':') + 1);
  let relevant: Set<number>;
  if (kind === 'key' || kind === 'word_form') relevant = seqsOfGroup.get(groupOf(entryOfPath.get(target)!)) ?? new Set();
  else {
    const seq = seqOfId.get(target)!;
    relevant = seqsOfGroup.get(groupOfSeq.get(seq) ?? '') ?? new Set([seq]);
  }
  const terms = analyzeQuery(q);
  return { qid, q, kind, relevant, match: buildMatch({ terms } as Parameters<typeof buildMatch>[0]), exact: buildExactMatch(terms) };
});

const exactStatement = db.prepare('SELECT rowid FROM documents_fts WHERE documents_fts MATCH ?');
for (const list of weightLists) {
  const weights = list.split(',').map(Number);
  if (weights.length !== 5 || weights.some((w) => !Number.isFinite(w) || w < 0)) throw new Error(`five weights expected, got ${list}`);
  const ranked = db.prepare(`SELECT rowid FROM documents_fts WHERE documents_fts MATCH ? ORDER BY bm25(documents_fts, ${weights.join(', ')}) LIMIT ?`);
  const found: Record<Kind, number> = { key: 0, word_form: 0, head: 0, modifier: 0 };
  const asked: Record<Kind, number> = { key: 0, word_form: 0, head: 0, modifier: 0 };
  let reciprocal = 0;
  const missed: string[] = [];
  for (const query of queries) {
    asked[query.kind]++;
    const seqs = (ranked.all(query.match, query.kind === 'word_form' ? 50 : 10) as { rowid: number }[]).map((row) => row.rowid);
    const rank = seqs.findIndex((seq) => query.relevant.has(seq));
    // A word-form hit counts only when the page does not hold every query word in its exact form.
    const exactHit = rank >= 0 && query.kind === 'word_form' && (exactStatement.all(query.exact) as { rowid: number }[]).some((row) => row.rowid === seqs[rank]);
    if (rank < 0 || exactHit) {
      missed.push(`${query.kind}\t${query.q}\t${exactHit ? 'exact' : ''}\t${query.qid}`);
      continue;
    }
    found[query.kind]++;
    if (query.kind === 'key') reciprocal += 1 / (rank + 1);
  }
  const pct = (kind: Kind): string => `${((100 * found[kind]) / Math.max(1, asked[kind])).toFixed(2)} %`;
  console.log(`${list}\tkey terms ${pct('key')} MRR ${(reciprocal / Math.max(1, asked.key)).toFixed(4)}\tword forms ${pct('word_form')} (${asked.word_form - found.word_form} missed)\theads ${pct('head')}\tmodifiers ${pct('modifier')}`);
  if (values.misses) writeFileSync(`${values.misses}.${list}`, missed.join('\n') + '\n');
}
db.close();

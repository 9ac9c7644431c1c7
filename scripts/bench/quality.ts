// German search quality on the shared corpus, Fundus beside its peers, from one script:
//
//   npm run build && node_modules/.bin/node scripts/bench/quality.ts [--corpus DIR] [--out FILE.md]
//
// 1. `fundus ingest` (the CLI, as a process) indexes ../shared/corpus into a temporary folder.
// 2. The indexed records (Fundus's extracted titles and texts, near-duplicates included) are the
//    documents every peer indexes too: SQLite FTS5 (unicode61, and unicode61 over Snowball-stemmed
//    text) and Xapian 1.4 with its German stemmer, run by scripts/bench/quality_peers.py
//    (Debian: python3-xapian, python3-snowballstemmer, python3-hunspell, hunspell-de-de).
// 3. Queries: the corpus truth's key terms (all of a document's together: recall@10, MRR@10) and
//    word-form queries (found in the top 50; for Fundus also with match_type word_form); compound
//    parts built at run time by quality_peers.py from the documents' text and hunspell de_DE (a
//    head or modifier that never stands alone in the document, with a distinctive word of it:
//    found in the top 10). Nothing derived from the corpus is written into the project.
// 4. Fundus answers through its search use case (searchDocuments) on the ingested index.
// A hit counts when it is the document or a copy the truth puts in the same duplicate group.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { searchDocuments } from '../../services/core/use-cases/search.ts';
import type { SearchParameters } from '../../services/core/schemas/index.ts';
import { SqliteIndex } from '../../services/index/sqlite/sqlite-index.ts';
import { CORPUS_DIR } from './analysis-corpus.ts';
import { scriptArgs } from './lib/args.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const { values } = scriptArgs(import.meta.filename, { options: { corpus: { type: 'string', default: CORPUS_DIR }, out: { type: 'string' }, keep: { type: 'boolean', default: false }, reuse: { type: 'string' } } });
const corpus = values.corpus as string;

interface Truth {
  path: string; url: string; type: string; title: string; dup_group: string | null; near_dup_group: string | null;
  key_terms: string[]; word_form_queries: string[]; word_form_matches: Record<string, string>;
}
interface Query { qid: string; kind: 'key' | 'word_form' | 'head' | 'modifier'; q: string; relevant: Set<string>; note?: string }
interface PeerDoc { id: string; title: string; text: string; primary: boolean }

const truth = readFileSync(join(corpus, 'truth.jsonl'), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Truth);
// --reuse DIR: a folder kept by an earlier --keep run (its index is built again only when deleted).
const work = (values.reuse as string | undefined) ?? mkdtempSync(join(tmpdir(), 'fundus-quality-'));
const dataDir = join(work, 'data');

// 1. Index the corpus with the real CLI.
let started = Date.now();
if (!existsSync(join(dataDir, 'index.sqlite'))) execFileSync(process.execPath, [join(ROOT, 'bin/fundus.js'), 'ingest', '--data', dataDir, '--quiet', corpus], { stdio: ['ignore', 'ignore', 'inherit'] });
console.error(`ingested in ${((Date.now() - started) / 1000).toFixed(0)} s`);
const index = new SqliteIndex({ file: join(dataDir, 'index.sqlite'), readOnly: true });

// 2. The records as indexed, and which record each truth document became.
const docs: PeerDoc[] = [];
const idOfUrl = new Map<string, string>();
const primaryOf = new Map<string, string>();
await index.snapshot(async (snapshot) => {
  for (const doc of snapshot.documents()) {
    docs.push({ id: doc.id, title: doc.title, text: doc.text, primary: doc.duplicateOf === null });
    idOfUrl.set(doc.url, doc.id);
    if (doc.duplicateOf) primaryOf.set(doc.id, doc.duplicateOf);
  }
  for (const alias of snapshot.aliases()) idOfUrl.set(alias.url, alias.documentId);
});
const groupOf = (entry: Truth): string => entry.dup_group ?? entry.near_dup_group ?? entry.url;
const idsOfGroup = new Map<string, Set<string>>();
for (const entry of truth) {
  const id = idOfUrl.get(entry.url);
  if (id === undefined) continue;
  const group = idsOfGroup.get(groupOf(entry)) ?? new Set<string>();
  group.add(id);
  idsOfGroup.set(groupOf(entry), group);
}
const truthById = new Map<string, Truth>();
for (const entry of truth) {
  const id = idOfUrl.get(entry.url);
  if (id !== undefined && !truthById.has(id)) truthById.set(id, entry);
}
// A fold is false when the truth does not put both records in one group.
const falseFolds: string[] = [];
for (const [id, primary] of primaryOf) {
  const a = truthById.get(id);
  const b = truthById.get(primary);
  if (a && b && groupOf(a) !== groupOf(b)) falseFolds.push(`${a.path} folded under ${b.path}`);
}

// 3. Queries.
const queries: Query[] = [];
const missing: string[] = [];
for (const entry of truth) {
  const id = idOfUrl.get(entry.url);
  if (id === undefined) missing.push(entry.path);
  const relevant = idsOfGroup.get(groupOf(entry)) ?? new Set<string>();
  if (entry.key_terms.length) queries.push({ qid: `key:${entry.path}`, kind: 'key', q: entry.key_terms.join(' '), relevant });
  entry.word_form_queries.forEach((q, i) => queries.push({ qid: `wf${i}:${entry.path}`, kind: 'word_form', q, relevant, note: entry.word_form_matches[q] }));
}
const docsFile = join(work, 'docs.jsonl');
writeFileSync(docsFile, docs.map((doc) => JSON.stringify(doc)).join('\n') + '\n');
const truthFile = join(work, 'truth-by-id.jsonl');
writeFileSync(truthFile, [...truthById].map(([id, entry]) => JSON.stringify({ id, key_terms: entry.key_terms })).join('\n') + '\n');
const python = (args: string[]): string =>
  execFileSync('/usr/bin/python3', [join(ROOT, 'scripts/bench/quality_peers.py'), ...args], { encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'inherit'] });
started = Date.now();
for (const line of python(['compounds', docsFile, truthFile]).split('\n').filter(Boolean)) {
  const c = JSON.parse(line) as { qid: string; kind: 'head' | 'modifier'; doc: string; q: string; compound: string; part: string };
  const entry = truthById.get(c.doc);
  const relevant = entry ? (idsOfGroup.get(groupOf(entry)) ?? new Set([c.doc])) : new Set([c.doc]);
  queries.push({ qid: c.qid, kind: c.kind, q: c.q, relevant, note: `${c.part} in ${c.compound}` });
}
console.error(`compound truth built in ${((Date.now() - started) / 1000).toFixed(0)} s`);

// 4. Every system answers every query.
const queriesFile = join(work, 'queries.jsonl');
const peersFile = join(work, 'peers.json');
const queryLines = queries.map((q) => JSON.stringify({ qid: q.qid, q: q.q })).join('\n') + '\n';
// With --reuse, the peers' answers are kept while documents and queries stay the same.
const inputsKey = createHash('sha256').update(readFileSync(docsFile)).update(queryLines).digest('hex');
const keyFile = join(work, 'peers.key');
const unchanged = existsSync(peersFile) && existsSync(keyFile) && readFileSync(keyFile, 'utf8') === inputsKey;
writeFileSync(queriesFile, queryLines);
started = Date.now();
if (!unchanged) {
  writeFileSync(peersFile, python(['peers', docsFile, queriesFile]));
  writeFileSync(keyFile, inputsKey);
}
const peers = JSON.parse(readFileSync(peersFile, 'utf8')) as Record<string, Record<string, string[]>>;
console.error(`peers answered in ${((Date.now() - started) / 1000).toFixed(0)} s${unchanged ? ' (kept from the last run)' : ''}`);

const fundus: Record<string, string[]> = {};
const fundusWordForm = new Map<string, boolean>();
for (const query of queries) {
  const params = { q: query.q, limit: 50, offset: 0 } as SearchParameters;
  const response = await searchDocuments({ index, countBudgetMs: 200 }, params);
  fundus[query.qid] = response.results.map((hit) => hit.document_id);
  const hit = response.results.find((r) => query.relevant.has(r.document_id));
  fundusWordForm.set(query.qid, hit?.match_type === 'word_form');
}
await index.close();

// 5. Scores.
const rankOf = (ids: string[] | undefined, relevant: Set<string>, depth: number): number => {
  const rank = (ids ?? []).slice(0, depth).findIndex((id) => relevant.has(id));
  return rank < 0 ? 0 : rank + 1;
};
interface Row { name: string; key: number; mrr: number; wf: number; head: number; modifier: number }
const misses: string[] = [];
function score(name: string, results: Record<string, string[]>): Row {
  const share = (kind: Query['kind'], depth: number, extra?: (q: Query) => boolean): number => {
    const own = queries.filter((q) => q.kind === kind);
    const found = own.filter((q) => rankOf(results[q.qid], q.relevant, depth) > 0 && (extra?.(q) ?? true));
    if (name === 'Fundus') for (const q of own) if (!found.includes(q)) misses.push(`${kind}\t${q.q}\t${q.note ?? ''}\t${q.qid}`);
    return own.length ? found.length / own.length : 0;
  };
  const keys = queries.filter((q) => q.kind === 'key');
  const mrr = keys.reduce((sum, q) => sum + (rankOf(results[q.qid], q.relevant, 10) ? 1 / rankOf(results[q.qid], q.relevant, 10) : 0), 0) / keys.length;
  const isFundus = name === 'Fundus';
  return {
    name,
    key: share('key', 10),
    mrr,
    wf: share('word_form', 50, isFundus ? (q) => fundusWordForm.get(q.qid) === true : undefined),
    head: share('head', 10),
    modifier: share('modifier', 10),
  };
}
const rows = [score('Fundus', fundus), ...Object.entries(peers).map(([name, results]) => score(name, results))];
const count = (kind: Query['kind']): number => queries.filter((q) => q.kind === kind).length;
const pct = (x: number): string => `${(100 * x).toFixed(1)} %`;
const table = [
  `| system | key terms recall@10 (${count('key')}) | key terms MRR@10 | word forms @50 (${count('word_form')}) | compound heads @10 (${count('head')}) | compound modifiers @10 (${count('modifier')}) |`,
  '| --- | --- | --- | --- | --- | --- |',
  ...rows.map((r) => `| ${r.name} | ${pct(r.key)} | ${r.mrr.toFixed(3)} | ${pct(r.wf)} | ${pct(r.head)} | ${pct(r.modifier)} |`),
].join('\n');
const summary = [
  table,
  '',
  `${docs.length} indexed records (${docs.filter((d) => d.primary).length} shown, the rest folded as near-duplicates); ` +
    `${missing.length} truth documents not indexed; false near-duplicate folds: ${falseFolds.length}.`,
  'Fundus: word forms count only with match_type word_form.',
].join('\n');
console.log(summary);
for (const fold of falseFolds) console.log(`false fold: ${fold}`);
const missFile = join(tmpdir(), 'fundus-quality-misses.tsv');
writeFileSync(missFile, misses.join('\n') + '\n');
console.log(`Fundus misses (kind, query, note, id): ${missFile}`);
if (values.out) writeFileSync(values.out as string, summary + '\n');
if (!values.keep && !values.reuse) rmSync(work, { recursive: true, force: true });
else console.log(`kept ${work}`);

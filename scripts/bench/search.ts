// Search benchmark: for each collection size N, builds (or reuses) a synthetic German collection
// (make-corpus.ts), ingests it, starts `fundus serve --role gateway`, and runs the committed query
// mix (queries.json) through real HTTP at concurrency 1, 8 and 64; then, on the same file and the
// same queries, the floor (the service's FTS5 MATCH queries in-process with node:sqlite) and an
// in-process JavaScript peer (MiniSearch). Prints tables, writes JSON and an SVG plot.
//
//   npm run build
//   node_modules/.bin/node scripts/bench/search.ts --docs 10000,100000 [--out bench-out] [--reuse]
//
// Options: --rounds N (passes over the mix per concurrency, default 20), --max-seconds S (per
// concurrency level, and for the floor and the peer; at least one pass; default 90), --concurrency 1,8,64, --no-peer, --peer-max-docs N (default
// 1000000), --merge (include earlier per-size results found in --out in the aggregate and the
// plot), --publish (copy the aggregate JSON and the SVG to docs/bench/), --quiet-wait S (before
// each measurement, wait up to S seconds, default 300, for other work on the machine to stop; the
// CPU that other processes used during each measurement is reported either way), --ingest-only
// (generate and ingest the collections, measure nothing else), --no-floor (one pass of the floor
// only, for quick iterations; not for published figures).
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, release, totalmem } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DatabaseSync } from 'node:sqlite';
import { toIndexQuery } from '../../services/core/use-cases/search.ts';
import { prepareCollection, type Collection } from './lib/collection.ts';
import { runFloor, type FloorRun } from './lib/floor.ts';
import { runLoad, type BenchQuery, type LoadRun, type SearchAnswer } from './lib/http-load.ts';
import type { PeerOutput, PeerQuery } from './lib/minisearch-peer.ts';
import { renderPlot, type PlotPoint } from './lib/plot.ts';
import { machineBusySeconds, runCommand, waitForQuiet } from './lib/proc.ts';
import { createBenchKey, startServer } from './lib/serve.ts';
import { count, mib, ms, ratio, round, summarize, table, type Percentiles } from './lib/stats.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const { values } = parseArgs({
  options: {
    docs: { type: 'string', default: '10000,100000' },
    out: { type: 'string', default: 'bench-out' },
    reuse: { type: 'boolean', default: false },
    rounds: { type: 'string', default: '20' },
    'max-seconds': { type: 'string', default: '90' },
    concurrency: { type: 'string', default: '1,8,64' },
    'no-peer': { type: 'boolean', default: false },
    'peer-max-docs': { type: 'string', default: '1000000' },
    merge: { type: 'boolean', default: false },
    publish: { type: 'boolean', default: false },
    'quiet-wait': { type: 'string', default: '300' },
    seed: { type: 'string', default: '1' },
    'ingest-only': { type: 'boolean', default: false },
    'no-floor': { type: 'boolean', default: false },
  },
});
const SIZES = values.docs!.split(',').map((s) => Number(s.trim())).filter((n) => n > 0);
const OUT = resolve(values.out!);
const ROUNDS = Math.max(1, Number(values.rounds));
const MAX_SECONDS = Number(values['max-seconds']);
const LEVELS = values.concurrency!.split(',').map(Number);
const QUERY_FILE = join(ROOT, 'scripts/bench/queries.json');
const { queries } = JSON.parse(readFileSync(QUERY_FILE, 'utf8')) as { queries: BenchQuery[] };
const CLASSES = [...new Set(queries.map((q) => q.class))];
/** The first search after start-up (cold start). */
const FIRST_QUERY = { q: 'Gesetz' };

function log(line: string): void {
  process.stderr.write(`[bench] ${line}\n`);
}

function machine() {
  const cpu = cpus()[0]?.model ?? 'unknown cpu';
  let sqlite = 'unknown';
  try {
    const db = new DatabaseSync(':memory:');
    sqlite = (db.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v;
    db.close();
  } catch {
    // reported as unknown
  }
  return {
    cores: availableParallelism(),
    cpu,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    sqlite,
    kernel: release(),
    text: `${availableParallelism()} × ${cpu}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, SQLite ${sqlite}`,
  };
}

function git(): { commit: string; dirty: string[] } {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'services', 'bin'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);
    return { commit, dirty };
  } catch {
    return { commit: 'unknown', dirty: [] };
  }
}

/** Warns when dist/ is older than the sources it was built from (the CLI runs dist/). */
function checkBuild(): void {
  const built = join(ROOT, 'dist/services/cli/main.js');
  if (!existsSync(built)) throw new Error('dist/ is missing: run `npm run build` first');
  const builtAt = statSync(built).mtimeMs;
  const newer: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.ts') && statSync(path).mtimeMs > builtAt) newer.push(relative(ROOT, path));
    }
  };
  walk(join(ROOT, 'services'));
  if (newer.length) log(`WARNING: dist/ is older than ${newer.length} source file(s) (${newer.slice(0, 3).join(', ')}…): run \`npm run build\``);
}

interface LevelFigures extends Percentiles {
  concurrency: number;
  requests: number;
  errors: number;
  seconds: number;
  throughput: number;
  gteShare: number;
  serverCpuCores: number;
  /** Of the server's CPU: its main thread (HTTP, validation, JSON) and its search worker threads. */
  serverMainThreadCores: number;
  serverWorkerThreadCores: number;
  clientCpuCores: number;
  /** CPU other processes on the machine used meanwhile: noise in the figures when above ~0.1. */
  otherCpuCores: number;
  quietBefore: boolean;
}

interface QueryFigures {
  id: string;
  class: string;
  body: BenchQuery['body'];
  total: number | null;
  totalRelation: string | null;
  hits: number | null;
  http: Record<string, number>;
  floor: number;
  floorRows: number;
  floorCountMs: number | null;
  floorCount: number | null;
  peer: number | null;
  peerMatched: number | null;
  /** Share of our top-10 URLs the peer also has in its top 10 (null when we found nothing). */
  overlapWithPeer: number | null;
  /** Share of our top 10 that is in the floor's top 10 (FTS5's exact bm25 order): 1 where we rank exactly. */
  overlapWithFloor: number | null;
}

interface SizeResult {
  docs: number;
  measuredAt: string;
  machine: ReturnType<typeof machine>;
  git: ReturnType<typeof git>;
  settings: { rounds: number; maxSecondsPerLevel: number; levels: number[]; queries: number; countBudgetMs: string };
  collection: {
    records: number;
    indexedDocuments: number | null;
    corpusSeconds: number | null;
    ingestDocsPerSecond: number;
    ingestSeconds: number;
    ingestOptimizeSeconds: number | null;
    ingestPeakRssBytes: number;
    ingestSummary: string;
    ingestReused: boolean;
    ingestMeasuredAt: string;
    indexBytes: number;
    indexBytesPerDocument: number;
  };
  coldStart: { listeningMs: number; firstAnswerMs: number; firstSearchMs: number; pageCache: string };
  servePeakRssBytes: number;
  /** Highest anonymous RSS of serve (without the pages of the memory-mapped index file). */
  servePeakAnonRssBytes: number;
  http: LevelFigures[];
  floor: Percentiles & { pragmas: string; ageFilter: string; otherCpuCores: number; quietBefore: boolean };
  peer: (Percentiles & { name: string; documents: number; buildSeconds: number; heapUsedBytes: number; rssBytes: number; peakRssBytes: number; quietBefore: boolean; filters: string }) | { name: string; error: string } | null;
  recall: { meanOverlapAt10: number | null; queriesCompared: number; peerEmptyWhereWeFound: number } | null;
  /** How close our order is to FTS5's exact bm25 order (the floor's), over the top 10. */
  exactness: { meanOverlapAt10WithFloor: number | null; queriesBelowFloorOrder: string[] };
  classes: Record<string, { http1: number; http8: number | null; floor: number; peer: number | null }>;
  perQueryRatioToFloor: { median: number; over2x: number; compared: number };
  queries: QueryFigures[];
}

function p50Of(values: number[]): number {
  return summarize(values).p50;
}

function levelFigures(run: LoadRun, quietBefore = true): LevelFigures {
  const ok = run.samples.filter((s) => s.status === 200);
  const threads = run.serverThreadCpuSeconds;
  return {
    concurrency: run.concurrency,
    requests: run.samples.length,
    errors: run.samples.length - ok.length,
    seconds: round(run.seconds),
    throughput: Math.round(ok.length / run.seconds),
    gteShare: round(ok.filter((s) => s.gte).length / Math.max(1, ok.length)),
    serverCpuCores: round(run.serverCpuSeconds / run.seconds),
    serverMainThreadCores: round((threads.MainThread ?? 0) / run.seconds),
    serverWorkerThreadCores: round((threads.WorkerThread ?? 0) / run.seconds),
    clientCpuCores: round(run.clientCpuSeconds / run.seconds),
    otherCpuCores: round(Math.max(0, run.machineBusySeconds - run.serverCpuSeconds - run.clientCpuSeconds) / run.seconds),
    quietBefore,
    ...summarize(ok.map((s) => s.ms)),
  };
}

function peerQueries(): PeerQuery[] {
  return queries.map(({ body }) => {
    const limit = body.limit ?? 10;
    const offset = body.offset ?? 0;
    const query = toIndexQuery(
      { q: body.q, source: body.source, topic: body.topic, max_age_months: body.max_age_months, document_types: body.document_types as never },
      { limit, offset, order: 'relevance' },
      { countBudgetMs: 0 },
    );
    return {
      q: body.q,
      limit,
      offset,
      host: query?.host ?? null,
      topic: query?.topic ?? null,
      documentTypes: query?.documentTypes ?? null,
      minAgeDate: query?.minAgeDate ?? null,
    };
  });
}

/** URLs of the index's primary documents, so that the peer collapses duplicates the same way. */
function writePrimaryUrls(collection: Collection, file: string): boolean {
  try {
    const db = new DatabaseSync(collection.indexFile, { readOnly: true });
    try {
      const lines: string[] = [];
      for (const row of db.prepare('SELECT url FROM documents WHERE duplicate_of IS NULL').iterate() as Iterable<{ url: string }>) lines.push(row.url);
      writeFileSync(file, `${lines.join('\n')}\n`);
      return true;
    } finally {
      db.close();
    }
  } catch (error) {
    log(`cannot list the index's primary documents (${error instanceof Error ? error.message : error}); the peer indexes every record`);
    return false;
  }
}

async function runPeer(collection: Collection): Promise<{ output: PeerOutput; peakRss: number } | { error: string }> {
  const queriesFile = join(collection.dir, 'peer-queries.json');
  const onlyFile = join(collection.dir, 'peer-primary-urls.txt');
  writeFileSync(queriesFile, JSON.stringify(peerQueries()));
  const only = writePrimaryUrls(collection, onlyFile);
  // Half the machine's memory at most: the peer must not push other work on the machine out.
  const heapMiB = Math.max(4096, Math.round((totalmem() / 1048576) * 0.5));
  const args = [`--max-old-space-size=${heapMiB}`, '--expose-gc', join(ROOT, 'scripts/bench/lib/minisearch-peer.ts'), '--records', collection.records, '--queries', queriesFile, '--rounds', String(ROUNDS), '--max-seconds', String(MAX_SECONDS)];
  if (only) args.push('--only', onlyFile);
  log(`${collection.docs}: MiniSearch peer: building and querying`);
  const run = await runCommand(process.execPath, args);
  if (run.code !== 0) return { error: `MiniSearch exited with ${run.code}: ${run.stderr.trim().split('\n').slice(-3).join(' ')}` };
  return { output: JSON.parse(run.stdout) as PeerOutput, peakRss: run.peakRss };
}

/** The URLs of the floor's row ids (documents.seq is the FTS5 rowid). */
function urlsOfRows(indexFile: string, rows: number[][]): string[][] {
  const db = new DatabaseSync(indexFile, { readOnly: true });
  const url = db.prepare('SELECT url FROM documents WHERE seq = ?');
  try {
    return rows.map((ids) => ids.map((id) => (url.get(id) as { url: string } | undefined)?.url ?? ''));
  } finally {
    db.close();
  }
}

function overlap(ours: string[], theirs: string[]): number | null {
  if (ours.length === 0) return null;
  const set = new Set(theirs);
  return ours.filter((url) => set.has(url)).length / ours.length;
}

const QUIET_WAIT = Number(values['quiet-wait']);

/** Waits for the machine to be quiet before a measurement (it may be shared with other work). */
async function quiet(what: string): Promise<boolean> {
  const state = await waitForQuiet(QUIET_WAIT, 0.25, (busy) => log(`${what}: waiting for the machine to be quiet (other work uses ${busy.toFixed(2)} cores)`));
  if (!state.quiet) log(`${what}: the machine did not get quiet within ${QUIET_WAIT} s (other work uses ${state.busyCores.toFixed(2)} cores): measuring anyway`);
  return state.quiet;
}

/** Runs `work`, returning the cores other processes used meanwhile (besides this process). */
function withOtherCpu<T>(work: () => T): { value: T; otherCpuCores: number } {
  const busy = machineBusySeconds();
  const own = process.cpuUsage();
  const started = performance.now();
  const value = work();
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(own);
  return { value, otherCpuCores: round(Math.max(0, machineBusySeconds() - busy - (used.user + used.system) / 1e6) / seconds) };
}

function meanOf(values: (number | null)[]): number | null {
  const present = values.filter((v): v is number => v !== null);
  return present.length ? round(present.reduce((a, v) => a + v, 0) / present.length) : null;
}

function median(values: number[]): number {
  return summarize(values).p50;
}

async function measure(docs: number): Promise<SizeResult> {
  const collection = await prepareCollection(docs, OUT, { reuse: values.reuse!, seed: Number(values.seed) });
  const key = await createBenchKey(collection.dataDir);

  await quiet(`${docs}: cold start`);
  log(`${docs}: starting fundus serve (gateway)`);
  const server = await startServer(collection.dataDir, key, FIRST_QUERY);
  log(`${docs}: listening after ${Math.round(server.listeningMs)} ms, first answer after ${Math.round(server.firstAnswerMs)} ms`);
  const runs: LoadRun[] = [];
  const quietBefore: boolean[] = [];
  let servePeak = 0;
  let servePeakAnon = 0;
  try {
    // One unmeasured pass at concurrency 8: the first use of every statement and page.
    await runLoad({ baseUrl: server.baseUrl, key, queries, concurrency: 8, rounds: 1, maxSeconds: MAX_SECONDS, serverPid: server.pid });
    for (const concurrency of LEVELS) {
      quietBefore.push(await quiet(`${docs}: HTTP c=${concurrency}`));
      log(`${docs}: HTTP at concurrency ${concurrency}`);
      const run = await runLoad({ baseUrl: server.baseUrl, key, queries, concurrency, rounds: ROUNDS, maxSeconds: MAX_SECONDS, serverPid: server.pid, parseFirstRound: concurrency === LEVELS[0] });
      runs.push(run);
      const figures = levelFigures(run);
      log(
        `${docs}: c=${concurrency}: p50 ${figures.p50} ms, p99 ${figures.p99} ms, ${figures.throughput}/s, errors ${figures.errors}; ` +
          `CPU cores: server ${figures.serverCpuCores} (main ${figures.serverMainThreadCores}, workers ${figures.serverWorkerThreadCores}), client ${figures.clientCpuCores}, other ${figures.otherCpuCores}`,
      );
    }
  } finally {
    servePeakAnon = server.peakAnonRss();
    servePeak = await server.stop();
  }

  const floorQuiet = values['no-floor'] ? true : await quiet(`${docs}: floor`);
  if (!values['no-floor']) log(`${docs}: floor (FTS5 in-process)`);
  const floorRounds = values['no-floor'] ? { rounds: 1, maxSeconds: 0, countRounds: 0, countClasses: [] } : { rounds: ROUNDS, maxSeconds: MAX_SECONDS, countRounds: 3, countClasses: ['common', 'total'] };
  const floorRun = withOtherCpu(() => runFloor(collection.indexFile, queries, floorRounds));
  const floor: FloorRun = floorRun.value;

  let peer: Awaited<ReturnType<typeof runPeer>> | null = null;
  let peerQuiet = true;
  if (!values['no-peer'] && docs <= Number(values['peer-max-docs'])) {
    peerQuiet = await quiet(`${docs}: peer`);
    peer = await runPeer(collection);
  }
  const peerOut = peer && 'output' in peer ? peer.output : null;

  const answers: Map<number, SearchAnswer> = runs[0]?.answers ?? new Map();
  const floorUrls = urlsOfRows(collection.indexFile, floor.top);
  const perQuery: QueryFigures[] = queries.map((q, i) => {
    const http: Record<string, number> = {};
    for (const run of runs) http[String(run.concurrency)] = p50Of(run.samples.filter((s) => s.query === i && s.status === 200).map((s) => s.ms));
    const answer = answers.get(i);
    const ours = (answer?.results ?? []).slice(0, 10).map((r) => r.url);
    const counted = floor.counts.find((c) => c.query === i);
    return {
      id: q.id,
      class: q.class,
      body: q.body,
      total: answer?.total ?? null,
      totalRelation: answer?.total_relation ?? null,
      hits: answer?.results.length ?? null,
      http,
      floor: p50Of(floor.timings[i]),
      floorRows: floor.rows[i],
      floorCountMs: counted ? p50Of(counted.ms) : null,
      floorCount: counted?.n ?? null,
      peer: peerOut ? p50Of(peerOut.timings[i]) : null,
      peerMatched: peerOut ? peerOut.matched[i] : null,
      overlapWithPeer: peerOut && answer ? overlap(ours, peerOut.top[i]) : null,
      overlapWithFloor: answer ? overlap(ours, floorUrls[i]) : null,
    };
  });

  const http = runs.map((run, i) => levelFigures(run, quietBefore[i]));
  const first = runs[0];
  const classes: SizeResult['classes'] = {};
  const at8 = runs.find((r) => r.concurrency === 8);
  for (const name of CLASSES) {
    const members = queries.map((q, i) => (q.class === name ? i : -1)).filter((i) => i >= 0);
    const pick = (run: LoadRun | undefined) => (run ? p50Of(run.samples.filter((s) => members.includes(s.query) && s.status === 200).map((s) => s.ms)) : null);
    classes[name] = {
      http1: pick(first)!,
      http8: pick(at8),
      floor: p50Of(members.flatMap((i) => floor.timings[i])),
      peer: peerOut ? p50Of(members.flatMap((i) => peerOut.timings[i])) : null,
    };
  }
  const ratios = perQuery.filter((q) => q.floor > 0 && Number.isFinite(q.http[String(LEVELS[0])])).map((q) => q.http[String(LEVELS[0])] / q.floor);
  const compared = perQuery.filter((q) => q.overlapWithPeer !== null);
  const result: SizeResult = {
    docs,
    measuredAt: new Date().toISOString(),
    machine: machine(),
    git: git(),
    settings: { rounds: ROUNDS, maxSecondsPerLevel: MAX_SECONDS, levels: LEVELS, queries: queries.length, countBudgetMs: process.env.FUNDUS_COUNT_BUDGET_MS ?? 'default' },
    collection: {
      records: docs,
      indexedDocuments: collection.indexedDocuments,
      corpusSeconds: collection.corpusSeconds,
      ingestDocsPerSecond: collection.ingest.docsPerSecond,
      ingestSeconds: collection.ingest.seconds,
      ingestOptimizeSeconds: collection.ingest.optimizeSeconds ?? null,
      ingestPeakRssBytes: collection.ingest.peakRssBytes,
      ingestSummary: collection.ingest.summary,
      ingestReused: collection.ingestReused,
      ingestMeasuredAt: collection.ingest.measuredAt,
      indexBytes: collection.indexBytes,
      indexBytesPerDocument: Math.round(collection.indexBytes / docs),
    },
    coldStart: {
      listeningMs: Math.round(server.listeningMs),
      firstAnswerMs: Math.round(server.firstAnswerMs),
      firstSearchMs: round(server.firstSearchMs),
      pageCache: 'warm (the file was read or written shortly before; the OS cache was not dropped)',
    },
    servePeakRssBytes: servePeak,
    servePeakAnonRssBytes: servePeakAnon,
    http,
    floor: { ...summarize(floor.timings.flat()), pragmas: floor.pragmas, ageFilter: floor.ageFilter, otherCpuCores: floorRun.otherCpuCores, quietBefore: floorQuiet },
    peer:
      peer === null
        ? null
        : 'error' in peer
          ? { name: 'MiniSearch', error: peer.error }
          : {
              name: `MiniSearch ${minisearchVersion()}`,
              documents: peer.output.documents,
              buildSeconds: round(peer.output.buildSeconds),
              heapUsedBytes: peer.output.heapUsedBytes,
              rssBytes: peer.output.rssBytes,
              peakRssBytes: peer.peakRss,
              quietBefore: peerQuiet,
              filters: 'all filters as post-filters on stored fields (MiniSearch `filter` option); offsets by slicing its full result list',
              ...summarize(peer.output.timings.flat()),
            },
    exactness: {
      meanOverlapAt10WithFloor: meanOf(perQuery.map((q) => q.overlapWithFloor)),
      queriesBelowFloorOrder: perQuery.filter((q) => q.overlapWithFloor !== null && q.overlapWithFloor < 1).map((q) => q.id),
    },
    recall: peerOut
      ? {
          meanOverlapAt10: round(compared.reduce((a, q) => a + q.overlapWithPeer!, 0) / Math.max(1, compared.length)),
          queriesCompared: compared.length,
          peerEmptyWhereWeFound: perQuery.filter((q) => (q.hits ?? 0) > 0 && q.peerMatched === 0).length,
        }
      : null,
    classes,
    perQueryRatioToFloor: { median: round(median(ratios)), over2x: ratios.filter((r) => r > 2).length, compared: ratios.length },
    queries: perQuery,
  };
  return result;
}

function minisearchVersion(): string {
  try {
    return (JSON.parse(readFileSync(join(ROOT, 'node_modules/minisearch/package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return '';
  }
}

function peerFigures(r: SizeResult): (Percentiles & { buildSeconds: number; heapUsedBytes: number; documents: number; peakRssBytes: number }) | null {
  return r.peer && !('error' in r.peer) ? r.peer : null;
}

function printSize(r: SizeResult): void {
  const peer = peerFigures(r);
  const floorP50 = r.floor.p50;
  console.log(`\n## ${count(r.docs)} documents (${r.collection.indexedDocuments ?? '?'} searchable after duplicates) — ${r.machine.text}\n`);
  console.log(
    table(
      ['ingest docs/s', 'ingest peak RSS', 'index on disk', 'per document', 'serve: listening', 'serve: first answer', 'first search', 'serve peak RSS (anonymous)'],
      [[
        `${r.collection.ingestDocsPerSecond}${r.collection.ingestOptimizeSeconds ? ` (final merge and lists ${Math.round(r.collection.ingestOptimizeSeconds)} s of ${Math.round(r.collection.ingestSeconds)} s)` : ''}${r.collection.ingestReused ? ` (${r.collection.ingestMeasuredAt.slice(0, 10)}, reused)` : ''}`,
        mib(r.collection.ingestPeakRssBytes),
        mib(r.collection.indexBytes),
        `${(r.collection.indexBytesPerDocument / 1024).toFixed(1)} KiB`,
        ms(r.coldStart.listeningMs),
        ms(r.coldStart.firstAnswerMs),
        ms(r.coldStart.firstSearchMs),
        `${mib(r.servePeakRssBytes)} (${mib(r.servePeakAnonRssBytes)})`,
      ]],
    ),
  );
  console.log('');
  const rows: (string | number)[][] = r.http.map((l) => [
    `HTTP c=${l.concurrency}`,
    ms(l.p50),
    ms(l.p95),
    ms(l.p99),
    `${l.throughput}/s`,
    `${Math.round(l.gteShare * 100)} %`,
    `${l.serverCpuCores} (${l.serverMainThreadCores} + ${l.serverWorkerThreadCores}) / ${l.clientCpuCores} / ${l.otherCpuCores}${l.quietBefore ? '' : ' (busy machine)'}`,
    ratio(l.p50, floorP50),
    ratio(l.p50, peer?.p50),
    `${l.requests}${l.errors ? ` (${l.errors} errors)` : ''}`,
  ]);
  rows.push(['floor (FTS5 in-process) c=1', ms(r.floor.p50), ms(r.floor.p95), ms(r.floor.p99), `${Math.round(1000 / r.floor.mean)}/s`, '–', `– / 1 / ${r.floor.otherCpuCores}`, '1×', ratio(r.floor.p50, peer?.p50), r.floor.samples]);
  if (peer) rows.push([`peer (${(r.peer as { name: string }).name}) c=1`, ms(peer.p50), ms(peer.p95), ms(peer.p99), `${Math.round(1000 / peer.mean)}/s`, '–', '–', ratio(peer.p50, floorP50), '1×', peer.samples]);
  else if (r.peer && 'error' in r.peer) rows.push([`peer (${r.peer.name})`, r.peer.error, '', '', '', '', '', '', '', '']);
  console.log(table(['over the mix', 'p50', 'p95', 'p99', 'throughput', 'total gte', 'CPU cores: server (main + search workers) / client / other processes', 'p50 ÷ floor', 'p50 ÷ peer', 'requests'], rows));
  console.log('\nthroughput of floor and peer: one thread, 1 ÷ mean latency.');
  if (peer) {
    console.log(`order: mean top-10 overlap with the floor's exact bm25 order ${r.exactness.meanOverlapAt10WithFloor}; below it: ${r.exactness.queriesBelowFloorOrder.join(', ') || 'none'}`);
    console.log(`peer: ${peer.documents} documents indexed in ${peer.buildSeconds} s, heap used ${mib(peer.heapUsedBytes)}, peak RSS ${mib(peer.peakRssBytes)}; ` + `mean top-10 overlap with ours ${r.recall?.meanOverlapAt10} over ${r.recall?.queriesCompared} queries; ` + `${r.recall?.peerEmptyWhereWeFound} queries where the peer finds nothing and we do (no word forms or compound parts)`);
  }
  console.log(`per query, HTTP c=${r.settings.levels[0]} p50 ÷ floor p50: median ${r.perQueryRatioToFloor.median}×, ${r.perQueryRatioToFloor.over2x} of ${r.perQueryRatioToFloor.compared} queries above 2×\n`);
  console.log(
    table(
      ['class', 'HTTP c=1 p50', 'HTTP c=8 p50', 'floor p50', 'peer p50', 'HTTP c=1 ÷ floor', 'HTTP c=1 ÷ peer'],
      Object.entries(r.classes).map(([name, c]) => [name, ms(c.http1), ms(c.http8), ms(c.floor), ms(c.peer), ratio(c.http1, c.floor), ratio(c.http1, c.peer)]),
    ),
  );
  console.log('');
  const level = String(r.settings.levels[0]);
  console.log(
    table(
      ['query', 'total', `HTTP c=${level} p50`, 'floor p50', 'floor count(*)', 'peer p50', '÷ floor', '÷ peer', 'peer matches', 'top-10 overlap'],
      r.queries.map((q) => [
        q.id,
        q.total === null ? '–' : `${q.totalRelation === 'gte' ? '≥' : ''}${q.total}`,
        ms(q.http[level]),
        ms(q.floor),
        q.floorCountMs === null ? '–' : `${ms(q.floorCountMs)} (${q.floorCount})`,
        ms(q.peer),
        ratio(q.http[level], q.floor),
        ratio(q.http[level], q.peer),
        q.peerMatched ?? '–',
        q.overlapWithPeer === null ? '–' : `${Math.round(q.overlapWithPeer * 100)} %`,
      ]),
    ),
  );
}

const TARGETS: Record<number, { p50: number; p99: number; rps: number }> = { 100_000: { p50: 3, p99: 30, rps: 1000 }, 1_000_000: { p50: 10, p99: 100, rps: 300 } };

function printSummary(results: SizeResult[]): void {
  console.log('\n## Summary across sizes\n');
  console.log(
    table(
      ['documents', 'HTTP c=1 p50 / p99', 'HTTP c=8 p50 / p95 / p99', 'c=8 throughput', 'c=64 p50 / p99', 'c=64 throughput', 'floor p50 / p99', 'peer p50 / p99', 'c=8 p50 ÷ floor', 'c=1 p50 ÷ peer', 'index per doc', 'serve peak RSS (anonymous)', 'ingest docs/s', 'ingest peak RSS'],
      results.map((r) => {
        const c1 = r.http.find((l) => l.concurrency === 1);
        const c8 = r.http.find((l) => l.concurrency === 8);
        const c64 = r.http.find((l) => l.concurrency === 64);
        const peer = peerFigures(r);
        return [
          count(r.docs),
          c1 ? `${ms(c1.p50)} / ${ms(c1.p99)}` : '–',
          c8 ? `${ms(c8.p50)} / ${ms(c8.p95)} / ${ms(c8.p99)}` : '–',
          c8 ? `${c8.throughput}/s` : '–',
          c64 ? `${ms(c64.p50)} / ${ms(c64.p99)}` : '–',
          c64 ? `${c64.throughput}/s` : '–',
          `${ms(r.floor.p50)} / ${ms(r.floor.p99)}`,
          peer ? `${ms(peer.p50)} / ${ms(peer.p99)}` : '–',
          ratio(c8?.p50, r.floor.p50),
          ratio(c1?.p50, peer?.p50),
          `${(r.collection.indexBytesPerDocument / 1024).toFixed(1)} KiB`,
          `${mib(r.servePeakRssBytes)} (${mib(r.servePeakAnonRssBytes)})`,
          String(r.collection.ingestDocsPerSecond),
          mib(r.collection.ingestPeakRssBytes),
        ];
      }),
    ),
  );
  const targetRows: string[][] = [];
  for (const r of results) {
    const target = TARGETS[r.docs];
    const c8 = r.http.find((l) => l.concurrency === 8);
    if (!target || !c8) continue;
    const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');
    targetRows.push([count(r.docs), `p50 < ${target.p50} ms`, ms(c8.p50), verdict(c8.p50 < target.p50)]);
    targetRows.push([count(r.docs), `p99 < ${target.p99} ms`, ms(c8.p99), verdict(c8.p99 < target.p99)]);
    targetRows.push([count(r.docs), `≥ ${target.rps} searches/s`, `${c8.throughput}/s`, verdict(c8.throughput >= target.rps)]);
    targetRows.push([count(r.docs), 'HTTP p50 ≤ 2× floor p50 (per query, c=1)', `${r.perQueryRatioToFloor.compared - r.perQueryRatioToFloor.over2x} of ${r.perQueryRatioToFloor.compared} queries`, verdict(r.perQueryRatioToFloor.over2x === 0)]);
    const peer = peerFigures(r);
    const c1 = r.http.find((l) => l.concurrency === 1);
    if (peer && c1) targetRows.push([count(r.docs), 'faster than the JS peer (p50, c=1)', `${ms(c1.p50)} vs ${ms(peer.p50)}`, verdict(c1.p50 < peer.p50)]);
    targetRows.push([count(r.docs), 'ingestion of records ≥ 2000 docs/s', `${r.collection.ingestDocsPerSecond}/s`, verdict(r.collection.ingestDocsPerSecond >= 2000)]);
    if (r.docs === 1_000_000) targetRows.push([count(r.docs), 'serve peak RSS < 1 GiB', `${mib(r.servePeakRssBytes)} (${mib(r.servePeakAnonRssBytes)} anonymous)`, verdict(r.servePeakRssBytes < 2 ** 30)]);
  }
  if (targetRows.length) {
    console.log('\n## Targets of the speed issue (concurrency 8 through HTTP)\n');
    console.log(table(['documents', 'target', 'measured', ''], targetRows));
  }
}

function summaryOf(r: SizeResult) {
  // The aggregate keeps everything but the per-query list's request bodies.
  return { ...r, queries: r.queries.map(({ body: _body, ...rest }) => rest) };
}

async function main(): Promise<void> {
  checkBuild();
  mkdirSync(OUT, { recursive: true });
  const results: SizeResult[] = [];
  if (values['ingest-only']) {
    for (const docs of SIZES) await prepareCollection(docs, OUT, { reuse: values.reuse!, seed: Number(values.seed) });
    process.exit(0);
  }
  for (const docs of SIZES) {
    const result = await measure(docs);
    writeFileSync(join(OUT, `search-${docs}.json`), JSON.stringify(result, null, 2));
    printSize(result);
    results.push(result);
  }
  if (values.merge) {
    for (const name of readdirSync(OUT)) {
      const match = /^search-(\d+)\.json$/.exec(name);
      if (!match || SIZES.includes(Number(match[1]))) continue;
      results.push(JSON.parse(readFileSync(join(OUT, name), 'utf8')) as SizeResult);
      log(`merged earlier results for ${match[1]} documents (${name})`);
    }
  }
  results.sort((a, b) => a.docs - b.docs);
  printSummary(results);

  const info = machine();
  const aggregate = {
    command: `node_modules/.bin/node scripts/bench/search.ts ${process.argv.slice(2).join(' ')}`.trim(),
    measuredAt: new Date().toISOString(),
    machine: info,
    queryMix: relative(ROOT, QUERY_FILE),
    sizes: results.map(summaryOf),
  };
  writeFileSync(join(OUT, 'search.json'), JSON.stringify(aggregate, null, 2));
  const points: PlotPoint[] = results.map((r) => {
    const c8 = r.http.find((l) => l.concurrency === 8) ?? r.http[0];
    return {
      docs: r.docs,
      p50: c8.p50,
      p95: c8.p95,
      p99: c8.p99,
      floorP50: r.floor.p50,
      throughput: Object.fromEntries(r.http.map((l) => [String(l.concurrency), l.throughput])),
    };
  });
  const svg = renderPlot(points, `${info.text}; HTTP through fundus serve --role gateway, closed loop on 127.0.0.1`);
  writeFileSync(join(OUT, 'search.svg'), svg);
  log(`wrote ${relative(ROOT, join(OUT, 'search.json'))}, ${relative(ROOT, join(OUT, 'search.svg'))} and search-<N>.json`);
  if (values.publish) {
    mkdirSync(join(ROOT, 'docs/bench'), { recursive: true });
    copyFileSync(join(OUT, 'search.json'), join(ROOT, 'docs/bench/search.json'));
    copyFileSync(join(OUT, 'search.svg'), join(ROOT, 'docs/bench/search.svg'));
    log('copied to docs/bench/search.json and docs/bench/search.svg');
  }
}

await main();

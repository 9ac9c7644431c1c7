// The writer's thread alone: CPU time of storing pre-extracted records into a new SQLite index, their
// preparation (analysis, fingerprint, ids: the extraction processes' part) done before the clock starts.
// One thread, CPU time of this process (process.cpuUsage), so a busy machine moves it less than wall
// time; the final merge and lists are timed on their own.
//   node_modules/.bin/node scripts/bench/write.ts --records FILE.jsonl [--limit N] [--batch N] [--repeat N]
//     [--variants "BATCH[:PRAGMA ...]|..."] [--streams FILE] [--fts-thread]
// --fts-thread writes the FTS5 file on a second thread, as `fundus ingest` does (CPU: both threads,
// and this thread alone).
// --streams writes the four analysed streams and the facets of every record (JSON lines), for
// scripts/bench/fts5-insert.py: SQLite's FTS5 alone, driven from Python, on the same input.
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { storeDocument } from '../../services/core/use-cases/store-document.ts';
import { facetsOf } from '../../services/index/sqlite/fts-query.ts';
import { SqliteIndex } from '../../services/index/sqlite/sqlite-index.ts';
import { buildStoredDocument } from '../../services/ingest/build-document.ts';
import { isProblem, type IngestItem } from '../../services/ingest/item.ts';
import { prepareForIndex } from '../../services/ingest/prepare.ts';
import { readRecords } from '../../services/ingest/records.ts';
import { scriptArgs } from './lib/args.ts';

const { values } = scriptArgs(import.meta.filename, {
  options: {
    records: { type: 'string' }, limit: { type: 'string', default: '20000' }, batch: { type: 'string', default: '2500' }, repeat: { type: 'string', default: '1' },
    variants: { type: 'string' }, streams: { type: 'string' }, 'fts-thread': { type: 'boolean', default: false },
  },
});
if (!values.records) throw new Error('--records FILE.jsonl is required');
const limit = Number(values.limit);
const batch = Number(values.batch);

const items: IngestItem[] = [];
for await (const input of readRecords(values.records)) {
  if (isProblem(input)) continue;
  const extracted = input.extracted!;
  // Copied as the IPC channel copies it: flat strings, as the writer's thread receives them.
  extracted.prepared = structuredClone(prepareForIndex(extracted, input.url, { topic: input.topic === undefined }));
  items.push(input);
  if (items.length >= limit) break;
}

console.log(`prepared ${items.length} records (pid ${process.pid})`);
if (values.streams) {
  // Line by line: the streams of a few hundred thousand records pass V8's longest string.
  const out = openSync(values.streams, 'w');
  for (const item of items) {
    const { title, body } = item.extracted!.prepared!;
    const doc = buildStoredDocument(item, item.extracted!, item.topic ?? item.extracted!.prepared!.topic, new Date());
    writeSync(out, `${JSON.stringify([title.exact, body.exact, title.base, body.base, facetsOf(doc)])}\n`);
  }
  closeSync(out);
}

const cpuSeconds = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1e6;
};

// Variants, for A/B rounds on the same prepared records: "batch[:PRAGMA ...]" separated by '|'.
const variants = (values.variants ?? String(batch)).split('|');
for (let round = 0; round < Number(values.repeat) * variants.length; round++) {
  const [variantBatch, pragmas] = variants[round % variants.length].split(':');
  const batch = Number(variantBatch);
  const dir = mkdtempSync(join(tmpdir(), 'fundus-bench-write-'));
  const index = new SqliteIndex({ file: join(dir, 'index.sqlite'), ftsThread: values['fts-thread'] });
  if (pragmas) (index as unknown as { db: { exec(sql: string): void } }).db.exec(pragmas);
  const now = new Date();
  let started = process.cpuUsage();
  const threadStarted = process.threadCpuUsage();
  const wallStarted = performance.now();
  for (let from = 0; from < items.length; from += batch) {
    await index.writeBatch(async () => {
      for (const item of items.slice(from, from + batch)) {
        const extracted = item.extracted!;
        await storeDocument(index, buildStoredDocument(item, extracted, item.topic !== undefined ? item.topic : extracted.prepared!.topic, now));
      }
    });
  }
  const thread = process.threadCpuUsage(threadStarted);
  const storing = cpuSeconds(started);
  const storingWall = (performance.now() - wallStarted) / 1000;
  const segments = (index as unknown as { db: { prepare(sql: string): { get(): unknown } } }).db
    .prepare(`SELECT count(DISTINCT id / ${2 ** 37}) AS n FROM documents_fts_data WHERE id >= ${2 ** 37} AND id < ${2 ** 53}`)
    .get() as { n: number };
  started = process.cpuUsage();
  const finalWall = performance.now();
  await index.optimize();
  const final = cpuSeconds(started);
  console.log(
    `${items.length} records, batches of ${batch}${pragmas ? ` (${pragmas})` : ''}: storing ${storing.toFixed(2)} CPU s (${((storing / items.length) * 1e6).toFixed(0)} µs a record; this thread ${((thread.user + thread.system) / 1e6).toFixed(2)} s; ${storingWall.toFixed(2)} s wall, ${segments.n} FTS5 segments); ` +
      `final step ${final.toFixed(2)} CPU s of this thread, ${((performance.now() - finalWall) / 1000).toFixed(2)} s wall`,
  );
  await index.close();
  rmSync(dir, { recursive: true, force: true });
}

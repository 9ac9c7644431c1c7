// FTS5 alone, on node:sqlite (the SQLite the service runs on): the CPU time of writing the FTS5 rows
// of N records in batches of 2500 (the merge settings of sqlite-index.ts) and of the final
// 'optimize', for several page sizes of the FTS5 file and its leaves. One thread, its own CPU time.
//   node_modules/.bin/node scripts/bench/write.ts --records RECORDS.jsonl --limit 300000 --streams STREAMS.jsonl
//   node_modules/.bin/node scripts/bench/fts5-pages.ts --streams STREAMS.jsonl [--limit N] [--variants 4096:4050,32768:32000] [--repeat N]
// A variant is PAGE_SIZE:LEAF_BYTES (SQLite's page_size, FTS5's pgsz); 4096:4050 is SQLite's default.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { FTS_INSERT, FTS_WRITER_PRAGMAS, setFtsWriteSettings } from '../../services/index/sqlite/fts-file.ts';
import { FTS_TABLE_ARGUMENTS } from '../../services/index/sqlite/schema.ts';
import { scriptArgs } from './lib/args.ts';

const { values } = scriptArgs(import.meta.filename, {
  options: { streams: { type: 'string' }, limit: { type: 'string', default: '300000' }, variants: { type: 'string', default: '4096:4050,32768:32000' }, repeat: { type: 'string', default: '1' } },
});
if (!values.streams) throw new Error('--streams FILE is required (written by scripts/bench/write.ts --streams)');

type Row = [string, string, string, string, string];
/** Line by line: the file passes V8's longest string. */
function readRows(file: string, limit: number): Row[] {
  const bytes = readFileSync(file);
  const rows: Row[] = [];
  for (let at = 0; at < bytes.length && rows.length < limit; ) {
    let end = bytes.indexOf(10, at);
    if (end < 0) end = bytes.length;
    if (end > at) rows.push(JSON.parse(bytes.toString('utf8', at, end)) as Row);
    at = end + 1;
  }
  return rows;
}

const cpuSeconds = () => {
  const used = process.threadCpuUsage();
  return (used.user + used.system) / 1e6;
};

function run(rows: Row[], pageSize: number, leafBytes: number) {
  const dir = mkdtempSync(join(tmpdir(), 'fundus-fts5-pages-'));
  const file = join(dir, 'fts.sqlite');
  const db = new DatabaseSync(file);
  db.exec(`PRAGMA page_size = ${pageSize}; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL`);
  db.exec(FTS_WRITER_PRAGMAS);
  db.exec(`CREATE VIRTUAL TABLE documents_fts USING fts5(${FTS_TABLE_ARGUMENTS})`);
  setFtsWriteSettings(db);
  db.exec(`INSERT INTO documents_fts(documents_fts, rank) VALUES ('pgsz', ${leafBytes})`);
  const insert = db.prepare(FTS_INSERT);
  let started = cpuSeconds();
  for (let first = 0; first < rows.length; first += 2500) {
    db.exec('BEGIN');
    for (let i = first; i < Math.min(rows.length, first + 2500); i++) insert.run(i + 1, ...rows[i]);
    db.exec('COMMIT');
  }
  const writing = cpuSeconds() - started;
  started = cpuSeconds();
  db.exec(`INSERT INTO documents_fts(documents_fts) VALUES ('optimize')`);
  const merging = cpuSeconds() - started;
  db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  const bytes = statSync(file).size;
  db.close();
  rmSync(dir, { recursive: true, force: true });
  return { writing, merging, bytes };
}

const rows = readRows(values.streams, Number(values.limit));
console.log(`${rows.length} records' FTS5 rows; CPU seconds of this thread`);
console.log('| page size : leaf bytes | writing | optimize | both | file |');
console.log('|---|---|---|---|---|');
for (let round = 0; round < Number(values.repeat); round++) {
  for (const variant of values.variants.split(',')) {
    const [pageSize, leafBytes] = variant.split(':').map(Number);
    const { writing, merging, bytes } = run(rows, pageSize, leafBytes);
    console.log(`| ${pageSize} : ${leafBytes} | ${writing.toFixed(2)} | ${merging.toFixed(2)} | ${(writing + merging).toFixed(2)} | ${(bytes / 2 ** 20).toFixed(0)} MiB |`);
  }
}

// Design spike for the writer (issue #23): SQLite allows one writer per file, so the FTS5 rows could be
// written by a second thread into a file of their own while the writer's thread writes the documents
// rows. Times both ways on the same input: one thread writing rows and FTS5 into one file, as the
// writer does now, against two threads and two files. Rows are simplified (random ids, hashes of the
// text) but carry the real schema's indexes; the id and content-hash look-ups of each put are made too.
//   node_modules/.bin/node scripts/bench/write.ts --records FILE --limit N --streams STREAMS.jsonl
//   node_modules/.bin/node scripts/bench/fts-second-file.ts FILE STREAMS.jsonl [N]
import { DatabaseSync } from 'node:sqlite';
import { Worker, isMainThread, workerData, parentPort } from 'node:worker_threads';
import { readFileSync, rmSync, mkdtempSync } from 'node:fs';
import { createHash, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { createSchema } from '../../services/index/sqlite/schema.ts';

const FTS = `CREATE VIRTUAL TABLE IF NOT EXISTS documents_fts USING fts5(title_exact, body_exact, title_base, body_base, facets, content='', contentless_delete=1, tokenize="ascii tokenchars '_'");
  INSERT INTO documents_fts(documents_fts, rank) VALUES ('automerge', 64); INSERT INTO documents_fts(documents_fts, rank) VALUES ('crisismerge', 64); INSERT INTO documents_fts(documents_fts, rank) VALUES ('hashsize', 33554432);`;
const PRAGMAS = 'PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = 65536; PRAGMA mmap_size = 268435456; PRAGMA cache_size = -65536';

type Streams = [string, string, string, string, string];
interface Row { id: string; url: string; host: string; title: string; text: string; hash: string; titleKey: string; fp: string; age: string | null }

function writeFts(file: string, streams: Streams[]) {
  const db = new DatabaseSync(file); db.exec(PRAGMAS); db.exec(FTS);
  const ins = db.prepare('INSERT INTO documents_fts (rowid, title_exact, body_exact, title_base, body_base, facets) VALUES (?, ?, ?, ?, ?, ?)');
  for (let i = 0; i < streams.length; i += 2500) { db.exec('BEGIN'); for (let j = i; j < Math.min(i + 2500, streams.length); j++) ins.run(j + 1, ...streams[j]); db.exec('COMMIT'); }
  db.close();
}
function writeRows(db: DatabaseSync, rows: Row[], alsoFts: Streams[] | null) {
  const ins = db.prepare(`INSERT INTO documents (seq, id, url, canonical_url, host, source_domain, source_id, title, text, content_type, document_type, dates, fetched_at, content_hash, title_key, fingerprint, is_news, content, changed_at, age_date)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'text/html', 'html', '{}', '2026-01-01', ?, ?, ?, 0, '{}', '2026-01-01', ?)`);
  const fts = alsoFts && db.prepare('INSERT INTO documents_fts (rowid, title_exact, body_exact, title_base, body_base, facets) VALUES (?, ?, ?, ?, ?, ?)');
  const byId = db.prepare('SELECT seq FROM documents WHERE id = ?'); const byHash = db.prepare('SELECT seq FROM documents WHERE content_hash = ? AND duplicate_of IS NULL LIMIT 1');
  for (let i = 0; i < rows.length; i += 2500) {
    db.exec('BEGIN');
    for (let j = i; j < Math.min(i + 2500, rows.length); j++) {
      const r = rows[j]; byId.get(r.id); byHash.get(r.hash);
      ins.run(j + 1, r.id, r.url, r.url, r.host, r.host, r.host, r.title, r.text, r.hash, r.titleKey, r.fp, r.age);
      if (fts) fts.run(j + 1, ...alsoFts[j]);
    }
    db.exec('COMMIT');
  }
}
if (isMainThread) {
  const [recordsFile, streamsFile, limit] = process.argv.slice(2);
  if (!recordsFile || !streamsFile) throw new Error('usage: fts-second-file.ts RECORDS.jsonl STREAMS.jsonl [N]');
  const n = Number(limit ?? 50000);
  const streams = readFileSync(streamsFile, 'utf8').split('\n').filter(Boolean).slice(0, n).map((l) => JSON.parse(l) as Streams);
  const rows = readFileSync(recordsFile, 'utf8').split('\n').filter(Boolean).slice(0, n).map((l): Row => { const r = JSON.parse(l) as { url: string; title: string; text: string; published_at?: string }; const host = new URL(r.url).host;
    return { id: randomUUID(), url: r.url, host, title: r.title, text: r.text, hash: createHash('sha256').update(r.text).digest('hex'), titleKey: createHash('sha1').update(r.title).digest('hex').slice(0, 16), fp: createHash('sha1').update(r.url).digest('hex').slice(0, 16), age: r.published_at ?? null }; });
  for (const mode of ['one file, one thread', 'two files, two threads', 'one file, one thread', 'two files, two threads']) {
    const dir = mkdtempSync(join(tmpdir(), 'fundus-bench-fts-')); const t = performance.now(); const c = process.cpuUsage();
    const db = new DatabaseSync(join(dir, 'index.sqlite')); db.exec(PRAGMAS); createSchema(db); db.exec(`INSERT INTO documents_fts(documents_fts, rank) VALUES ('hashsize', 33554432)`);
    if (mode.startsWith('one')) writeRows(db, rows, streams);
    else {
      const w = new Worker(new URL(import.meta.url), { workerData: { file: join(dir, 'fts.sqlite'), streams } });
      const done = new Promise((resolve, reject) => { w.on('message', resolve); w.on('error', reject); });
      writeRows(db, rows, null); await done;
    }
    db.close(); const u = process.cpuUsage(c);
    console.log(`${mode}: ${n} records in ${((performance.now() - t) / 1000).toFixed(2)} s wall, ${((u.user + u.system) / 1e6).toFixed(2)} CPU s (all threads)`);
    rmSync(dir, { recursive: true, force: true });
  }
} else { writeFts(workerData.file, workerData.streams); parentPort!.postMessage('done'); }

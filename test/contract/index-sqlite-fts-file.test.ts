import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { analyzeQuery } from '../../services/core/analysis/index.ts';
import type { StoredDocument } from '../../services/core/document.ts';
import type { IndexQuery } from '../../services/core/index-port.ts';
import { FTS_PAGE_BYTES, ftsFileOf } from '../../services/index/sqlite/fts-file.ts';
import { IndexNotReadyError, SqliteIndex } from '../../services/index/sqlite/sqlite-index.ts';
import { makeDoc } from '../helpers/documents.ts';

// The FTS5 table in a file of its own, written after the rows (fts-file.ts): on the writer's FTS5
// thread the same index results as written in line; what a killed writer left unwritten is
// written by the next writer from the rows.

const ROOT = resolve(import.meta.dirname, '../..');
const newFile = () => join(mkdtempSync(join(tmpdir(), 'fundus-fts-file-')), 'index.sqlite');
const docs = Array.from({ length: 900 }, (_, i) =>
  makeDoc({
    url: `https://stadt${i % 4}.example/seite/${i}`,
    title: i % 7 === 0 ? `Satzung über Gebühren ${i}` : `Bericht ${i}`,
    text: `${'Die Satzung regelt die Gebühren. '.repeat(1 + (i % 5))} Fall ${i} der Verwaltung${i % 3 === 0 ? ', Abwasserbeseitigung' : ''}.`,
    topic: i % 2 ? 'Recht' : 'Verwaltung',
  }),
);
const changed = (doc: StoredDocument, i: number) => ({ ...doc, title: `Geänderte Satzung ${i}`, text: `Neu gefasst: Straßenreinigung ${i}.`, changedAt: '2026-11-26T00:00:00Z' });
const queries = ['Satzung', 'Gebühren Satzung', 'Abwasserbeseitigung', 'Straßenreinigung', 'Bericht Fall', 'Verwaltung', 'geänderte'];

/** What a reader of the file answers to every query: ids and totals. */
async function answers(file: string): Promise<Record<string, { ids: string[]; total: number }>> {
  const reader = new SqliteIndex({ file, readOnly: true, rankAllUpTo: Number.POSITIVE_INFINITY });
  const seen: Record<string, { ids: string[]; total: number }> = {};
  for (const q of queries) {
    const query: IndexQuery = { terms: analyzeQuery(q), order: 'relevance', limit: 20, offset: 0, countBudgetMs: 60_000 };
    const result = await reader.search(query);
    seen[q] = { ids: result.hits.map((hit) => hit.document.id), total: result.total };
  }
  await reader.close();
  return seen;
}

/** Writes, updates and removes in several batches, as ingestion does. */
async function fill(index: SqliteIndex): Promise<void> {
  for (let from = 0; from < docs.length; from += 200) {
    await index.writeBatch(async () => {
      for (const doc of docs.slice(from, from + 200)) await index.put(doc);
      if (from > 0) for (let i = from - 200; i < from; i += 9) await index.put(changed(docs[i], i));
      if (from > 0) await index.remove(docs[from - 1].id);
    });
  }
}

function ftsRows(file: string): number {
  const db = new DatabaseSync(ftsFileOf(file), { readOnly: true });
  const rows = Number((db.prepare('SELECT count(*) AS n FROM documents_fts_docsize').get() as { n: number }).n);
  db.close();
  return rows;
}

function pendingNotes(file: string): number {
  const db = new DatabaseSync(file, { readOnly: true });
  const notes = Number((db.prepare('SELECT count(*) AS n FROM fts_pending').get() as { n: number }).n);
  db.close();
  return notes;
}

describe('sqlite index: the FTS5 file', () => {
  it('holds the FTS5 table beside the rows; written on the FTS5 thread, the index answers as written in line', async () => {
    const inline = newFile();
    const threaded = newFile();
    const a = new SqliteIndex({ file: inline });
    await fill(a);
    await a.close();
    const b = new SqliteIndex({ file: threaded, ftsThread: true });
    await fill(b);
    await b.close();

    const rows = new DatabaseSync(threaded, { readOnly: true });
    expect(rows.prepare(`SELECT name FROM sqlite_master WHERE name LIKE 'documents_fts%'`).all()).toEqual([]);
    rows.close();
    expect(ftsRows(threaded)).toBe(docs.length - 4); // four removed
    expect(pendingNotes(threaded)).toBe(0); // dropped when their FTS5 rows were written

    const expected = await answers(inline);
    expect(expected['Straßenreinigung'].total).toBe(92); // every ninth of the first 800, changed
    expect(expected['Satzung'].total).toBeGreaterThan(800);
    expect(await answers(threaded)).toEqual(expected);

    // Merged and listed the same way, too.
    for (const file of [inline, threaded]) {
      const writer = new SqliteIndex({ file, ftsThread: file === threaded });
      await writer.optimize({ headTermMinMatches: 50 });
      await writer.close();
    }
    expect(await answers(threaded)).toEqual(await answers(inline));
  });

  it('a new FTS5 file has large pages and leaves; one made with SQLite\'s default pages is written, merged and listed the same', async () => {
    const large = newFile();
    const small = newFile();
    // An FTS5 file as an earlier version made it: SQLite's default page size, fixed once written.
    const before = new DatabaseSync(ftsFileOf(small));
    before.exec('PRAGMA page_size = 4096; PRAGMA journal_mode = WAL; CREATE TABLE made_before (x); DROP TABLE made_before');
    before.close();
    for (const file of [large, small]) {
      const index = new SqliteIndex({ file, ftsThread: true });
      await fill(index);
      const built = await index.optimize({ headTermMinMatches: 50 });
      expect(built.scoreLists).not.toBeNull(); // the leaves of either size were read
      await index.close();
    }
    const layout = (file: string) => {
      const db = new DatabaseSync(ftsFileOf(file), { readOnly: true });
      const pageSize = (db.prepare('PRAGMA page_size').get() as { page_size: number }).page_size;
      const leaf = db.prepare(`SELECT v FROM documents_fts_config WHERE k = 'pgsz'`).get() as { v: number } | undefined;
      const largest = (db.prepare('SELECT max(length(block)) AS n FROM documents_fts_data').get() as { n: number }).n;
      db.close();
      return { pageSize, leaf: leaf?.v, largest };
    };
    expect(layout(large)).toMatchObject({ pageSize: FTS_PAGE_BYTES, leaf: 32_000 });
    expect(layout(large).largest).toBeGreaterThan(4096); // the merged segment's leaves are large
    expect(layout(small)).toMatchObject({ pageSize: 4096, leaf: undefined });
    expect(layout(small).largest).toBeLessThanOrEqual(4096);
    expect(await answers(small)).toEqual(await answers(large));
  });

  it('writes again from the rows what a writer killed between its two commits left unwritten', async () => {
    const file = newFile();
    const index = new SqliteIndex({ file });
    await fill(index);
    await index.close();
    const expected = await answers(file);

    // The state a kill between the commits leaves: the rows of a write committed with their note,
    // the FTS5 rows not (the inserted are missing, the removed still there, the changed old).
    const removed = docs[399];
    const fts = new DatabaseSync(ftsFileOf(file));
    const main = new DatabaseSync(file);
    const seqOf = (id: string) => (main.prepare('SELECT seq FROM documents WHERE id = ?').get(id) as { seq: number }).seq;
    const lost = [docs[5], docs[250], changed(docs[9], 9)].map((doc) => seqOf(doc.id));
    for (const seq of lost) fts.prepare('DELETE FROM documents_fts WHERE rowid = ?').run(seq);
    fts.prepare('INSERT INTO documents_fts (rowid, title_exact, body_exact, title_base, body_base, facets) VALUES (?, ?, ?, ?, ?, ?)').run(lost[2], 'bericht 9', 'satzung', 'bericht 9', 'satzung', '');
    const ghost = 100_000; // a removed document whose FTS5 row stayed
    fts.prepare('INSERT INTO documents_fts (rowid, title_exact, body_exact, title_base, body_base, facets) VALUES (?, ?, ?, ?, ?, ?)').run(ghost, 'strassenreinigung', '', 'strassenreinigung', '', '');
    fts.close();
    const note = new Uint32Array([...lost, ghost]);
    main.prepare('INSERT INTO fts_pending (generation, seqs) VALUES (?, ?)').run(1_000_000, new Uint8Array(note.buffer));
    main.close();
    expect(removed.id).toBeTruthy();

    const broken = await answers(file);
    expect(broken).not.toEqual(expected);

    // A reader does not repair; the next writer does, before anything else.
    const writer = new SqliteIndex({ file });
    expect(pendingNotes(file)).toBe(0);
    await writer.close();
    expect(await answers(file)).toEqual(expected);
    expect(ftsRows(file)).toBe(docs.length - 4);
  });

  it('a writer killed while its FTS5 thread writes leaves an index the next writer completes', async () => {
    const file = newFile();
    const script = `
      import { SqliteIndex } from ${JSON.stringify(join(ROOT, 'services/index/sqlite/sqlite-index.ts'))};
      import { makeDoc } from ${JSON.stringify(join(ROOT, 'test/helpers/documents.ts'))};
      const index = new SqliteIndex({ file: ${JSON.stringify(file)}, ftsThread: true });
      for (let batch = 0; batch < 3; batch++) {
        await index.writeBatch(async () => {
          for (let i = batch * 300; i < (batch + 1) * 300; i++) {
            await index.put(makeDoc({ url: 'https://kill.example/' + i, title: 'Seite ' + i, text: 'Die Satzung regelt Fall ' + i + '.' }));
          }
        });
      }
      process.kill(process.pid, 'SIGKILL'); // the last write's FTS5 rows may still be on their way
    `;
    const scriptFile = join(mkdtempSync(join(tmpdir(), 'fundus-fts-kill-')), 'writer.mjs');
    writeFileSync(scriptFile, script);
    const child = spawn(process.execPath, [scriptFile], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let errors = '';
    child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    const signal = await new Promise<NodeJS.Signals | null>((done) => child.on('exit', (_code, sig) => done(sig)));
    expect(signal, errors).toBe('SIGKILL');
    expect(pendingNotes(file)).toBeGreaterThanOrEqual(1); // the last write's note at least

    const writer = new SqliteIndex({ file });
    expect(pendingNotes(file)).toBe(0);
    await writer.close();
    expect(ftsRows(file)).toBe(900);
    const reader = new SqliteIndex({ file, readOnly: true });
    const result = await reader.search({ terms: analyzeQuery('Satzung'), order: 'relevance', limit: 5, offset: 0, countBudgetMs: 60_000 });
    expect(result.total).toBe(900);
    await reader.close();
  });

  it('reports a failure of the FTS5 thread to the ingestion, and the next writer writes what it could not', async () => {
    const file = newFile();
    const index = new SqliteIndex({ file, ftsThread: true });
    await index.writeBatch(async () => {
      for (const doc of docs.slice(0, 100)) await index.put(doc);
    });
    // Another connection holds the FTS5 file's write lock past the thread's busy timeout (5 s).
    const locker = new DatabaseSync(ftsFileOf(file));
    locker.exec('BEGIN IMMEDIATE');
    const failed = (async () => {
      for (let from = 100; from < 900; from += 100) {
        await index.writeBatch(async () => {
          for (const doc of docs.slice(from, from + 100)) await index.put(doc);
        });
      }
      await index.close();
    })();
    await expect(failed).rejects.toThrow(/writing the FTS5 file failed: database is locked/);
    index.closeSync();
    locker.exec('ROLLBACK');
    locker.close();
    expect(pendingNotes(file)).toBeGreaterThanOrEqual(1);

    new SqliteIndex({ file }).closeSync(); // repairs on opening
    expect(pendingNotes(file)).toBe(0);
    const rows = new DatabaseSync(file, { readOnly: true });
    const stored = Number((rows.prepare('SELECT count(*) AS n FROM documents').get() as { n: number }).n);
    rows.close();
    expect(stored).toBeGreaterThan(100);
    expect(ftsRows(file)).toBe(stored);
  }, 30_000);

  it('a reader waits for an FTS5 file that is not there yet; a writer refuses rows that lost theirs', async () => {
    const file = newFile();
    const index = new SqliteIndex({ file });
    await index.put(docs[0]);
    await index.close();
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${ftsFileOf(file)}${suffix}`, { force: true });
    expect(() => new SqliteIndex({ file, readOnly: true })).toThrow(IndexNotReadyError);
    expect(() => new SqliteIndex({ file })).toThrow(/lost its FTS5 file/);
    expect(existsSync(ftsFileOf(file))).toBe(true); // created empty by the attempt, still refused next time
    expect(() => new SqliteIndex({ file })).toThrow(/lost its FTS5 file/);
    expect(() => new SqliteIndex({ file, readOnly: true })).toThrow(IndexNotReadyError); // a file without the table yet
  });
});

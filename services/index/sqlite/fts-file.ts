import { DatabaseSync } from 'node:sqlite';

// The FTS5 table lives in a file of its own beside the documents ("index.fts.sqlite" beside
// "index.sqlite"), attached to every connection as `fts`, so that SQL names it without a schema.
// SQLite lets one writer at a time write a file: with two files, ingestion writes the rows on its
// thread and the FTS5 rows on a second one (fts-writer.ts), in parallel (a 50k-record spike:
// a third less wall time and less CPU, scripts/bench/fts-second-file.ts). A write commits the
// rows first, with the seqs whose FTS5 rows change (fts_pending), and the FTS5 rows after; a
// pending note is removed once they are written, so whatever a killed process left unwritten is
// written again from the rows when the next writer opens (sqlite-index.ts `repairFts`).
// An in-memory index keeps one database: the FTS5 table in `main`, written in the same transaction.

export const FTS_SCHEMA = 'fts';

export function ftsFileOf(indexFile: string): string {
  return `${indexFile.replace(/\.sqlite$/, '')}.fts.sqlite`;
}

/**
 * A new FTS5 file's database pages and FTS5 leaves: 32 KiB pages, leaves that fill one. FTS5 writes
 * and merges its index a leaf at a time, each a row of its own b-tree; with SQLite's default 4 KiB
 * pages and 4050-byte leaves, writing 300k records' FTS5 rows and merging them took 35.0–41.8 CPU s,
 * with these 29.7–33.7 (`scripts/bench/fts5-pages.ts`, README "Records at a million"). A file made before
 * keeps its pages (SQLite fixes a file's page size when it is created); leaves of any size are read
 * the same (fts5-postings.ts).
 */
export const FTS_PAGE_BYTES = 32_768;
const FTS_LEAF_BYTES = 32_000;

/** FTS5's pending terms of a write transaction, at most (its 'hashsize'). */
const FTS_PENDING_BYTES = 32 * 2 ** 20;

/** The page cache and journal settings of the connection that writes FTS5 rows (the FTS5 thread). */
export const FTS_WRITER_PRAGMAS = 'PRAGMA wal_autocheckpoint = 65536; PRAGMA mmap_size = 0; PRAGMA cache_size = -16384; PRAGMA temp_store = MEMORY';

/** How FTS5 merges while an index is written (they are kept in its config table). */
export function setFtsWriteSettings(db: DatabaseSync): void {
  // Merge FTS5 segments rarely while writing (each merge rewrites what it merges; measured at
  // 100k documents: 15 % less time than merging 16 at a time, a third less than the default
  // of 4); ingestion ends with a full `optimize`, so readers then see one segment again.
  db.exec(`INSERT INTO documents_fts(documents_fts, rank) VALUES ('automerge', 64)`);
  db.exec(`INSERT INTO documents_fts(documents_fts, rank) VALUES ('crisismerge', 64)`);
  // Terms wait in memory until a commit, not until 1 MiB (FTS5's default), so that a batch of
  // 2500 documents makes one segment instead of about seven: the writer's thread stored 100k
  // records with 13 % less CPU (scripts/bench/write.ts). At most this much more memory.
  db.exec(`INSERT INTO documents_fts(documents_fts, rank) VALUES ('hashsize', ${FTS_PENDING_BYTES})`);
}

/** Before anything is written to a new FTS5 file: its page size (a no-op on a file with tables). */
export function setNewFtsPageSize(db: DatabaseSync): void {
  db.exec(`PRAGMA ${FTS_SCHEMA}.page_size = ${FTS_PAGE_BYTES}`);
}

/** After the FTS5 table is created in a new index: leaves as large as the file's pages allow. */
export function setFtsLeafSize(db: DatabaseSync, ftsSchema: string): void {
  const { page_size: pageSize } = db.prepare(`PRAGMA ${ftsSchema}.page_size`).get() as { page_size: number };
  if (pageSize === FTS_PAGE_BYTES) db.exec(`INSERT INTO ${ftsSchema}.documents_fts(documents_fts, rank) VALUES ('pgsz', ${FTS_LEAF_BYTES})`);
}

/** The schema the FTS5 table of an index at `file` is in. */
export function ftsSchemaOf(file: string): 'main' | typeof FTS_SCHEMA {
  return file === ':memory:' ? 'main' : FTS_SCHEMA;
}

/** Attaches the FTS5 file to a connection of the index at `file` (read-only if the connection is). */
export function attachFts(db: DatabaseSync, file: string): void {
  if (file === ':memory:') return;
  db.prepare(`ATTACH DATABASE ? AS ${FTS_SCHEMA}`).run(ftsFileOf(file));
}

/** A read-only connection to the index at `file`, its FTS5 file attached (the lists' and head terms' workers). */
export function openIndexReader(file: string): DatabaseSync {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    attachFts(db, file);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/**
 * One FTS5 change: a row id to delete, or a row to insert (row id, then title_exact, body_exact,
 * title_base, body_base, facets). An update is a delete followed by an insert of the same row id.
 */
export type FtsOp = number | [number, string, string, string, string, string];

export const FTS_INSERT = 'INSERT INTO documents_fts (rowid, title_exact, body_exact, title_base, body_base, facets) VALUES (?, ?, ?, ?, ?, ?)';
export const FTS_DELETE = 'DELETE FROM documents_fts WHERE rowid = ?';

/** Applies `ops` in one transaction of `db`. */
export function applyFtsOps(db: DatabaseSync, ops: readonly FtsOp[], statements: FtsStatements = ftsStatements(db)): void {
  db.exec('BEGIN');
  try {
    for (const op of ops) {
      if (typeof op === 'number') statements.remove.run(op);
      else statements.insert.run(...op);
    }
    db.exec('COMMIT');
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw error;
  }
}

export interface FtsStatements {
  insert: ReturnType<DatabaseSync['prepare']>;
  remove: ReturnType<DatabaseSync['prepare']>;
}

export function ftsStatements(db: DatabaseSync): FtsStatements {
  return { insert: db.prepare(FTS_INSERT), remove: db.prepare(FTS_DELETE) };
}

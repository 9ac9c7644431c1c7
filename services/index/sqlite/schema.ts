import type { DatabaseSync } from 'node:sqlite';
import { setFtsLeafSize } from './fts-file.ts';

// Version of the on-disk layout; a file written by another version is refused with a clear message.
// 3: rank weights below, and the German analysis's new compound parts (hunspell-filled lexicon).
// 4: compound parts in the base columns once per text, and the text of link lists below a page's heading.
// 5: base forms keep -ung/-heit/-keit (snowball-german.ts CHANGE 3); exact forms as written
//    (lower case only: ß, umlauts and hyphenated spellings are word forms, analysis/index.ts).
// 6: the FTS5 table in a file of its own beside the documents (fts-file.ts), with fts_pending;
//    the long columns (dates, content, text) at the end of a row.
export const SQLITE_SCHEMA_VERSION = '6';

// Column weights of bm25 over (title_exact, body_exact, title_base, body_base, facets): a word in
// the title counts ten times a word in the body. The base columns carry the ranking, so every form
// of a word counts alike, as in a stemmed index. A word in its exact form also scores in the exact
// columns: fully in the title, so exact hits rank above word-form hits of similar relevance, and
// only a hundredth in the body, because even a tenth buried documents that hold only another form
// of the word under exact hits (word forms found in the top 50 on the shared corpus: 88 % with
// weights 10/1/4/0.5, 90.6 % with 1/0.1/10/1, 93.2 % with these; scripts/bench/quality.ts).
// Measured again with compound parts once per text (layout 4, FTS5's order): no weight in the body
// exact column gives word forms 94.5 → 95.3 %, but compound heads 99.1 → 98.9 %, modifiers
// 98.1 → 98.1 % (one fewer) and key-term MRR 0.972 → 0.970 (a query's rare exact form, a genitive
// "Beispiels", was their only clue), so the hundredth stays. Again with layout 5: 95.0 → 95.9 %, but
// heads 99.1 → 98.9 %, modifiers 98.1 → 98.05 %, MRR 0.972 → 0.971. Weights are multiples of 0.01 (score-lists.ts stores them × 100).
export const RANK_WEIGHTS = [1.0, 0.01, 10.0, 1.0, 0.0] as const;
export const RANK_FUNCTION = `bm25(${RANK_WEIGHTS.map((weight) => String(weight)).join(', ')})`;

/** The FTS5 table's columns and options (also the FTS5 benchmarks' table). */
export const FTS_TABLE_ARGUMENTS = `title_exact, body_exact, title_base, body_base, facets, content='', contentless_delete=1, tokenize="ascii tokenchars '_'"`;

/** Creates what is missing; the FTS5 table in `ftsSchema` (fts-file.ts). */
export function createSchema(db: DatabaseSync, ftsSchema: 'main' | 'fts' = 'main'): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS documents (
      seq INTEGER PRIMARY KEY,
      id TEXT NOT NULL UNIQUE,
      url TEXT NOT NULL,
      canonical_url TEXT NOT NULL,
      host TEXT NOT NULL,
      source_domain TEXT NOT NULL,
      source_id TEXT NOT NULL,
      title TEXT NOT NULL,
      content_type TEXT NOT NULL,
      document_type TEXT NOT NULL,
      language TEXT,
      published_at TEXT,
      modified_at TEXT,
      content_date TEXT,
      age_date TEXT,
      fetched_at TEXT NOT NULL,
      content_hash TEXT NOT NULL,
      title_key TEXT NOT NULL,
      fingerprint TEXT,
      topic TEXT,
      is_news INTEGER NOT NULL,
      duplicate_of TEXT,
      changed_at TEXT NOT NULL,
      -- The long columns last: a read of the others stops before a text's overflow pages.
      dates TEXT NOT NULL,
      content TEXT NOT NULL,
      text TEXT NOT NULL
    );
    CREATE INDEX IF NOT EXISTS documents_content_hash ON documents(content_hash) WHERE duplicate_of IS NULL;
    CREATE INDEX IF NOT EXISTS documents_source ON documents(source_domain) WHERE duplicate_of IS NULL;
    CREATE INDEX IF NOT EXISTS documents_newest ON documents(age_date) WHERE duplicate_of IS NULL;
    -- Near-duplicate candidates come by title key; the fingerprint in the index spares reading rows.
    DROP INDEX IF EXISTS documents_title_key;
    CREATE INDEX IF NOT EXISTS documents_title_fingerprint ON documents(title_key, seq, fingerprint) WHERE duplicate_of IS NULL;
    -- Filters read per-document arrays of the score lists now (score-lists.ts).
    DROP INDEX IF EXISTS documents_facets;
    CREATE TABLE IF NOT EXISTS head_terms (expression TEXT PRIMARY KEY, total INTEGER NOT NULL, seqs BLOB NOT NULL, scores BLOB NOT NULL) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS aliases (alias_id TEXT PRIMARY KEY, url TEXT NOT NULL, document_id TEXT NOT NULL);
    CREATE INDEX IF NOT EXISTS aliases_document ON aliases(document_id);
    -- Writes whose FTS5 changes may not be in the FTS5 file yet: the seqs (uint32) of each, by generation.
    CREATE TABLE IF NOT EXISTS fts_pending (generation INTEGER PRIMARY KEY, seqs BLOB NOT NULL);
    CREATE VIRTUAL TABLE IF NOT EXISTS ${ftsSchema}.documents_fts USING fts5(${FTS_TABLE_ARGUMENTS});
  `);
  // Bumped by every commit (sqlite-index.ts); head-term lists remember the generation they were built at.
  db.exec(`INSERT OR IGNORE INTO meta (key, value) VALUES ('generation', '0')`);
  const version = db.prepare(`SELECT value FROM meta WHERE key = 'schema_version'`).get() as { value: string } | undefined;
  if (!version) {
    db.prepare(`INSERT INTO meta(key, value) VALUES ('schema_version', ?)`).run(SQLITE_SCHEMA_VERSION);
    db.exec(`INSERT INTO documents_fts(documents_fts, rank) VALUES ('rank', '${RANK_FUNCTION}')`);
    setFtsLeafSize(db, ftsSchema);
  }
}

export function checkSchemaVersion(db: DatabaseSync, file: string): void {
  const hasMeta = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'`).get();
  if (!hasMeta) return;
  const row = db.prepare(`SELECT value FROM meta WHERE key = 'schema_version'`).get() as { value: string } | undefined;
  if (row && row.value !== SQLITE_SCHEMA_VERSION) {
    throw new Error(`index ${file} has layout version ${row.value}, this program reads version ${SQLITE_SCHEMA_VERSION}: re-ingest into a new data directory`);
  }
}

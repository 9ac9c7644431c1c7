import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import zlib from 'node:zlib';

// What the crawler remembers between runs, per URL: the validators for conditional requests
// (ETag -> If-None-Match, Last-Modified -> If-Modified-Since), the last status, when, and the
// outgoing links of an HTML page, so that a 304 still leads on to the pages behind it.

export interface CrawlStateEntry {
  etag: string | null;
  lastModified: string | null;
  lastStatus: number;
  fetchedAt: string;
  /** Links followed out of the page last time (HTML only). */
  links: string[];
}

export interface CrawlState {
  get(url: string): CrawlStateEntry | undefined;
  set(url: string, entry: CrawlStateEntry): void;
  close(): void;
}

export function createMemoryCrawlState(): CrawlState {
  const entries = new Map<string, CrawlStateEntry>();
  return {
    get: (url) => {
      const entry = entries.get(url);
      return entry && { ...entry, links: [...entry.links] };
    },
    set: (url, entry) => void entries.set(url, { ...entry, links: [...entry.links] }),
    close: () => entries.clear(),
  };
}

// The table name carries a version so a changed layout never misreads an old file.
const TABLE = 'crawl_state_v1';

/** A SQLite file (WAL) kept across runs; ":memory:" for a throwaway one. */
export function openCrawlState(file: string): CrawlState {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new DatabaseSync(file);
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000;');
  db.exec(`CREATE TABLE IF NOT EXISTS ${TABLE} (
    url TEXT PRIMARY KEY,
    etag TEXT,
    last_modified TEXT,
    last_status INTEGER NOT NULL,
    fetched_at TEXT NOT NULL,
    links BLOB
  ) WITHOUT ROWID`);
  const select: StatementSync = db.prepare(`SELECT etag, last_modified, last_status, fetched_at, links FROM ${TABLE} WHERE url = ?`);
  const upsert: StatementSync = db.prepare(`INSERT INTO ${TABLE} (url, etag, last_modified, last_status, fetched_at, links)
    VALUES (?, ?, ?, ?, ?, ?)
    ON CONFLICT (url) DO UPDATE SET etag = excluded.etag, last_modified = excluded.last_modified,
      last_status = excluded.last_status, fetched_at = excluded.fetched_at, links = excluded.links`);
  return {
    get(url) {
      const row = select.get(url) as
        | { etag: string | null; last_modified: string | null; last_status: number; fetched_at: string; links: Uint8Array | null }
        | undefined;
      if (!row) return undefined;
      return { etag: row.etag, lastModified: row.last_modified, lastStatus: row.last_status, fetchedAt: row.fetched_at, links: unpackLinks(row.links) };
    },
    set(url, entry) {
      upsert.run(url, entry.etag, entry.lastModified, entry.lastStatus, entry.fetchedAt, packLinks(entry.links));
    },
    close() {
      if (db.isOpen) db.close();
    },
  };
}

// Links are many and repetitive: stored as deflated, newline-separated text.
function packLinks(links: string[]): Uint8Array | null {
  return links.length ? zlib.deflateRawSync(links.join('\n')) : null;
}

function unpackLinks(packed: Uint8Array | null): string[] {
  if (!packed || packed.length === 0) return [];
  try {
    return zlib.inflateRawSync(packed).toString('utf8').split('\n');
  } catch {
    return []; // a damaged entry only costs the shortcut through an unchanged page
  }
}

import type { DatabaseSync } from 'node:sqlite';

// Reads the postings of an FTS5 table straight from its b-tree leaves, so that the score lists
// (score-lists.ts) can be built in one sequential pass instead of one ranked query per word.
// The layout is SQLite's documented on-disk format of FTS5 (the comments at the top of
// ext/fts5/fts5_index.c), which SQLite keeps readable across versions:
//   - %_data rows: id 1 is the averages record (rows, then tokens per column); segment leaves have
//     id = segid·2^37 + page (doclist indexes set bit 36; tombstone pages use segid ≥ 65536).
//   - A leaf: u16 offset of the first rowid (if before the first term), u16 offset of the footer,
//     then terms with their doclists; the footer lists the offsets of the terms on the page.
//   - A term: the first on a page is varint length + bytes; later ones share a prefix with the
//     previous one (varint prefix, varint suffix length, suffix). Terms carry the index byte '0'.
//   - A doclist: first rowid, then rowid deltas, each followed by a position list: varint
//     (size·2 + delete flag), then positions of column 0, and 0x01 + varint column before others.
//   - Doclists and position lists run on over following pages, split only between varints.
// It reads only an index merged into one segment without tombstones (after 'optimize'); anything
// else is refused, and the caller keeps using FTS5 itself.

/** Columns of documents_fts, in order (schema.ts). */
export const FTS_COLUMNS = 5;

const SEGMENT_SHIFT = 2 ** 37;
const DLIDX_FLAG = 2 ** 36;
const PAGE_MASK = 2 ** 31;
const TOMBSTONE_FIRST_ID = 2 ** 53; // segid 65536 and up

export interface TermPostings {
  /** The token (without FTS5's index byte). */
  token: string;
  /** Row ids, ascending. */
  rowids: Uint32Array;
  /** Occurrences per document and column: counts[i * FTS_COLUMNS + column]. */
  counts: Uint32Array;
}

export interface Fts5Averages {
  rows: number;
  /** Tokens per column over all rows. */
  columnTokens: number[];
}

export class Fts5FormatError extends Error {}

/** SQLite varints (big-endian groups of 7 bits, a ninth byte of 8), read at `cursor.at`. */
function varint(bytes: Uint8Array, cursor: { at: number }): number {
  let at = cursor.at;
  let byte = bytes[at++];
  if (byte < 0x80) {
    cursor.at = at;
    return byte;
  }
  let value = byte & 0x7f;
  for (let i = 1; i < 8; i++) {
    byte = bytes[at++];
    value = value * 128 + (byte & 0x7f);
    if (byte < 0x80) {
      cursor.at = at;
      return value;
    }
  }
  value = value * 256 + bytes[at++];
  cursor.at = at;
  return value;
}

export function readAverages(db: DatabaseSync, table = 'documents_fts'): Fts5Averages {
  const row = db.prepare(`SELECT block FROM ${table}_data WHERE id = 1`).get() as { block: Uint8Array } | undefined;
  if (!row) return { rows: 0, columnTokens: Array(FTS_COLUMNS).fill(0) };
  const cursor = { at: 0 };
  const rows = varint(row.block, cursor);
  const columnTokens = Array.from({ length: FTS_COLUMNS }, () => (cursor.at < row.block.length ? varint(row.block, cursor) : 0));
  return { rows, columnTokens };
}

/** Tokens of each row over all columns (what bm25 calls the document length), by row id. */
export function* readRowSizes(db: DatabaseSync, table = 'documents_fts'): Generator<{ rowid: number; tokens: number }> {
  const cursor = { at: 0 };
  for (const row of db.prepare(`SELECT id, sz FROM ${table}_docsize ORDER BY id`).iterate() as Iterable<{ id: number; sz: Uint8Array }>) {
    cursor.at = 0;
    let tokens = 0;
    while (cursor.at < row.sz.length) tokens += varint(row.sz, cursor);
    yield { rowid: row.id, tokens };
  }
}

/** The one segment's id, or null for an empty index; throws when the index is not in one piece. */
function singleSegment(db: DatabaseSync, table: string): number | null {
  const tombstones = db.prepare(`SELECT 1 FROM ${table}_data WHERE id >= ? LIMIT 1`).get(TOMBSTONE_FIRST_ID);
  if (tombstones) throw new Fts5FormatError('the FTS5 index has tombstones (deleted rows not merged yet)');
  // Two seeks of the b-tree, not a scan of every page: at a million documents the scan read 3 GB
  // (a second from the page cache, 19 s from disk), and the score lists' build asks three times.
  const first = db.prepare(`SELECT min(id) AS id FROM ${table}_data WHERE id >= ${SEGMENT_SHIFT} AND id < ?`).get(TOMBSTONE_FIRST_ID) as {
    id: number | bigint | null;
  };
  if (first.id === null) return null;
  const segid = Math.floor(Number(first.id) / SEGMENT_SHIFT);
  const other = db.prepare(`SELECT id FROM ${table}_data WHERE id >= ? AND id < ? LIMIT 1`).get((segid + 1) * SEGMENT_SHIFT, TOMBSTONE_FIRST_ID);
  if (other) throw new Fts5FormatError(`the FTS5 index has more than one segment; run 'optimize' first`);
  return segid;
}

/** How many leaf pages the index's one segment has (0 for an empty index). */
export function leafPages(db: DatabaseSync, table = 'documents_fts'): number {
  const segid = singleSegment(db, table);
  if (segid === null) return 0;
  const last = db.prepare(`SELECT max(id) AS id FROM ${table}_data WHERE id > ? AND id < ?`).get(segid * SEGMENT_SHIFT, segid * SEGMENT_SHIFT + DLIDX_FLAG) as { id: number | null };
  return last.id === null ? 0 : Number(last.id) % PAGE_MASK;
}

/** FTS5's leaf size when its 'pgsz' is not set (fts-file.ts sets it for a new file). */
const DEFAULT_LEAF_BYTES = 4050;

/** The size of the index's leaves, about: its 'pgsz'. */
export function leafSize(db: DatabaseSync, table = 'documents_fts'): number {
  const row = db.prepare(`SELECT v FROM ${table}_config WHERE k = 'pgsz'`).get() as { v: number } | undefined;
  return Number(row?.v ?? DEFAULT_LEAF_BYTES);
}

/**
 * Part of the index for one reader of several: the terms that start on leaf pages
 * [fromPage, toPage). A term that starts before `toPage` is read to its end, wherever that is.
 */
export interface PageRange {
  fromPage: number;
  toPage: number;
}

/**
 * Calls `onTerm` for every term of the index (or of `range`) in term order, with its documents
 * and per-column occurrence counts. Entries flagged as deletes are skipped. The arrays are views
 * of buffers reused for the next term: valid only during the call (copy what you keep).
 */
export function readTermPostings(
  db: DatabaseSync,
  onTerm: (postings: TermPostings) => void,
  range: PageRange = { fromPage: 1, toPage: Number.POSITIVE_INFINITY },
  table = 'documents_fts',
): void {
  const segid = singleSegment(db, table);
  if (segid === null) return;
  const decoder = new TextDecoder();
  const cursor = { at: 0 };

  let term = new Uint8Array(256);
  let termLength = 0;
  let haveTerm = false;
  let rowids = new Uint32Array(1024);
  let counts = new Uint32Array(1024 * FTS_COLUMNS);
  let entries = 0;
  let rowid = 0;
  // The position list being read: bytes still to come (it may run on over pages), its column,
  // whether a column number is due next, and whether the entry is a delete.
  let positionBytesLeft = 0;
  let column = 0;
  let columnDue = false;
  let deleted = false;

  const flushTerm = () => {
    if (haveTerm && entries > 0 && term[0] === 0x30 /* '0': the main index */) {
      onTerm({ token: decoder.decode(term.subarray(1, termLength)), rowids: rowids.subarray(0, entries), counts: counts.subarray(0, entries * FTS_COLUMNS) });
    }
    entries = 0;
  };
  const startEntry = () => {
    if (entries === rowids.length) {
      const grownRowids = new Uint32Array(rowids.length * 2);
      grownRowids.set(rowids);
      rowids = grownRowids;
      const grownCounts = new Uint32Array(counts.length * 2);
      grownCounts.set(counts);
      counts = grownCounts;
    }
    rowids[entries] = rowid;
    for (let c = entries * FTS_COLUMNS, end = c + FTS_COLUMNS; c < end; c++) counts[c] = 0;
    column = 0;
    columnDue = false;
  };
  const endEntry = () => {
    if (!deleted) entries++;
  };
  /** Reads position-list bytes from `at` up to `end` (or the list's end), counting positions per column. */
  const readPositions = (page: Uint8Array, at: number, end: number): number => {
    const stop = Math.min(end, at + positionBytesLeft);
    const base = entries * FTS_COLUMNS;
    // Positions are counted, not decoded (the bulk of the index's bytes): a byte below 0x80 ends a
    // varint, and 0x01 alone is the marker before a column number.
    let i = at;
    while (i < stop) {
      if (columnDue) {
        cursor.at = i;
        column = varint(page, cursor);
        i = cursor.at;
        if (column >= FTS_COLUMNS) throw new Fts5FormatError(`column ${column} out of range`);
        columnDue = false;
        continue;
      }
      const byte = page[i++];
      if (byte === 1) {
        columnDue = true;
        continue;
      }
      if (byte >= 0x80) while (i < end && page[i++] >= 0x80);
      counts[base + column]++;
    }
    positionBytesLeft -= i - at;
    if (positionBytesLeft === 0) endEntry();
    else if (positionBytesLeft < 0) throw new Fts5FormatError('position list overruns its size');
    return i;
  };
  /** Reads doclist entries from `at` to `end`; the first rowid is absolute when `absolute`. */
  const readDoclist = (page: Uint8Array, at: number, end: number, absolute: boolean): void => {
    let first = absolute;
    while (at < end) {
      cursor.at = at;
      const value = varint(page, cursor);
      rowid = first ? value : rowid + value;
      first = false;
      const size = varint(page, cursor);
      positionBytesLeft = Math.floor(size / 2);
      deleted = (size & 1) === 1;
      startEntry();
      if (positionBytesLeft === 0) {
        endEntry();
        at = cursor.at;
        continue;
      }
      at = readPositions(page, cursor.at, end);
    }
  };

  const leaves = db.prepare(`SELECT id, block FROM ${table}_data WHERE id >= ? AND id < ? ORDER BY id`);
  let expectedPage = range.fromPage;
  // A reader that starts inside the index skips what runs on from earlier pages (an earlier reader's term).
  let started = range.fromPage <= 1;
  for (const { id, block: page } of leaves.iterate(segid * SEGMENT_SHIFT + range.fromPage, segid * SEGMENT_SHIFT + DLIDX_FLAG) as Iterable<{ id: number; block: Uint8Array }>) {
    const pageNumber = id % PAGE_MASK;
    if (pageNumber !== expectedPage) throw new Fts5FormatError(`leaf ${expectedPage} is missing`);
    expectedPage++;
    const firstRowidAt = (page[0] << 8) | page[1];
    const footerAt = (page[2] << 8) | page[3];
    const termOffsets: number[] = [];
    for (cursor.at = footerAt; cursor.at < page.length; ) termOffsets.push((termOffsets.at(-1) ?? 0) + varint(page, cursor));
    const firstTermAt = termOffsets[0] ?? footerAt;
    if (pageNumber === 1 && (firstRowidAt !== 0 || firstTermAt !== 4)) throw new Fts5FormatError('the first leaf does not start with a term');

    if (started) {
      // What runs on from the previous page: the rest of a position list, then more entries.
      let at = 4;
      const headEnd = firstRowidAt !== 0 ? firstRowidAt : firstTermAt;
      if (positionBytesLeft > 0) at = readPositions(page, at, headEnd);
      const runsOn = positionBytesLeft > 0;
      if (at !== headEnd || (runsOn && headEnd !== footerAt)) throw new Fts5FormatError(`leaf ${pageNumber}: a position list does not end where the page says`);
      if (firstRowidAt !== 0) readDoclist(page, firstRowidAt, firstTermAt, true);
    } else if (termOffsets.length > 0) {
      started = true;
    } else {
      continue;
    }
    // The terms from `toPage` on are the next reader's.
    if (pageNumber >= range.toPage && termOffsets.length > 0) break;

    for (let t = 0; t < termOffsets.length; t++) {
      flushTerm();
      cursor.at = termOffsets[t];
      const shared = t === 0 ? 0 : varint(page, cursor);
      const added = varint(page, cursor);
      if (shared + added > term.length) {
        const grown = new Uint8Array(Math.max(term.length * 2, shared + added));
        grown.set(term.subarray(0, termLength));
        term = grown;
      }
      term.set(page.subarray(cursor.at, cursor.at + added), shared);
      termLength = shared + added;
      haveTerm = true;
      readDoclist(page, cursor.at + added, termOffsets[t + 1] ?? footerAt, true);
    }
  }
  if (positionBytesLeft > 0) throw new Fts5FormatError('the last position list is cut short');
  flushTerm();
}

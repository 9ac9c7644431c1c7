import { closeSync, fstatSync, openSync, readSync, renameSync, rmSync, writeSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import type { DatabaseSync } from 'node:sqlite';
import { Worker } from 'node:worker_threads';
import { FTS_COLUMNS, leafPages, leafSize, readAverages, readRowSizes, readTermPostings, type PageRange } from './fts5-postings.ts';
import { bitSetWords, blockCount, blocksOf, type ListBlocks } from './block-max.ts';
import { RANK_WEIGHTS } from './schema.ts';
import { siblingUrl } from './sibling.ts';

// Score lists: for every frequent word, in document order, the documents it occurs in with its
// weighted frequency there — once for its exact form (title_exact, body_exact) and once as a base
// form (title_base, body_base): the two kinds of phrase our FTS5 queries are made of (fts-query.ts).
// With each document's length, that is all bm25 needs, so list-search.ts ranks, filters and counts
// any query from these lists with FTS5's own formula (same order, exact totals) without FTS5
// scoring every match one by one. Words in fewer documents than `minDocuments` have no list: FTS5
// scores them fast (unless the token is frequent in the other columns: then the phrase is listed). Built after 'optimize' from the index's leaves (fts5-postings.ts), valid for
// the generation of the index it was built from (the same rule as head-terms.ts).
//
// File layout: the postings of each list (row ids as uint32, then weighted frequencies × 100 as
// uint16) — for a list of at least `blockDataFrom` documents followed, 8-aligned, by its block
// data for block-max (block-max.ts: each block's highest score as float64, each block's first
// posting as uint32, and for a long list its bit set), so that a reader never computes it — then
// per-document arrays (length, type, host, topic, news, age), then a JSON footer, its length
// (uint32) and the magic bytes.

const MAGIC = 'FUNDUSL1';
const FORMAT_VERSION = 3;
/**
 * Weighted frequencies are stored × 100: every column weight × 100 is a whole number (schema.ts,
 * down to 0.01). A body word counts 100, a title word 1000, so a list saturates (65535) only past
 * 655 occurrences in one document, where bm25 no longer tells counts apart.
 */
export const FREQUENCY_SCALE = 100;

export type PhraseSide = 'exact' | 'base';
export type FacetKind = 'type' | 'host' | 'topic' | 'news';
const EMPTY = new Uint32Array(0);

interface Footer {
  version: number;
  generation: string;
  rows: number;
  avgdl: number;
  maxSeq: number;
  minDocuments: number;
  /** Lists of at least this many documents carry their block data. */
  blockDataFrom: number;
  types: string[];
  hosts: string[];
  topics: string[];
  /** Whether every age date starts with YYYY-MM-DD, so that ages compare as numbers. */
  agesComparable: boolean;
  arrays: Record<DocArrayName, number>;
  /** [token, byte offset, documents] of every list, per side. */
  lists: Record<PhraseSide, [string, number, number][]>;
}

type DocArrayName = 'tokens' | 'type' | 'host' | 'topic' | 'news' | 'age';
const DOC_ARRAYS: Record<DocArrayName, Uint8ArrayConstructor | Uint16ArrayConstructor | Uint32ArrayConstructor> = {
  tokens: Uint32Array,
  type: Uint8Array,
  host: Uint32Array,
  topic: Uint16Array,
  news: Uint8Array,
  age: Uint32Array,
};

function align8(offset: number): number {
  return offset % 8 ? offset + 8 - (offset % 8) : offset;
}

export function scoreListsFile(indexFile: string): string {
  return `${indexFile.replace(/\.sqlite$/, '')}.lists`;
}

/** Words in fewer documents are scored by FTS5 at query time (about 2 µs a match). */
export function scoreListMinDocuments(documents: number): number {
  return Math.max(16, Math.round(documents / 20_000));
}

/** YYYYMMDD of an age date (0 for undated), or -1 when it does not start with a date. */
export function ageKey(date: string | null | undefined): number {
  if (!date) return 0;
  const match = /^(\d{4})-(\d{2})-(\d{2})/.exec(date);
  return match ? Number(match[1] + match[2] + match[3]) : -1;
}

export function normalizeTopic(topic: string): string {
  return topic.trim().toLowerCase();
}

/**
 * Writes a file front to back. Small pieces (most lists are short: a few hundred thousand of them
 * at a million documents) gather in a buffer and go out in large writes; `flush` before closing.
 */
export class FileWriter {
  /** Bytes written to the file (the buffer's start in the file). */
  private written = 0;
  private readonly buffer = new Uint8Array(1 << 20);
  private buffered = 0;
  private readonly fd: number;
  constructor(fd: number) {
    this.fd = fd;
  }
  get offset(): number {
    return this.written + this.buffered;
  }
  write(bytes: Uint8Array): void {
    if (this.buffered + bytes.length <= this.buffer.length) {
      this.buffer.set(bytes, this.buffered);
      this.buffered += bytes.length;
      return;
    }
    this.flush();
    if (bytes.length * 2 <= this.buffer.length) {
      this.buffer.set(bytes, 0);
      this.buffered = bytes.length;
    } else {
      this.writeOut(bytes);
    }
  }
  /** Goes on writing at `position` (another part of the file). */
  seek(position: number): void {
    this.flush();
    this.written = position;
  }
  /** Writes out what is buffered. */
  flush(): void {
    const pending = this.buffered;
    this.buffered = 0;
    this.writeOut(this.buffer.subarray(0, pending));
  }
  private writeOut(bytes: Uint8Array): void {
    let done = 0;
    while (done < bytes.length) done += writeSync(this.fd, bytes, done, bytes.length - done, this.written + done);
    this.written += bytes.length;
  }
  /** Pads to a multiple of 8, so that every array starts aligned for its typed view. */
  align(): void {
    if (this.offset % 8) this.write(new Uint8Array(8 - (this.offset % 8)));
  }
}

function bytesOf(array: Uint8Array | Uint16Array | Uint32Array | Int32Array | Float64Array): Uint8Array {
  return new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
}

export interface ScoreListsBuild {
  lists: number;
  postings: number;
  bytes: number;
  seconds: number;
}

type ListEntries = Footer['lists'];

/** What one reader of a page range wrote (score-lists-worker.ts): its lists, at offsets in its own file. */
export interface ListsPart {
  lists: ListEntries;
  postings: number;
}

/**
 * The file's space shared by the threads that write lists into it at once: each takes chunks
 * from its end (Atomics on `end`) and fills them with its lists, a long list gets room of its
 * own. No thread waits for another, and nothing is copied afterwards (a part file appended took
 * 4–6 s at a million documents). Where a list lies is free (the footer says), so only the order
 * of lists in the file and a few unused bytes at chunks' ends differ from one thread's file.
 */
export interface SharedSpace {
  /** The file's end as claimed so far (8-aligned). */
  end: BigInt64Array;
  /** Bytes a thread takes at a time (a multiple of 8). */
  chunk: number;
}

/** The job of a score-list worker thread that writes lists. */
export interface ListsPartJob {
  kind: 'lists';
  indexFile: string;
  /** The lists' file, created by the calling thread; the worker writes into the space it takes (`space`). */
  file: string;
  space: SharedSpace;
  minDocuments: number;
  range: PageRange;
  blockData: BlockDataJob;
}

/** The job of a score-list worker thread that reads the documents' facets (`readDocumentFacets`). */
export interface FacetsJob {
  kind: 'facets';
  indexFile: string;
}

/** The per-document arrays of the facets, with the values behind their codes, as of one snapshot of `documents`. */
export interface DocumentFacets {
  /** The index's generation and highest row id in the snapshot read: the lists use the arrays only if both are theirs. */
  generation: string;
  maxSeq: number;
  type: Uint8Array;
  host: Uint32Array;
  topic: Uint16Array;
  news: Uint8Array;
  age: Uint32Array;
  types: string[];
  hosts: string[];
  topics: string[];
  agesComparable: boolean;
}

/** What the block data of the long lists is computed from: bm25's statistics, as a reader derives them (`ScoreLists`). */
export interface BlockDataJob {
  from: number;
  rows: number;
  maxSeq: number;
  /** Each row's length norm (see `lengthNormsOf`), in a SharedArrayBuffer for the worker. */
  lengthNorm: Float64Array;
  /**
   * Set to 1 (Atomics) once `lengthNorm` is filled: the worker starts on its leaves while the
   * calling thread still reads the row sizes, and waits only at its first list with block data.
   */
  ready?: Int32Array;
}

/** k1·(1 − b + b·length/avgdl) of every row: what a reader computes, by the same operations, so that scores come out identical. */
export function lengthNormsOf(tokens: Uint32Array, avgdl: number, into: Float64Array<ArrayBufferLike> = new Float64Array(tokens.length)): Float64Array<ArrayBufferLike> {
  for (let i = 0; i < tokens.length; i++) into[i] = K1 * (1 - B + (B * tokens[i]) / avgdl);
  return into;
}

/** Lists of at least this many documents get their block data written with them: those a blocked query may read (list-search.ts's default threshold). */
export function blockDataMinDocuments(maxSeq: number): number {
  return Math.max(4096, Math.round((maxSeq + 1) / 64));
}

/** Below this much index (its leaves) one thread writes all lists: a worker's start would cost more. */
const PARALLEL_MIN_BYTES = 16 * 2 ** 20;

/**
 * Writes the postings of every listed word whose terms start in `range` to `out`, each list as
 * row ids (uint32) then weighted frequencies × 100 (uint16, padded to an even count).
 */
export function writeListPostings(
  db: DatabaseSync,
  out: FileWriter,
  minDocuments: number,
  range: PageRange | undefined,
  blockData: BlockDataJob,
  space: SharedSpace | null = null,
): ListsPart {
  const lists: ListEntries = { exact: [], base: [] };
  // With a shared space: the end of the chunk being filled, and where to return after a long list written apart.
  let chunkEnd = 0;
  let resume = -1;
  const claim = (bytes: number) => Number(Atomics.add(space!.end, 0, BigInt(align8(bytes))));
  /** Moves `out` to where a piece of `sizeAt(start)` bytes goes (with a shared space: its chunk, or room of its own). */
  const place = (sizeAt: (start: number) => number) => {
    if (!space || out.offset + sizeAt(out.offset) <= chunkEnd) return;
    const size = sizeAt(0); // every claimed start is 8-aligned, and a piece's padding depends on nothing else
    if (size > space.chunk / 16) {
      resume = out.offset;
      out.seek(claim(size));
    } else {
      const start = claim(space.chunk);
      out.seek(start);
      chunkEnd = start + space.chunk;
    }
  };
  const placed = () => {
    if (resume >= 0) out.seek(resume);
    resume = -1;
  };
  let postings = 0;
  const weights = RANK_WEIGHTS.map((weight) => weight * FREQUENCY_SCALE);
  const sides: [PhraseSide, number, number][] = [
    ['exact', 0, 1],
    ['base', 2, 3],
  ];
  readTermPostings(
    db,
    ({ token, rowids, counts }) => {
      // Documents on each side, in one pass over the counts.
      let exactDocuments = 0;
      let baseDocuments = 0;
      for (let c = 0; c < counts.length; c += FTS_COLUMNS) {
        if (counts[c] || counts[c + 1]) exactDocuments++;
        if (counts[c + 2] || counts[c + 3]) baseDocuments++;
      }
      for (const [side, title, body] of sides) {
        const documents = side === 'exact' ? exactDocuments : baseDocuments;
        // A phrase that is rare on its side but whose token FTS5 stores for many documents (a base
        // form like "eine", which is only ever an exact form) is listed too, however short: FTS5
        // would read the token's whole doclist to find its few matches (70 ms at a million documents).
        if (documents < minDocuments && rowids.length < minDocuments) continue;
        const seqs = new Uint32Array(documents);
        const frequencies = new Uint16Array(documents + (documents % 2));
        let k = 0;
        for (let i = 0; i < rowids.length; i++) {
          const inTitle = counts[i * FTS_COLUMNS + title];
          const inBody = counts[i * FTS_COLUMNS + body];
          if (!inTitle && !inBody) continue;
          seqs[k] = rowids[i];
          frequencies[k++] = Math.min(65535, weights[title] * inTitle + weights[body] * inBody);
        }
        let blocks: ListBlocks | null = null;
        if (documents >= blockData.from) {
          if (blockData.ready) Atomics.wait(blockData.ready, 0, 0);
          const list = { seqs, frequencies, idf: inverseDocumentFrequency(blockData.rows, documents) };
          blocks = blocksOf(list, blockData.lengthNorm, blockData.maxSeq, { noScores: true });
        }
        const postingBytes = seqs.byteLength + frequencies.byteLength;
        const blockBytes = blocks ? blocks.maxima.byteLength + blocks.starts.byteLength + (blocks.bits?.byteLength ?? 0) : 0;
        place((start) => (blocks ? align8(align8(start + postingBytes) + blockBytes) : start + postingBytes) - start);
        lists[side].push([token, out.offset, documents]);
        out.write(bytesOf(seqs));
        out.write(bytesOf(frequencies));
        if (blocks) {
          out.align();
          out.write(bytesOf(blocks.maxima));
          out.write(bytesOf(blocks.starts));
          if (blocks.bits) out.write(bytesOf(blocks.bits));
          out.align();
        }
        placed();
        postings += documents;
      }
    },
    range,
  );
  return { lists, postings };
}

/** Starts a worker thread (score-lists-worker.ts) on `job`; `done` is its one answer. */
function runOnWorker<T>(job: ListsPartJob | FacetsJob): { done: Promise<T>; stop: () => Promise<number> } {
  const worker = new Worker(siblingUrl('score-lists-worker'), { workerData: job });
  const done = new Promise<T>((resolve, reject) => {
    let answer: T | null = null;
    worker.on('message', (message: T) => (answer = message));
    worker.on('error', reject);
    worker.on('exit', (code) => (answer && code === 0 ? resolve(answer) : reject(new Error(`score-list worker exited with ${code}`))));
  });
  done.catch(() => {}); // awaited once this thread's own work is done; until then a failure must not go unhandled
  return { done, stop: () => worker.terminate() };
}

/**
 * The facets of every indexed document, read from `documents` (all of it: the facet columns come
 * after the text in a row, so the scan reads every text; about 11 s at a million documents).
 */
export function readDocumentFacets(db: DatabaseSync, generation: string, maxSeq: number): DocumentFacets {
  const facets: DocumentFacets = {
    generation,
    maxSeq,
    type: new Uint8Array(maxSeq + 1),
    host: new Uint32Array(maxSeq + 1),
    topic: new Uint16Array(maxSeq + 1),
    news: new Uint8Array(maxSeq + 1),
    age: new Uint32Array(maxSeq + 1),
    types: [],
    hosts: [],
    topics: [],
    agesComparable: true,
  };
  const codes = { types: new Map<string, number>(), hosts: new Map<string, number>(), topics: new Map<string, number>([['', 0]]) };
  const codeOf = (map: Map<string, number>, value: string) => map.get(value) ?? map.set(value, map.size).get(value)!;
  const rows = db.prepare('SELECT seq, document_type, host, topic, is_news, age_date FROM documents WHERE duplicate_of IS NULL');
  for (const row of rows.iterate() as Iterable<{ seq: number; document_type: string; host: string; topic: string | null; is_news: number; age_date: string | null }>) {
    facets.type[row.seq] = codeOf(codes.types, row.document_type);
    facets.host[row.seq] = codeOf(codes.hosts, row.host);
    facets.topic[row.seq] = row.topic ? codeOf(codes.topics, normalizeTopic(row.topic)) : 0;
    facets.news[row.seq] = row.is_news ? 1 : 0;
    const age = ageKey(row.age_date);
    if (age < 0) facets.agesComparable = false;
    facets.age[row.seq] = Math.max(0, age);
  }
  facets.types = [...codes.types.keys()];
  facets.hosts = [...codes.hosts.keys()];
  facets.topics = [...codes.topics.keys()];
  return facets;
}

/** The generation of the index `db` reads. */
export function generationOf(db: DatabaseSync): string {
  return String((db.prepare(`SELECT value FROM meta WHERE key = 'generation'`).get() as { value: string }).value);
}

export function highestSeq(db: DatabaseSync): number {
  return Number((db.prepare('SELECT max(seq) AS last FROM documents').get() as { last: number | null }).last ?? 0);
}

/** Below this many rows the facets are read on the calling thread (a worker's start would cost more than it saves). */
const FACET_THREAD_MIN_ROWS = 50_000;

/** Each row's tokens (bm25's document length) by row id, as of one snapshot (tagged like `DocumentFacets`). */
export interface RowSizes {
  generation: string;
  maxSeq: number;
  tokens: Uint32Array;
}

export function readTokenCounts(db: DatabaseSync, maxSeq: number): Uint32Array {
  const tokens = new Uint32Array(maxSeq + 1);
  for (const { rowid, tokens: size } of readRowSizes(db)) if (rowid <= maxSeq) tokens[rowid] = size;
  return tokens;
}

/**
 * The row sizes, then the facets, read on a worker thread; null where it failed (the lists then
 * read them themselves).
 */
export interface FacetScan {
  sizes: Promise<RowSizes | null>;
  facets: Promise<DocumentFacets | null>;
  stop: () => Promise<void>;
}

/**
 * Starts reading the facets on a worker thread with a connection of its own, so that the scan
 * runs beside the calling thread's work: FTS5's 'optimize' after ingestion (single-threaded in
 * SQLite), else the score lists' pass over the leaves. With WAL the reader sees the committed rows
 * while the caller writes; `writeScoreLists` uses its arrays only if no commit came in between.
 * Null (read them in `writeScoreLists`) for an in-memory or small index, or one thread.
 */
export function startFacetScan(db: DatabaseSync, indexFile: string, threads?: number): FacetScan | null {
  if (indexFile === ':memory:') return null;
  if (threads === undefined ? availableParallelism() < 2 || highestSeq(db) < FACET_THREAD_MIN_ROWS : threads < 2) return null;
  const worker = new Worker(siblingUrl('score-lists-worker'), { workerData: { kind: 'facets', indexFile } satisfies FacetsJob });
  let sizesRead: (sizes: RowSizes | null) => void = () => {};
  let facetsRead: (facets: DocumentFacets | null) => void = () => {};
  const sizes = new Promise<RowSizes | null>((resolve) => (sizesRead = resolve));
  const facets = new Promise<DocumentFacets | null>((resolve) => (facetsRead = resolve));
  let read = false;
  worker.on('message', (message: (RowSizes & { kind: 'sizes' }) | (DocumentFacets & { kind: 'facets' })) => {
    if (message.kind === 'sizes') return sizesRead(message);
    read = true;
    facetsRead(message);
  });
  // A failure leaves whatever is missing to writeScoreLists (a promise resolved twice keeps its first value).
  const failed = () => {
    sizesRead(null);
    facetsRead(null);
  };
  const exited = new Promise<void>((resolve) => worker.on('exit', resolve));
  worker.on('error', failed);
  worker.on('exit', failed);
  return {
    sizes,
    facets,
    // A worker that has sent its facets is closing its connection: let it. One still reading is stopped.
    stop: async () => {
      if (read) await exited;
      else await worker.terminate();
    },
  };
}

/**
 * Writes the score lists of the index `db` reads (merged into one segment) to `file`, tagged with
 * `generation`. Call it inside a transaction, so that everything comes from one snapshot. With
 * two threads (by default for a large index on a machine with two cores or more), a worker thread
 * reads the second half of the leaves on its own connection — the same snapshot, since the caller
 * holds the write lock — into the same file, each in chunks it takes (`SharedSpace`): at a million
 * documents the pass takes half the time. The row sizes and facets come from `options.scan` (read on a worker
 * meanwhile, `startFacetScan`) when they are of this snapshot, else from scans here.
 */
export async function writeScoreLists(
  db: DatabaseSync,
  indexFile: string,
  file: string,
  generation: string,
  options: { threads?: number; blockDataFrom?: number; scan?: FacetScan } = {},
): Promise<ScoreListsBuild> {
  const started = performance.now();
  const averages = readAverages(db);
  const rows = averages.rows;
  const totalTokens = averages.columnTokens.reduce((sum, n) => sum + n, 0);
  const minDocuments = scoreListMinDocuments(rows);
  const maxSeq = highestSeq(db);
  const temporary = `${file}.${process.pid}.tmp`;
  const pages = leafPages(db);
  const indexBytes = pages * leafSize(db);
  const threads = options.threads ?? (indexBytes >= PARALLEL_MIN_BYTES ? availableParallelism() : 1);
  const split = threads > 1 && pages > 1 ? Math.ceil(pages / 2) + 1 : Number.POSITIVE_INFINITY;
  const avgdl = rows ? totalTokens / rows : 0;
  const blockData: BlockDataJob = {
    from: options.blockDataFrom ?? blockDataMinDocuments(maxSeq),
    rows,
    maxSeq,
    lengthNorm: new Float64Array(new SharedArrayBuffer(8 * (maxSeq + 1))),
    ready: new Int32Array(new SharedArrayBuffer(4)),
  };
  const fd = openSync(temporary, 'w');
  const out = new FileWriter(fd);
  // Two threads write into the file at once, taking chunks of about a hundredth of the index's leaves (1–32 MiB).
  const space: SharedSpace | null = Number.isFinite(split)
    ? { end: new BigInt64Array(new SharedArrayBuffer(8)), chunk: align8(Math.min(32 * 2 ** 20, Math.max(2 ** 20, indexBytes / 100))) }
    : null;
  // The worker starts first: it reads its leaves while this thread reads the row sizes (2–3 s at a million documents).
  const other = space
    ? runOnWorker<ListsPart>({ kind: 'lists', indexFile, file: temporary, space, minDocuments, range: { fromPage: split, toPage: Number.POSITIVE_INFINITY }, blockData })
    : null;
  let lists: ListEntries = { exact: [], base: [] };
  let postings = 0;
  try {
    // Read on the scan's worker during FTS5's merge, if it was started and nothing was committed since.
    const scanned = options.scan ? await options.scan.sizes : null;
    const tokens = scanned && scanned.generation === generation && scanned.maxSeq === maxSeq ? scanned.tokens : readTokenCounts(db, maxSeq);
    lengthNormsOf(tokens, avgdl, blockData.lengthNorm);
    Atomics.store(blockData.ready!, 0, 1);
    Atomics.notify(blockData.ready!, 0);
    ({ lists, postings } = writeListPostings(db, out, minDocuments, { fromPage: 1, toPage: split }, blockData, space));
    if (other) {
      const part = await other.done;
      // The footer lists stay in term order: this thread's terms come before the worker's.
      for (const side of ['exact', 'base'] as const) lists[side].push(...part.lists[side]);
      postings += part.postings;
      out.seek(Number(Atomics.load(space!.end, 0)));
    }
    out.align();

    // Read beside the lists on a worker when the caller started it (and nothing was committed since), else here.
    let facets = options.scan ? await options.scan.facets : null;
    if (!facets || facets.generation !== generation || facets.maxSeq !== maxSeq) facets = readDocumentFacets(db, generation, maxSeq);
    const docs: Record<DocArrayName, Uint8Array | Uint16Array | Uint32Array> = { tokens, type: facets.type, host: facets.host, topic: facets.topic, news: facets.news, age: facets.age };
    const arrays = {} as Record<DocArrayName, number>;
    for (const name of Object.keys(DOC_ARRAYS) as DocArrayName[]) {
      arrays[name] = out.offset;
      out.write(bytesOf(docs[name]));
      out.align();
    }
    const footer: Footer = {
      version: FORMAT_VERSION,
      generation,
      rows,
      avgdl,
      maxSeq,
      minDocuments,
      blockDataFrom: blockData.from,
      types: facets.types,
      hosts: facets.hosts,
      topics: facets.topics,
      agesComparable: facets.agesComparable,
      arrays,
      lists,
    };
    const json = Buffer.from(JSON.stringify(footer));
    out.write(json);
    const tail = Buffer.alloc(12);
    tail.writeUInt32LE(json.length, 0);
    tail.write(MAGIC, 4, 'latin1');
    out.write(tail);
    out.flush();
  } catch (error) {
    await other?.stop();
    closeSync(fd);
    rmSync(temporary, { force: true });
    throw error;
  }
  closeSync(fd);
  renameSync(temporary, file);
  return { lists: lists.exact.length + lists.base.length, postings, bytes: out.offset, seconds: (performance.now() - started) / 1000 };
}

/**
 * One phrase's documents (row ids ascending) with, for a stored list, its weighted frequencies
 * (× FREQUENCY_SCALE) and idf, scored as it is walked (phraseScore); for a word without a list,
 * the scores FTS5 gave.
 */
export interface PostingList {
  seqs: Uint32Array;
  frequencies?: Uint16Array;
  idf?: number;
  scores?: Float64Array;
}

export function postingListBytes(list: PostingList): number {
  return list.seqs.byteLength + (list.frequencies?.byteLength ?? 0) + (list.scores?.byteLength ?? 0);
}

const K1 = 1.2;
const B = 0.75;

/**
 * bm25 of one document for one phrase, from its weighted frequency (× FREQUENCY_SCALE) and its
 * length norm: fts5_aux.c's formula in its order of operations, so that scores come out identical.
 */
export function phraseScore(idf: number, scaledFrequency: number, lengthNorm: number): number {
  const f = scaledFrequency / FREQUENCY_SCALE;
  return idf * ((f * (K1 + 1.0)) / (f + lengthNorm));
}

/** bm25's inverse document frequency as FTS5 computes it (fts5_aux.c), never below 1e-6. */
export function inverseDocumentFrequency(rows: number, documents: number): number {
  const idf = Math.log((rows - documents + 0.5) / (documents + 0.5));
  return idf <= 0 ? 1e-6 : idf;
}

/** The score lists of one index file, opened for reading (one per read connection). */
export class ScoreLists {
  readonly generation: string;
  readonly rows: number;
  readonly maxSeq: number;
  readonly minDocuments: number;
  readonly types: string[];
  readonly hosts: string[];
  readonly topics: string[];
  readonly agesComparable: boolean;
  readonly docType: Uint8Array;
  readonly docHost: Uint32Array;
  readonly docTopic: Uint16Array;
  readonly docNews: Uint8Array;
  readonly docAge: Uint32Array;
  /** k1·(1 − b + b·length/avgdl) of every document: the part of bm25's denominator that is the document's. */
  readonly lengthNorm: Float64Array;
  private readonly docTokens: Uint32Array;
  private readonly blockDataFrom: number;
  private readonly entries: Record<PhraseSide, Map<string, { offset: number; documents: number }>>;
  private readonly fd: number;

  private constructor(fd: number, footer: Footer, arrays: Record<DocArrayName, Uint8Array | Uint16Array | Uint32Array>) {
    this.fd = fd;
    this.generation = footer.generation;
    this.rows = footer.rows;
    this.maxSeq = footer.maxSeq;
    this.minDocuments = footer.minDocuments;
    this.types = footer.types;
    this.hosts = footer.hosts;
    this.topics = footer.topics;
    this.agesComparable = footer.agesComparable;
    this.docType = arrays.type as Uint8Array;
    this.docHost = arrays.host as Uint32Array;
    this.docTopic = arrays.topic as Uint16Array;
    this.docNews = arrays.news as Uint8Array;
    this.docAge = arrays.age as Uint32Array;
    const tokens = arrays.tokens as Uint32Array;
    this.docTokens = tokens;
    // The same operations as fts5_aux.c, so that scores come out identical.
    this.lengthNorm = lengthNormsOf(tokens, footer.avgdl);
    this.blockDataFrom = footer.blockDataFrom ?? Number.POSITIVE_INFINITY;
    this.entries = {
      exact: new Map(footer.lists.exact.map(([token, offset, documents]) => [token, { offset, documents }])),
      base: new Map(footer.lists.base.map(([token, offset, documents]) => [token, { offset, documents }])),
    };
  }

  /** Opens `file`; null when it is missing, unreadable or of another format. */
  static open(file: string): ScoreLists | null {
    let fd: number;
    try {
      fd = openSync(file, 'r');
    } catch {
      return null;
    }
    try {
      const size = fstatSync(fd).size;
      const tail = Buffer.alloc(12);
      if (size < 12 || readSync(fd, tail, 0, 12, size - 12) !== 12 || tail.toString('latin1', 4) !== MAGIC) throw new Error('not a score-list file');
      const length = tail.readUInt32LE(0);
      const json = Buffer.alloc(length);
      readSync(fd, json, 0, length, size - 12 - length);
      const footer = JSON.parse(json.toString('utf8')) as Footer;
      // Format 2 lacks only the block data (a reader then makes it from the lists).
      if (footer.version !== FORMAT_VERSION && footer.version !== 2) throw new Error(`format ${footer.version}`);
      const arrays = {} as Record<DocArrayName, Uint8Array | Uint16Array | Uint32Array>;
      for (const [name, Type] of Object.entries(DOC_ARRAYS) as [DocArrayName, typeof Uint8Array][]) {
        const array = new Type(footer.maxSeq + 1);
        readSync(fd, bytesOf(array), 0, array.byteLength, footer.arrays[name]);
        arrays[name] = array;
      }
      return new ScoreLists(fd, footer, arrays);
    } catch {
      closeSync(fd);
      return null;
    }
  }

  private readonly facetDocuments = new Map<FacetKind, Uint32Array[]>();

  /** Row ids (ascending) of the indexed documents with the facet value `code` (news: code 1). */
  documentsWith(kind: FacetKind, code: number): Uint32Array {
    let byCode = this.facetDocuments.get(kind);
    if (!byCode) {
      const values = { type: this.docType, host: this.docHost, topic: this.docTopic, news: this.docNews }[kind];
      const indexed = (seq: number) => this.docTokens[seq] > 0; // every indexed document has tokens (its facets at least)
      const counts: number[] = [];
      for (let seq = 0; seq < values.length; seq++) if (indexed(seq)) counts[values[seq]] = (counts[values[seq]] ?? 0) + 1;
      byCode = Array.from({ length: counts.length }, (_, value) => new Uint32Array(counts[value] ?? 0));
      const filled = new Array<number>(counts.length).fill(0);
      for (let seq = 0; seq < values.length; seq++) if (indexed(seq)) byCode[values[seq]][filled[values[seq]]++] = seq;
      this.facetDocuments.set(kind, byCode);
    }
    return byCode[code] ?? EMPTY;
  }

  /** The tokens with a list of at least `documents` documents, on either side. */
  tokensWithAtLeast(documents: number): string[] {
    const tokens = new Set<string>();
    for (const side of ['exact', 'base'] as const) for (const [token, entry] of this.entries[side]) if (entry.documents >= documents) tokens.add(token);
    return [...tokens];
  }

  /** Documents of a listed phrase, or null when the word has no list (fewer than minDocuments, and its token too). */
  documentsOf(side: PhraseSide, token: string): number | null {
    return this.entries[side].get(token)?.documents ?? null;
  }

  /** Reads one list; null when the word has no list. */
  read(side: PhraseSide, token: string): PostingList | null {
    const entry = this.entries[side].get(token);
    if (!entry) return null;
    const n = entry.documents;
    const buffer = new ArrayBuffer(4 * n + 2 * (n + (n % 2)));
    if (n > 0) this.readAt(new Uint8Array(buffer), entry.offset);
    return { seqs: new Uint32Array(buffer, 0, n), frequencies: new Uint16Array(buffer, 4 * n, n), idf: inverseDocumentFrequency(this.rows, n) };
  }

  /** A list's block data as written with it (lists of at least `blockDataFrom` documents), or null. */
  readBlocks(side: PhraseSide, token: string): ListBlocks | null {
    const entry = this.entries[side].get(token);
    if (!entry || entry.documents < this.blockDataFrom) return null;
    const n = entry.documents;
    const blocks = blockCount(this.maxSeq);
    const words = bitSetWords(this.maxSeq);
    const at = align8(entry.offset + 4 * n + 2 * (n + (n % 2)));
    const buffer = new ArrayBuffer(8 * blocks + 4 * (blocks + 1) + (n >= words ? 4 * words : 0));
    this.readAt(new Uint8Array(buffer), at);
    return {
      maxima: new Float64Array(buffer, 0, blocks),
      starts: new Uint32Array(buffer, 8 * blocks, blocks + 1),
      bits: n >= words ? new Int32Array(buffer, 8 * blocks + 4 * (blocks + 1), words) : null,
      scores: null,
    };
  }

  /** Postings `from`..`to` of a list (row ids and weighted frequencies), read from the file alone. */
  readRange(side: PhraseSide, token: string, from: number, to: number): { seqs: Uint32Array; frequencies: Uint16Array } {
    const entry = this.entries[side].get(token)!;
    const n = to - from;
    const buffer = new ArrayBuffer(6 * n);
    const seqs = new Uint32Array(buffer, 0, n);
    const frequencies = new Uint16Array(buffer, 4 * n, n);
    this.readAt(new Uint8Array(buffer, 0, 4 * n), entry.offset + 4 * from);
    this.readAt(new Uint8Array(buffer, 4 * n, 2 * n), entry.offset + 4 * entry.documents + 2 * from);
    return { seqs, frequencies };
  }

  /** Weighted frequencies `from`..`to` of a list, alone: one read (a list with a bit set knows its row ids from it). */
  readFrequencies(side: PhraseSide, token: string, from: number, to: number): Uint16Array {
    const entry = this.entries[side].get(token)!;
    const frequencies = new Uint16Array(to - from);
    if (to > from) this.readAt(new Uint8Array(frequencies.buffer), entry.offset + 4 * entry.documents + 2 * from);
    return frequencies;
  }

  /** Bytes read from the file since opened (the lists' misses in the readers' caches; for profiles). */
  bytesRead = 0;

  private readAt(target: Uint8Array, position: number): void {
    this.bytesRead += target.byteLength;
    readSync(this.fd, target, 0, target.byteLength, position);
  }

  close(): void {
    closeSync(this.fd);
  }
}

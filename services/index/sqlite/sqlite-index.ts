import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { Worker } from 'node:worker_threads';
import { analyzeForIndex } from '../../core/analysis/index.ts';
import type { StoredDocument } from '../../core/document.ts';
import type { DocumentIndex, IndexHit, IndexQuery, IndexSearchResult, IndexStats, NearDuplicateCandidate, SourceCount, WriteOutcome } from '../../core/index-port.ts';
import { LruCache } from '../../core/lru-cache.ts';
import { stageClock } from '../../core/stage-timings.ts';
import { fingerprintBits } from '../../core/text.ts';
import { buildExactMatch, buildMatch, buildTitleMatch, facetsOf, phraseMatch, termMatch } from './fts-query.ts';
import { Fts5FormatError } from './fts5-postings.ts';
import { applyFtsOps, attachFts, FTS_DELETE, FTS_INSERT, FTS_SCHEMA, ftsFileOf, ftsSchemaOf, ftsStatements, type FtsOp, type FtsStatements, setFtsWriteSettings, setNewFtsPageSize } from './fts-file.ts';
import { FtsWriter } from './fts-writer.ts';
import { ListSearcher } from './list-search.ts';
import { ScoreLists, scoreListsFile, startFacetScan, writeScoreLists, type FacetScan, type PhraseSide, type PostingList, type ScoreListsBuild } from './score-lists.ts';
import { buildHeadTerms, DEEP_HEAD_LIST_LENGTH, DEEP_HEAD_MIN_MATCHES, HEAD_LIST_LENGTH, hasFilters, readHeadList, type HeadList, type HeadTermRanker, type HeadTermsBuild } from './head-terms.ts';
import { FINGERPRINT_VALUE, HIT_COLUMNS, hitDocumentOf, hitRowBytes, ROW_COLUMNS, ROW_PLACEHOLDERS, rowValuesOf, signatureOf, TITLE_KEY_VALUE, toDocument, type DocumentRow } from './rows.ts';
import { checkSchemaVersion, createSchema } from './schema.ts';
import { siblingUrl } from './sibling.ts';
import { removeStaleTemporaries } from './stale-files.ts';
import { closestOf, TitleWindow, TitleWindows } from './title-windows.ts';

export interface SqliteIndexOptions {
  /** Path of the database file, or ":memory:". */
  file: string;
  /** Up to this many matches a query is ranked in one piece; above, in title tiers (see tieredPage). */
  rankAllUpTo?: number;
  /** Readers (serve) open the file read-only; the writer (ingest) creates and migrates it. */
  readOnly?: boolean;
  /** From how many documents of its rarest word a query takes the block-max path (default: list-search.ts; tests lower it). */
  blockedFrom?: number;
  /** Bytes of posting lists a reader keeps decoded (default: list-search.ts). */
  listCacheBytes?: number;
  /** Bytes of the lists' block data and of whole frequency arrays a reader keeps (defaults: list-search.ts; tests lower them). */
  blockCacheBytes?: number;
  frequencyCacheBytes?: number;
  /**
   * The share of a process's cache budget this reader takes (default 1): a process that searches
   * with several readers (serving threads, read workers) gives each a part, so that its memory
   * does not grow with its threads.
   */
  memoryShare?: number;
  /** From how many documents a list is looked up through its bit set and ranks (default: list-search.ts; tests lower it). */
  rankedFrom?: number;
  /** From how many documents a blocked query reads a list block by block from the file (default: list-search.ts; tests lower it). */
  lazyFrom?: number;
  /** Blocks of a list's frequencies a query reads one by one before it reads them all (default: list-search.ts; tests set it). */
  frequencyBlocksMax?: number;
  /**
   * The writer writes the FTS5 file on a thread of its own (fts-writer.ts) while it goes on with
   * the next rows: for ingestion. Until `close` or `optimize`, its searches may miss the last writes.
   */
  ftsThread?: boolean;
  /**
   * How long a reader's opening waits for a writer's lock (default: BUSY_TIMEOUT_MS, as every read
   * waits). Serve's waiting opener asks with 0 — it fails at once and tries again later
   * (waiting-index.ts) — so that a held lock never stalls its thread's event loop.
   */
  openWaitMs?: number;
}

/** A reader opened before the index can be read: nothing ingested yet, or a writer holds the lock. */
export class IndexNotReadyError extends Error {
  override name = 'IndexNotReadyError';
}

const RANK_ALL_UP_TO = 4000;
/** How long a statement waits for another connection's lock before it fails with SQLITE_BUSY. */
const BUSY_TIMEOUT_MS = 5000;
/**
 * A reader's settings: pages it touches through mmap count in the process's memory, so each read
 * connection maps at most 256 MiB and caches 32 MiB; the rest of a large index is served from the
 * OS page cache (which the kernel shares and can drop), which keeps memory flat as the index grows.
 */
export const READ_PRAGMAS = 'PRAGMA mmap_size = 268435456; PRAGMA cache_size = -32768; PRAGMA temp_store = MEMORY';
const READ_CACHE_KIB = 32_768;
/**
 * The writer's: no map (every page an ingestion reads through one stays in its memory: a 1M-record
 * ingestion peaked at 1.8 GB with 256 MiB mapped, 1.36 GB without, as fast), a larger cache for the
 * b-tree pages that inserts touch.
 */
const WRITE_CACHE_KIB = 65_536;
const WRITE_PRAGMAS = `PRAGMA wal_autocheckpoint = 65536; PRAGMA mmap_size = 0; PRAGMA cache_size = -${WRITE_CACHE_KIB}; PRAGMA temp_store = MEMORY`;
/** A reader's page cache for the FTS5 file, KiB (only words without score lists read it). */
const READ_FTS_CACHE_KIB = 8192;
const READ_FTS_MAP_BYTES = 64 * 2 ** 20;
/** The writer's page cache for the FTS5 file, KiB: its merge streams through the segments. */
const WRITE_FTS_CACHE_KIB = 16_384;
/**
 * Committed writes whose FTS5 rows the FTS5 thread may still be writing before the next waits. When
 * 64 segments have gathered, FTS5 merges them inside a write (4–10 s at a million records); with two
 * the writer, and the preparing processes behind it, stopped for most of each merge (a 1M-record
 * ingestion waited 18–30 s in all), with eight the writer stores on (3 s). A record batch's FTS5
 * rows are about 12 MB, so this holds at most about 100 MB (README, "Records at a million").
 */
const FTS_WRITES_IN_FLIGHT = 8;
const COUNT_SLICE = 32_768; // row ids per counting statement at first
/** Newest records of a title that the near-duplicate check compares with. */
const NEAR_DUPLICATE_WINDOW = 200;
/** Records the writer keeps in its title windows (three numbers each). */
const TITLE_WINDOW_ENTRIES = 250_000;
/** Bytes of head lists a reader keeps decoded (a deep list is 40 KB): the common one-word queries skip the blob read. */
const HEAD_LIST_CACHE_BYTES = 16 * 2 ** 20;
/**
 * Bytes of hit rows (HIT_COLUMNS, text included) a reader keeps: a page's documents without a row
 * read. 140 varied queries at 100k show about 1400 documents (2.5 MB); a mix that shows more than
 * it holds keeps the rows asked for most (admission, core/lru-cache.ts), not nothing.
 */
const HIT_ROW_CACHE_BYTES = 12 * 2 ** 20;

/** What a reader has learnt about the index at one state of the file; forgotten when the file changes. */
interface ReadState {
  /** PRAGMA data_version: it changes when another connection commits. */
  version: number;
  lists: ListSearcher | null;
  /** Decoded head lists by expression (null: the word has none), weighed by their bytes. */
  headLists: LruCache<string, HeadList | null>;
  /** Hit rows (HIT_COLUMNS as read, never handed out: each hit gets its own record) by row id. */
  hitRows: LruCache<number, unknown[]>;
}

export class SqliteIndex implements DocumentIndex {
  readonly file: string;
  private readonly rankAllUpTo: number;
  private readonly blockedFrom: number | undefined;
  private readonly listCacheBytes: number | undefined;
  private readonly blockCacheBytes: number | undefined;
  private readonly frequencyCacheBytes: number | undefined;
  private readonly memoryShare: number;
  private readonly rankedFrom: number | undefined;
  private readonly lazyFrom: number | undefined;
  private readonly frequencyBlocksMax: number | undefined;
  private readonly readOnly: boolean;
  private readonly db: DatabaseSync;
  private readonly statements = new Map<string, StatementSync>();

  constructor(options: SqliteIndexOptions) {
    this.file = options.file;
    this.rankAllUpTo = options.rankAllUpTo ?? RANK_ALL_UP_TO;
    this.blockedFrom = options.blockedFrom;
    this.listCacheBytes = options.listCacheBytes;
    this.blockCacheBytes = options.blockCacheBytes;
    this.frequencyCacheBytes = options.frequencyCacheBytes;
    this.memoryShare = Math.min(1, Math.max(1 / 64, options.memoryShare ?? 1));
    this.rankedFrom = options.rankedFrom;
    this.lazyFrom = options.lazyFrom;
    this.frequencyBlocksMax = options.frequencyBlocksMax;
    this.readOnly = options.readOnly ?? false;
    if (options.file !== ':memory:' && !options.readOnly) mkdirSync(dirname(options.file), { recursive: true });
    // A reader never writes, not even the empty layout: before the first ingestion there is nothing
    // to read yet (serve waits: waiting-index.ts).
    if (options.readOnly && !existsSync(options.file)) throw new IndexNotReadyError(`no index at ${options.file} yet`);
    this.db = new DatabaseSync(options.file, { readOnly: options.readOnly ?? false });
    const openWaitMs = options.readOnly ? (options.openWaitMs ?? BUSY_TIMEOUT_MS) : BUSY_TIMEOUT_MS;
    this.db.exec(`PRAGMA busy_timeout = ${openWaitMs}`);
    if (!options.readOnly) {
      // WAL: readers never block the writer; every committed transaction survives a killed process.
      this.db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL');
      checkSchemaVersion(this.db, options.file);
      this.attachFtsFile();
      createSchema(this.db, ftsSchemaOf(options.file));
      if (options.file !== ':memory:') removeStaleTemporaries(options.file);
      setFtsWriteSettings(this.db);
      this.repairFts();
      if (options.ftsThread && options.file !== ':memory:') this.ftsWriter = new FtsWriter(options.file, (generation) => this.ftsWritten.push(generation));
    } else {
      try {
        checkSchemaVersion(this.db, options.file);
        if (!this.db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'documents'`).get()) {
          throw new IndexNotReadyError(`the index at ${options.file} has no tables yet (the first ingestion is creating them)`);
        }
        this.attachFtsFile();
      } catch (error) {
        this.db.close();
        // Locked by a writer past the busy timeout (e.g. while it creates the file): not ready yet.
        if (error instanceof Error && /database is locked|SQLITE_BUSY/i.test(error.message)) throw new IndexNotReadyError(`the index at ${options.file} is locked by a writer`);
        throw error;
      }
    }
    if (openWaitMs !== BUSY_TIMEOUT_MS) this.db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    this.db.exec(options.readOnly ? READ_PRAGMAS : WRITE_PRAGMAS);
    if (options.readOnly && this.memoryShare < 1) this.db.exec(`PRAGMA cache_size = -${Math.round(READ_CACHE_KIB * this.memoryShare)}`);
    if (options.file !== ':memory:') {
      // The FTS5 file's pages: a smaller map and cache for a reader, no map for the writer.
      const kib = options.readOnly ? Math.round(READ_FTS_CACHE_KIB * this.memoryShare) : WRITE_FTS_CACHE_KIB;
      this.db.exec(`PRAGMA ${FTS_SCHEMA}.cache_size = -${kib}`);
      if (options.readOnly) this.db.exec(`PRAGMA ${FTS_SCHEMA}.mmap_size = ${READ_FTS_MAP_BYTES}`); // the writer's (none) is WRITE_PRAGMAS'
    }
  }

  /**
   * Attaches the FTS5 file (fts-file.ts). A writer creates it with a new index, and refuses an
   * index whose rows are there without it; for a reader it must be there already.
   */
  private attachFtsFile(): void {
    if (this.file === ':memory:') return;
    if (this.readOnly && !existsSync(ftsFileOf(this.file))) throw new IndexNotReadyError(`the index at ${this.file} has no FTS5 file yet`);
    const hasRows = Boolean(this.db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'documents'`).get());
    attachFts(this.db, this.file);
    const hasFts = Boolean(this.db.prepare(`SELECT 1 FROM ${FTS_SCHEMA}.sqlite_master WHERE name = 'documents_fts'`).get());
    if (this.readOnly) {
      if (!hasFts) throw new IndexNotReadyError(`the index at ${this.file} has no FTS5 table yet (the first ingestion is creating it)`);
      return;
    }
    if (!hasFts) setNewFtsPageSize(this.db);
    this.db.exec(`PRAGMA ${FTS_SCHEMA}.journal_mode = WAL; PRAGMA ${FTS_SCHEMA}.synchronous = NORMAL`);
    if (hasRows && !hasFts) {
      this.db.close();
      throw new Error(`the index ${this.file} has lost its FTS5 file ${ftsFileOf(this.file)}: re-ingest into a new data directory`);
    }
  }

  private statement(sql: string): StatementSync {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  async search(query: IndexQuery): Promise<IndexSearchResult> {
    return this.searchSync(query);
  }

  /** How the last search was answered (tests and benchmarks look at it): score lists, a head list, or FTS5. */
  lastPlan: 'score_lists' | 'head_terms' | 'fts5' = 'fts5';

  searchSync(query: IndexQuery): IndexSearchResult {
    this.lastPlan = 'fts5';
    // One word without filters: its head list is one row; everything else ranks from the score lists.
    const state = this.readState();
    return this.headTermPage(query, state) ?? (state.lists && this.scoreListPage(query, state.lists)) ?? this.rankedSearch(query);
  }

  /**
   * The answer to `query` only when it is certainly cheap — a one-word page from its head list, or
   * a query whose score lists hold at most `maxPostings` postings in all (list-search.ts
   * `postingsOf`) — else null, having read at most a head list. The same answer as `searchSync`
   * (the same steps in the same order); the read pool gives such queries to the calling thread.
   */
  searchIfCheap(query: IndexQuery, maxPostings: number): IndexSearchResult | null {
    this.lastPlan = 'fts5';
    const state = this.readState();
    const head = this.headTermPage(query, state);
    if (head) return head;
    const postings = state.lists?.postingsOf(query) ?? null;
    if (!state.lists || postings === null || postings > maxPostings) return null;
    return this.scoreListPage(query, state.lists);
  }

  private lastReadState: ReadState | null = null;

  /** Changes when another connection commits to the file (never with this connection's own commits). */
  private dataVersion(): number {
    if (!this.dataVersionStatement) {
      // Read as an array: node:sqlite makes each row object a dictionary-mode object of its own shape.
      this.dataVersionStatement = this.db.prepare('PRAGMA data_version');
      this.dataVersionStatement.setReturnArrays(true);
    }
    return Number((this.dataVersionStatement.get() as unknown as [number])[0]);
  }

  private dataVersionStatement: StatementSync | null = null;

  /**
   * A reader checks the generations of the score and head lists only when the file has changed
   * since its last search (a 2 µs pragma instead of reading them), and keeps the head lists it
   * has decoded. The writer's own commits do not change data_version: it looks every time.
   */
  private readState(): ReadState {
    const version = this.readOnly ? this.dataVersion() : -1;
    if (this.lastReadState && this.lastReadState.version === version && version >= 0) return this.lastReadState;
    this.lastReadState = {
      version,
      lists: this.freshScoreLists(),
      headLists: new LruCache(HEAD_LIST_CACHE_BYTES * this.memoryShare),
      hitRows: new LruCache(HIT_ROW_CACHE_BYTES * this.memoryShare, undefined, { admission: true }),
    };
    return this.lastReadState;
  }

  private scoreLists: ListSearcher | null = null;

  /** Blocks the last search scored on the block-max path, of those holding matches (profiles only). */
  get lastBlocks(): { visited: number; settled: number; blocks: number } | null {
    return this.lastPlan === 'score_lists' ? (this.scoreLists?.lastBlocks ?? null) : null;
  }

  /** Bytes the score lists have read from their file: what their caches missed (profiles only). */
  get listBytesRead(): number {
    return this.scoreLists?.lists.bytesRead ?? 0;
  }

  /** The score lists, if they were built at the index's current generation (else FTS5 answers). */
  private freshScoreLists(): ListSearcher | null {
    if (this.file === ':memory:') return null;
    const row = this.statement(
      `SELECT (SELECT value FROM meta WHERE key = 'generation') AS generation, (SELECT value FROM meta WHERE key = 'score_lists_generation') AS built`,
    ).get() as { generation: string | null; built: string | null };
    const generation = String(row.generation);
    if (row.built === null || String(row.built) !== generation) return null;
    if (this.scoreLists?.lists.generation === generation) return this.scoreLists;
    this.scoreLists?.lists.close();
    this.scoreLists = null;
    const opened = ScoreLists.open(scoreListsFile(this.file));
    if (!opened || opened.generation !== generation) {
      opened?.close();
      return null;
    }
    this.scoreLists = new ListSearcher(opened, (side, token) => this.unlistedPhrase(side, token), {
      blockedFrom: this.blockedFrom,
      cacheBytes: this.listCacheBytes,
      blockCacheBytes: this.blockCacheBytes,
      frequencyCacheBytes: this.frequencyCacheBytes,
      memoryShare: this.memoryShare,
      rankedFrom: this.rankedFrom,
      lazyFrom: this.lazyFrom,
      frequencyBlocksMax: this.frequencyBlocksMax,
    });
    return this.scoreLists;
  }

  /** A rare word's documents and bm25 scores, from FTS5 (score lists keep only frequent words). */
  private unlistedPhrase(side: PhraseSide, token: string): PostingList {
    const rows = this.statement('SELECT rowid AS seq, rank FROM documents_fts WHERE documents_fts MATCH ? ORDER BY rowid').all(phraseMatch(side, token)) as {
      seq: number;
      rank: number;
    }[];
    return { seqs: Uint32Array.from(rows, (row) => row.seq), scores: Float64Array.from(rows, (row) => -row.rank) };
  }

  private scoreListPage(query: IndexQuery, lists: ListSearcher): IndexSearchResult | null {
    const page = lists.search(query);
    if (!page) return null;
    this.lastPlan = 'score_lists';
    const { hits, hasMore } = this.hitsOf(query, page.seqs, lists);
    return this.withTotal(query, hits, hasMore, this.knownTotal(query, page.total));
  }

  /** A total known without counting, unless the caller gave no time to count at all (then a lower bound, as FTS5 counting would give). */
  private knownTotal(query: IndexQuery, total: number): { count: number; complete: boolean } {
    return query.countBudgetMs > 0 ? { count: total, complete: true } : { count: 0, complete: false };
  }

  private rankedSearch(query: IndexQuery): IndexSearchResult {
    const match = buildMatch(query);
    // Counting is cheap, ranking is not (bm25 reads the positions of every match): with many
    // matches, rank in two tiers — documents with a query word in the title first — so that a
    // page ranks only the tier it comes from.
    const counted = query.order === 'relevance' && query.terms.length ? this.countMatches(match, query) : null;
    const seqs =
      counted && counted.count > this.rankAllUpTo ? this.tieredPage(match, query) : this.rankedPage(match, query, query.limit + 1, query.offset);
    const { hits, hasMore } = this.hitsOf(query, seqs);
    if (!counted && !hasMore && (hits.length > 0 || query.offset === 0)) {
      return { hits, hasMore, total: query.offset + hits.length, totalRelation: 'eq' };
    }
    return this.withTotal(query, hits, hasMore, counted ?? this.countMatches(match, query));
  }

  /**
   * A one-word query without filters that has a stored head list (head-terms.ts): the page and the
   * exact total from one row. Null when the word has no fresh list or the page lies beyond it.
   */
  private headTermPage(query: IndexQuery, state: ReadState): IndexSearchResult | null {
    const wanted = query.offset + query.limit + 1;
    if (query.order !== 'relevance' || query.terms.length !== 1 || hasFilters(query) || wanted > DEEP_HEAD_LIST_LENGTH) return null;
    const list = this.headList(state, termMatch(query.terms[0]));
    // A list that ends before the page (and before the word's last match) cannot answer it.
    if (!list || (wanted > list.seqs.length && list.seqs.length < list.total)) return null;
    this.lastPlan = 'head_terms';
    const { hits, hasMore } = this.hitsOf(query, Array.from(list.seqs.subarray(query.offset, wanted)), state.lists);
    return this.withTotal(query, hits, hasMore, this.knownTotal(query, list.total));
  }

  /** A word's head list (or null), kept by a reader while the file does not change, the least recently used dropped first. */
  private headList(state: ReadState, expression: string): HeadList | null {
    const cached = state.headLists.get(expression);
    if (cached !== undefined) return cached;
    const list = readHeadList((sql) => this.statement(sql), expression);
    if (state.version >= 0) state.headLists.set(expression, list, list?.seqs.byteLength ?? 0);
    return list;
  }

  /** The documents of one page (ranked row ids, one more than the limit to tell `has_more`). */
  private hitsOf(query: IndexQuery, seqs: number[], lists: ListSearcher | null = null): { hits: IndexHit[]; hasMore: boolean } {
    const clock = stageClock(); // null unless FUNDUS_STAGE_TIMINGS (benchmark only)
    // Read the few documents of the page only: sorting whole rows (with text) would cost more than ranking.
    // Hit fields only (the API's pages): the columns a hit shows and its text for the snippet.
    const page = query.hitFieldsOnly ? this.hitDocumentsBySeq(seqs.slice(0, query.limit)) : this.documentsBySeq(seqs.slice(0, query.limit)).map((row) => ({ seq: row.seq, document: toDocument(row) }));
    const exactSeqs = (lists && query.terms.length ? lists.exactMatches(query.terms, page.map((row) => row.seq)) : null) ?? this.exactMatches(query, page);
    const hits: IndexHit[] = page.map((row) => ({ document: row.document, matchType: exactSeqs.has(row.seq) ? 'exact' : 'word_form' }));
    clock?.lap('worker.fetch');
    return { hits, hasMore: seqs.length > query.limit };
  }

  private withTotal(
    query: IndexQuery,
    hits: IndexHit[],
    hasMore: boolean,
    { count, complete }: { count: number; complete: boolean },
  ): IndexSearchResult {
    // A count cut short by its budget is still at least what this page proves to exist.
    const proven = hits.length ? query.offset + hits.length + (hasMore ? 1 : 0) : 0;
    return { hits, hasMore, total: Math.max(count, proven), totalRelation: complete ? 'eq' : 'gte' };
  }

  /** Row ids of one page in relevance (or newest-first) order over `match`. */
  private rankedPage(match: string, query: IndexQuery, limit: number, offset: number): number[] {
    if (limit <= 0) return [];
    const params: Record<string, string | number> = { $match: match, $limit: limit, $offset: offset };
    if (query.minAgeDate) params.$minAge = query.minAgeDate;
    const needsDocuments = query.order === 'newest' || Boolean(query.minAgeDate);
    const from = needsDocuments ? 'documents_fts f JOIN documents d ON d.seq = f.rowid' : 'documents_fts f';
    const ageFilter = query.minAgeDate ? 'AND d.age_date >= $minAge' : '';
    const order = query.order === 'newest' ? 'd.age_date DESC NULLS LAST, d.seq DESC' : 'f.rank, f.rowid';
    const rows = this.statement(
      `SELECT f.rowid AS seq FROM ${from} WHERE documents_fts MATCH $match ${ageFilter} ORDER BY ${order} LIMIT $limit OFFSET $offset`,
    ).all(params) as { seq: number }[];
    return rows.map((row) => row.seq);
  }

  /**
   * One page of the tiered order: every match with a query word in its title (by bm25), then every
   * other match (by bm25). With the title weighing ten times the body, this is the bm25 order in
   * all but rare mixed cases, and a page ranks only its tier.
   */
  private tieredPage(match: string, query: IndexQuery): number[] {
    const titled = `(${match}) AND ${buildTitleMatch(query.terms)}`;
    const untitled = `(${match}) NOT ${buildTitleMatch(query.terms)}`;
    const titledCount = this.countMatches(titled, { ...query, countBudgetMs: Number.POSITIVE_INFINITY }).count;
    const wanted = query.limit + 1;
    const fromTitled = this.rankedPage(titled, query, Math.min(wanted, titledCount - query.offset), query.offset);
    const rest = wanted - fromTitled.length;
    return [...fromTitled, ...this.rankedPage(untitled, query, rest, Math.max(0, query.offset - titledCount))];
  }

  private documentsBySeq(seqs: number[], columns = '*'): DocumentRow[] {
    if (seqs.length === 0) return [];
    const rows = this.statement(`SELECT ${columns} FROM documents WHERE seq IN (${seqs.map(() => '?').join(',')})`).all(...seqs) as unknown as DocumentRow[];
    const bySeq = new Map(rows.map((row) => [row.seq, row]));
    return seqs.map((seq) => bySeq.get(seq)!).filter(Boolean);
  }

  /**
   * A page's hit records (HIT_COLUMNS) in the order of `seqs`, read as arrays (rows.ts `hitDocumentOf`).
   * A reader keeps the rows it has read while the file is unchanged (the read state): the documents
   * of popular pages are read and decoded once, not on every search (about a tenth of a serving
   * thread's CPU at 100k). The writer (no read state) reads every time.
   */
  private hitDocumentsBySeq(seqs: number[]): { seq: number; document: StoredDocument }[] {
    if (seqs.length === 0) return [];
    const cache = this.lastReadState !== null && this.lastReadState.version >= 0 ? this.lastReadState.hitRows : null;
    const bySeq = new Map<number, unknown[]>();
    let missing = seqs;
    if (cache) {
      missing = [];
      for (const seq of seqs) {
        const values = cache.get(seq);
        if (values) bySeq.set(seq, values);
        else missing.push(seq);
      }
    }
    if (missing.length > 0) {
      const sql = `SELECT ${HIT_COLUMNS} FROM documents WHERE seq IN (${missing.map(() => '?').join(',')})`;
      let statement = this.statements.get(sql);
      if (!statement) {
        statement = this.db.prepare(sql);
        statement.setReturnArrays(true);
        this.statements.set(sql, statement);
      }
      for (const values of statement.all(...missing) as unknown as unknown[][]) {
        bySeq.set(values[0] as number, values);
        cache?.set(values[0] as number, values, hitRowBytes(values));
      }
    }
    const page: { seq: number; document: StoredDocument }[] = [];
    for (const seq of seqs) {
      const values = bySeq.get(seq);
      if (values) page.push({ seq, document: hitDocumentOf(values) });
    }
    return page;
  }

  private exactMatches(query: IndexQuery, page: { seq: number }[]): Set<number> {
    if (page.length === 0 || query.terms.length === 0) return new Set(page.map((row) => row.seq));
    const seqs = page.map((row) => row.seq);
    const rows = this.statement(`SELECT rowid FROM documents_fts WHERE documents_fts MATCH ? AND rowid IN (${seqs.map(() => '?').join(',')})`).all(
      buildExactMatch(query.terms),
      ...seqs,
    ) as { rowid: number }[];
    return new Set(rows.map((row) => row.rowid));
  }

  /**
   * Counts matches in slices of row ids, each counted inside SQLite, so that counting can stop
   * when its time budget is spent and report what it has counted as a lower bound.
   */
  private countMatches(match: string, query: IndexQuery): { count: number; complete: boolean } {
    if (query.countBudgetMs <= 0) return { count: 0, complete: false };
    const sql = query.minAgeDate
      ? `SELECT count(*) AS n FROM documents_fts f JOIN documents d ON d.seq = f.rowid
         WHERE documents_fts MATCH ? AND f.rowid BETWEEN ? AND ? AND d.age_date >= ?`
      : `SELECT count(*) AS n FROM documents_fts WHERE documents_fts MATCH ? AND rowid BETWEEN ? AND ?`;
    const statement = this.statement(sql);
    const last = Number((this.statement('SELECT max(seq) AS last FROM documents').get() as { last: number | null }).last ?? 0);
    const deadline = performance.now() + query.countBudgetMs;
    let count = 0;
    let slice = COUNT_SLICE;
    for (let from = 1; from <= last; from += slice) {
      const started = performance.now();
      const args = query.minAgeDate ? [match, from, from + slice - 1, query.minAgeDate] : [match, from, from + slice - 1];
      count += Number((statement.get(...args) as { n: number }).n);
      const now = performance.now();
      if (now > deadline && from + slice <= last) return { count, complete: false };
      // Grow slices that count quickly, so rare terms cost few statements.
      if (now - started < 2) slice *= 2;
    }
    return { count, complete: true };
  }

  async getDocument(id: string): Promise<StoredDocument | null> {
    const row = this.statement(
      `SELECT * FROM documents WHERE id = ?1 UNION ALL
       SELECT d.* FROM aliases a JOIN documents d ON d.id = a.document_id WHERE a.alias_id = ?1 LIMIT 1`,
    ).get(id) as DocumentRow | undefined;
    return row ? toDocument(row) : null;
  }

  async listSources(): Promise<SourceCount[]> {
    const rows = this.statement(
      `SELECT source_domain AS domain, count(*) AS documents FROM documents WHERE duplicate_of IS NULL
       GROUP BY source_domain ORDER BY documents DESC, domain`,
    ).all() as unknown as SourceCount[];
    return rows.map((row) => ({ domain: row.domain, documents: Number(row.documents) }));
  }

  async stats(): Promise<IndexStats> {
    const counts = this.statement(
      `SELECT count(*) AS documents, count(DISTINCT source_domain) AS sources FROM documents WHERE duplicate_of IS NULL`,
    ).get() as { documents: number; sources: number };
    const last = this.statement(`SELECT value FROM meta WHERE key = 'last_document_change'`).get() as { value: string } | undefined;
    // Inside a write batch, the newest change is not stored yet.
    const stored = last?.value ?? null;
    const lastDocumentChange = this.pendingChange !== null && (stored === null || this.pendingChange > stored) ? this.pendingChange : stored;
    return { documents: Number(counts.documents), sources: Number(counts.sources), lastDocumentChange };
  }

  async put(doc: StoredDocument): Promise<WriteOutcome> {
    return this.transaction(() => this.putSync(doc));
  }

  /** Runs `work` in one transaction, or inside the batch already open. */
  transaction<T>(work: () => T): T {
    if (this.db.isTransaction) return work();
    this.begin();
    try {
      const result = work();
      this.commit();
      return result;
    } catch (error) {
      this.rollback();
      throw error;
    }
  }

  private readonly titleWindows = new TitleWindows(NEAR_DUPLICATE_WINDOW, TITLE_WINDOW_ENTRIES);
  private writerDataVersion = -1;

  /**
   * Starts a write transaction; the title windows are dropped when another connection has written since.
   * It takes the write lock of the documents' file at once with its first statement, and of the FTS5
   * file only if it writes there itself (BEGIN IMMEDIATE would take both, and the FTS5 thread holds one).
   */
  private begin(): void {
    this.db.exec('BEGIN');
    try {
      this.dropWrittenNotes();
    } catch (error) {
      this.db.exec('ROLLBACK');
      throw error;
    }
    const version = this.dataVersion();
    if (version !== this.writerDataVersion) this.titleWindows.clear();
    this.writerDataVersion = version;
  }

  private rollback(): void {
    if (this.db.isTransaction) this.db.exec('ROLLBACK');
    this.titleWindows.clear();
    this.pendingChange = null;
    this.ftsOps = [];
  }

  /** The newest change time of the documents written in the open transaction: stored once, at its commit. */
  private pendingChange: string | null = null;

  private noteChange(changedAt: string): void {
    if (this.pendingChange === null || changedAt > this.pendingChange) this.pendingChange = changedAt;
  }

  /**
   * Every commit makes a new generation of the index, so that readers know stored head lists are stale.
   * The FTS5 rows of the write follow the commit (fts-file.ts): on the FTS5 thread, or here.
   */
  private commit(): void {
    const { value } = this.statement(`INSERT INTO meta (key, value) VALUES ('generation', '1') ON CONFLICT(key) DO UPDATE SET value = value + 1 RETURNING value`).get() as {
      value: string;
    };
    const generation = Number(value);
    if (this.pendingChange !== null) {
      this.statement(`INSERT INTO meta (key, value) VALUES ('last_document_change', ?1)
        ON CONFLICT(key) DO UPDATE SET value = max(value, ?1)`).run(this.pendingChange);
      this.pendingChange = null;
    }
    const ops = this.ftsOps;
    this.ftsOps = [];
    if (ops.length > 0) this.statement('INSERT INTO fts_pending (generation, seqs) VALUES (?, ?)').run(generation, seqsOf(ops));
    this.db.exec('COMMIT');
    if (ops.length === 0) return;
    if (this.ftsWriter) return this.ftsWriter.post(generation, ops);
    applyFtsOps(this.db, ops, this.ftsStatements());
    this.ftsWritten.push(generation);
  }

  /** Ingestion writes many documents per commit: one fsync-free WAL commit per batch, not per document. */
  async writeBatch<T>(work: () => Promise<T>): Promise<T> {
    this.begin();
    let result: T;
    try {
      result = await work();
      this.commit();
    } catch (error) {
      this.rollback();
      throw error;
    }
    await this.ftsWriter?.settled(FTS_WRITES_IN_FLIGHT);
    return result;
  }

  /** The FTS5 thread, when the writer has one (`ftsThread`). */
  private ftsWriter: FtsWriter | null = null;
  /** FTS5 changes of the open write transaction, written after its commit. */
  private ftsOps: FtsOp[] = [];
  /** Generations whose FTS5 rows are written: their fts_pending notes go with the next write. */
  private ftsWritten: number[] = [];
  private ftsStatementsCache: FtsStatements | null = null;

  /** Notes of writes whose FTS5 rows are written now go (fts-file.ts); a write statement even when there are none. */
  private dropWrittenNotes(): void {
    this.statement('DELETE FROM fts_pending WHERE generation IN (SELECT value FROM json_each(?))').run(JSON.stringify(this.ftsWritten));
    this.ftsWritten = [];
  }

  private ftsStatements(): FtsStatements {
    return (this.ftsStatementsCache ??= ftsStatements(this.db));
  }

  /** An FTS5 change of the open write: in memory at once (one database), else after the commit. */
  private ftsChange(op: FtsOp): void {
    if (this.file !== ':memory:') this.ftsOps.push(op);
    else if (typeof op === 'number') this.statement(FTS_DELETE).run(op);
    else this.statement(FTS_INSERT).run(...op);
  }

  /**
   * Writes again, from the rows, the FTS5 rows of writes whose notes are still in fts_pending: a
   * process killed between its two commits left them unwritten (or written: writing again is the same).
   */
  private repairFts(): void {
    if (this.file === ':memory:') return;
    const notes = this.db.prepare('SELECT generation, seqs FROM fts_pending ORDER BY generation').all() as { generation: number; seqs: Uint8Array }[];
    if (notes.length === 0) return;
    const seqs = new Set<number>();
    for (const note of notes) for (const seq of new Uint32Array(note.seqs.slice().buffer)) seqs.add(seq);
    const ops: FtsOp[] = [];
    const rowOf = this.db.prepare('SELECT * FROM documents WHERE seq = ?');
    for (const seq of seqs) {
      ops.push(seq);
      const row = rowOf.get(seq) as DocumentRow | undefined;
      if (!row || row.duplicate_of !== null) continue;
      const doc = toDocument(row);
      const title = analyzeForIndex(doc.title);
      const body = analyzeForIndex(doc.text);
      ops.push([seq, title.exact, body.exact, title.base, body.base, facetsOf(doc)]);
    }
    applyFtsOps(this.db, ops, this.ftsStatements());
    this.db.prepare('DELETE FROM fts_pending WHERE generation <= ?').run(notes.at(-1)!.generation);
  }

  putSync(doc: StoredDocument): WriteOutcome {
    const existing = this.statement('SELECT * FROM documents WHERE id = ?').get(doc.id) as DocumentRow | undefined;
    if (existing && signatureOf(toDocument(existing)) === signatureOf(doc)) return 'unchanged';
    const values = rowValuesOf(doc);
    let seq: number;
    if (existing) {
      this.titleWindows.clear(); // its title, fingerprint or duplicate state may change
      seq = existing.seq;
      this.statement(`UPDATE documents SET (${ROW_COLUMNS}) = (${ROW_PLACEHOLDERS}) WHERE seq = ?`).run(...values, seq);
      this.ftsChange(seq);
    } else {
      seq = Number(this.statement(`INSERT INTO documents (${ROW_COLUMNS}) VALUES (${ROW_PLACEHOLDERS})`).run(...values).lastInsertRowid);
      if (!doc.duplicateOf) this.titleWindows.added(values[TITLE_KEY_VALUE] as string, seq, values[FINGERPRINT_VALUE] as string | null);
    }
    if (!doc.duplicateOf) {
      const title = doc.prepared?.title ?? analyzeForIndex(doc.title);
      const body = doc.prepared?.body ?? analyzeForIndex(doc.text);
      this.ftsChange([seq, title.exact, body.exact, title.base, body.base, facetsOf(doc)]);
    }
    this.noteChange(doc.changedAt);
    return existing ? 'updated' : 'added';
  }

  async findByContentHash(contentHash: string): Promise<StoredDocument | null> {
    const row = this.statement('SELECT * FROM documents WHERE content_hash = ? AND duplicate_of IS NULL ORDER BY seq LIMIT 1').get(
      contentHash,
    ) as DocumentRow | undefined;
    return row ? toDocument(row) : null;
  }

  async findNearDuplicateCandidates(titleKey: string, fingerprint: string, maxBits: number, limit: number): Promise<NearDuplicateCandidate[]> {
    // The 200 newest records with the title (from the covering index, or the writer's title
    // windows), compared by fingerprint; of the few that are close, the short columns, and the text
    // only when the caller asks for it (its shingles are mostly remembered by content hash: reading
    // the texts was a tenth of the writer's thread at a million records).
    const target = fingerprintBits(fingerprint);
    const load = () =>
      TitleWindow.of(
        this.statement(`SELECT seq, fingerprint FROM documents WHERE title_key = ? AND duplicate_of IS NULL ORDER BY seq DESC LIMIT ${NEAR_DUPLICATE_WINDOW}`).all(titleKey) as {
          seq: number;
          fingerprint: string | null;
        }[],
      );
    // Only inside a write transaction does this connection see every change to the windows.
    const seqs =
      this.db.isTransaction && !this.readOnly
        ? this.titleWindows.closest(titleKey, target, maxBits, limit, load)
        : closestOf(load(), target, maxBits, limit);
    const textOf = this.statement('SELECT text FROM documents WHERE seq = ?');
    return this.documentsBySeq(seqs, 'seq, id, content_hash, duplicate_of').map((row) => {
      let text: string | undefined;
      return {
        id: row.id,
        contentHash: row.content_hash,
        duplicateOf: row.duplicate_of,
        get text() {
          return (text ??= (textOf.get(row.seq) as { text: string }).text);
        },
      };
    });
  }

  async addAlias(aliasId: string, url: string, primaryId: string): Promise<void> {
    this.statement(
      `INSERT INTO aliases (alias_id, url, document_id) VALUES (?, ?, ?)
       ON CONFLICT(alias_id) DO UPDATE SET url = excluded.url, document_id = excluded.document_id`,
    ).run(aliasId, url, primaryId);
  }

  async remove(id: string): Promise<boolean> {
    return this.transaction(() => {
      this.titleWindows.clear();
      const row = this.statement('SELECT seq FROM documents WHERE id = ?').get(id) as { seq: number } | undefined;
      if (!row) return false;
      this.ftsChange(row.seq);
      this.statement('DELETE FROM documents WHERE seq = ?').run(row.seq);
      this.statement('DELETE FROM aliases WHERE document_id = ?').run(id);
      this.noteChange(new Date().toISOString());
      return true;
    });
  }

  async ping(): Promise<boolean> {
    try {
      this.statement('SELECT 1').get();
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Reads everything in one read transaction, a consistent snapshot even while ingestion goes on
   * (used by `fundus index copy` to move the index into a cluster).
   */
  async snapshot<T>(work: (snapshot: IndexSnapshot) => Promise<T>): Promise<T> {
    this.db.exec('BEGIN');
    try {
      const last = this.statement(`SELECT value FROM meta WHERE key = 'last_document_change'`).get() as { value: string } | undefined;
      return await work({
        documents: () => iterateRows(this.db.prepare('SELECT * FROM documents ORDER BY seq').iterate() as Iterable<DocumentRow>, toDocument),
        aliases: () =>
          iterateRows(
            this.db.prepare('SELECT alias_id, url, document_id FROM aliases ORDER BY alias_id').iterate() as Iterable<{ alias_id: string; url: string; document_id: string }>,
            (row) => ({ aliasId: row.alias_id, url: row.url, documentId: row.document_id }),
          ),
        lastDocumentChange: last?.value ?? null,
      });
    } finally {
      if (this.db.isTransaction) this.db.exec('ROLLBACK');
    }
  }

  /**
   * After bulk ingestion: merges FTS5 segments, so that queries read one b-tree per word, and
   * builds the head-term lists for the index as it now is.
   */
  async optimize(
    options: { headTermMinMatches?: number; deepHeadMinMatches?: number; threads?: number; blockDataFrom?: number } = {},
  ): Promise<HeadTermsBuild & { scoreLists: ScoreListsBuild | null }> {
    // The FTS5 thread's work is done: its memory goes before the merge, which writes on this connection.
    await this.ftsWriter?.close();
    this.ftsWriter = null;
    this.dropWrittenNotes();
    // The logs of the rows and of the merge are copied into their files on worker threads, beside
    // the merge and the score lists; closing copied both on this thread, with nothing beside it
    // (about a sixth of the end of a small run).
    const onDisk = this.file !== ':memory:';
    const checkpoints = onDisk ? [checkpointBeside(this.file)] : [];
    // Row sizes and facets are read on a worker meanwhile (FTS5's merge runs on one thread inside SQLite).
    const facetScan = startFacetScan(this.db, this.file, options.threads);
    let scoreLists: ScoreListsBuild | null;
    try {
      this.db.exec(`INSERT INTO documents_fts(documents_fts) VALUES ('optimize')`);
      if (onDisk) checkpoints.push(checkpointBeside(ftsFileOf(this.file)));
      scoreLists = await this.buildScoreLists({ ...options, scan: facetScan ?? undefined });
    } finally {
      await facetScan?.stop();
      await Promise.all(checkpoints);
    }
    const deepMinMatches = options.deepHeadMinMatches ?? DEEP_HEAD_MIN_MATCHES;
    const lists = this.freshScoreLists();
    const ranker = lists ? rankerOf(lists, deepMinMatches) : undefined;
    const words = lists ? (minMatches: number) => lists.lists.tokensWithAtLeast(minMatches) : undefined;
    const headTerms = await buildHeadTerms(this.db, this.file, { minMatches: options.headTermMinMatches, deepMinMatches, threads: options.threads, ranker, words });
    return { ...headTerms, scoreLists };
  }

  /** Ranks a head term from the score lists (null while they are stale); a word that cannot reach the deep lists' bar only as deep as it will be kept. */
  headTermRanker(deepMinMatches: number): HeadTermRanker | null {
    const lists = this.freshScoreLists();
    return lists && rankerOf(lists, deepMinMatches);
  }

  /**
   * Writes the score lists (score-lists.ts) of the merged index, in one write transaction so that
   * no other writer slips in between the snapshot and the generation they are tagged with.
   * Null for an in-memory index, or when the index is not in the one-segment form they are read from.
   */
  private async buildScoreLists(options: { threads?: number; blockDataFrom?: number; scan?: FacetScan }): Promise<ScoreListsBuild | null> {
    if (this.file === ':memory:') return null;
    this.db.exec('BEGIN IMMEDIATE');
    try {
      const generation = String((this.statement(`SELECT value FROM meta WHERE key = 'generation'`).get() as { value: string }).value);
      const built = await writeScoreLists(this.db, this.file, scoreListsFile(this.file), generation, options);
      this.statement(`INSERT OR REPLACE INTO meta (key, value) VALUES ('score_lists_generation', ?)`).run(generation);
      this.db.exec('COMMIT');
      return built;
    } catch (error) {
      this.db.exec('ROLLBACK');
      if (error instanceof Fts5FormatError) return null;
      throw error;
    }
  }

  async close(): Promise<void> {
    try {
      await this.ftsWriter?.close();
      if (this.ftsWritten.length > 0 && this.db.isOpen && !this.db.isTransaction) this.dropWrittenNotes();
    } finally {
      this.closeSync();
    }
  }

  /** Closes at once: FTS5 rows the FTS5 thread has not written yet are written by the next writer (repairFts). */
  closeSync(): void {
    this.ftsWriter?.stop();
    this.ftsWriter = null;
    this.scoreLists?.lists.close();
    this.scoreLists = null;
    if (this.db.isOpen) this.db.close();
  }
}

/**
 * A PASSIVE checkpoint of the index file `file` on a worker thread (checkpoint-worker.ts), done when
 * the worker has ended; never fails: what it leaves is copied at close.
 */
function checkpointBeside(file: string): Promise<void> {
  const worker = new Worker(siblingUrl('checkpoint-worker'), { workerData: file });
  worker.on('error', () => {});
  return new Promise((resolve) => worker.on('exit', () => resolve()));
}

export interface IndexSnapshot {
  documents(): Iterable<StoredDocument>;
  aliases(): Iterable<{ aliasId: string; url: string; documentId: string }>;
  lastDocumentChange: string | null;
}

function rankerOf(lists: ListSearcher, deepMinMatches: number): HeadTermRanker {
  return (term) => {
    const length = lists.matchesAtMost(term) >= deepMinMatches ? DEEP_HEAD_LIST_LENGTH : HEAD_LIST_LENGTH;
    return lists.search({ terms: [term], order: 'relevance', limit: length - 1, offset: 0, countBudgetMs: Infinity });
  };
}

/** The seqs an FTS5 change list touches, as uint32 bytes (fts_pending). */
function seqsOf(ops: readonly FtsOp[]): Uint8Array {
  const seqs = new Uint32Array(ops.length);
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i];
    seqs[i] = typeof op === 'number' ? op : op[0];
  }
  return new Uint8Array(seqs.buffer);
}

function* iterateRows<R, T>(rows: Iterable<R>, convert: (row: R) => T): Generator<T> {
  for (const row of rows) yield convert(row);
}


import { Worker } from 'node:worker_threads';
import type { StoredDocument } from '../../core/document.ts';
import { AppError } from '../../core/errors.ts';
import type { DocumentIndex, IndexQuery, IndexSearchResult, IndexStats, SourceCount, WriteOutcome } from '../../core/index-port.ts';
import { mergeStages, stageClock, type StageTotals } from '../../core/stage-timings.ts';
import { workerExecArgv } from '../../core/worker-exec-argv.ts';
import { finishHits } from './hit-fields.ts';
import { siblingUrl } from './sibling.ts';
import { SqliteIndex } from './sqlite-index.ts';

// The embedded index for serving: reads run on worker threads, each with its own read-only
// connection, so that the event loop stays free for HTTP and both cores search at once
// (node:sqlite is synchronous). Writing stays with `fundus ingest`.
//
// Optionally (off by default) queries that are certainly cheap — a one-word page from its head
// list, or lists of at most `inlinePostings` postings in all, e.g. a rare or mid-frequency word —
// are answered by the calling thread from a reader of its own while the workers are idle, sparing
// the hand-over (two thread wake-ups and two copies). Measured at 100k documents (README "Search
// speed"): cheap classes 0.2–0.25 ms faster at c=1, but the HTTP thread then becomes a serial
// bottleneck (c=8: 10–15 % fewer searches a second) and the workers' queries at c=1 get slower
// (idle workers wake more slowly), so the sampled mix as a whole gains nothing. Kept for experiments.

/** FUNDUS_SEARCH_INLINE_POSTINGS (benchmarks only): postings up to which the calling thread answers a query itself; 0 (default): never. */
const INLINE_POSTINGS = envPostings(process.env.FUNDUS_SEARCH_INLINE_POSTINGS) ?? 0;
/** The calling thread's reader keeps few lists (they are short ones): its memory stays small. */
const INLINE_LIST_CACHE_BYTES = 8 * 2 ** 20;

function envPostings(value: string | undefined): number | null {
  const n = Number(value);
  return value !== undefined && value.trim() !== '' && Number.isInteger(n) && n >= 0 ? n : null;
}

type ReadCall = { method: 'search'; query: IndexQuery } | { method: 'getDocument'; documentId: string } | { method: 'listSources' | 'stats' | 'ping' };

export type ReadRequest = ReadCall & { requestId: number };

/** `stages`: the worker's stage timings since its last answer, only with FUNDUS_STAGE_TIMINGS. */
export type ReadReply = ({ requestId: number; ok: true; value: unknown } | { requestId: number; ok: false; message: string }) & { stages?: StageTotals };

interface Slot {
  worker: Worker;
  /** Its requests not answered yet (how busy it is). */
  requests: Set<number>;
  ended: boolean;
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

function readOnly(): never {
  throw new AppError('INTERNAL', { message: 'the serving index is read-only; write with `fundus ingest`' });
}

export class SqliteReadPool implements DocumentIndex {
  private readonly workers: Slot[] = [];
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  /** The calling thread's reader for cheap queries (null: every search goes to a worker). */
  private readonly inline: SqliteIndex | null;
  private readonly inlinePostings: number;
  private readonly file: string;
  private readonly memoryShare: number;
  private closing = false;

  /** `inlinePostings`: see INLINE_POSTINGS (tests choose the path with it); `openWaitMs`: see SqliteIndexOptions. */
  constructor(options: { file: string; workers: number; inlinePostings?: number; openWaitMs?: number }) {
    this.inlinePostings = options.inlinePostings ?? INLINE_POSTINGS;
    // Throws IndexNotReadyError when nothing was ingested yet or a writer holds the lock; checks the layout version.
    const reader = new SqliteIndex({ file: options.file, readOnly: true, listCacheBytes: INLINE_LIST_CACHE_BYTES, openWaitMs: options.openWaitMs });
    if (this.inlinePostings > 0) this.inline = reader;
    else {
      reader.closeSync();
      this.inline = null;
    }
    this.file = options.file;
    this.memoryShare = 1 / Math.max(1, options.workers);
    for (let i = 0; i < Math.max(1, options.workers); i++) this.workers.push(this.spawn());
  }

  /**
   * A worker with its own connection. One that ends (its opening failed, or it crashed) fails its
   * requests with 503 and is started again on its next request: no request waits on a dead worker.
   */
  private spawn(): Slot {
    const worker = new Worker(siblingUrl('read-worker'), { workerData: { file: this.file, memoryShare: this.memoryShare }, execArgv: workerExecArgv() }); // without V8's options, which a worker refuses
    const slot: Slot = { worker, requests: new Set(), ended: false };
    worker.on('message', (reply: ReadReply) => {
      slot.requests.delete(reply.requestId);
      if (reply.stages) mergeStages(reply.stages);
      const pending = this.pending.get(reply.requestId);
      this.pending.delete(reply.requestId);
      if (!pending) return;
      if (reply.ok) pending.resolve(reply.value);
      else pending.reject(new AppError('INDEX_UNAVAILABLE', { message: `index read failed: ${reply.message}` }));
    });
    let failure: Error | undefined;
    worker.on('error', (error) => (failure = error));
    worker.on('exit', () => {
      slot.ended = true;
      for (const id of slot.requests) {
        this.pending.get(id)?.reject(new AppError('INDEX_UNAVAILABLE', { message: 'index read failed: its reader ended', cause: failure }));
        this.pending.delete(id);
      }
      slot.requests.clear();
    });
    worker.unref();
    return slot;
  }

  /** Where the search for the least busy worker starts: turns among equally busy ones, so that every worker's list cache warms up. */
  private turn = 0;

  private call<T>(body: ReadCall): Promise<T> {
    const { workers } = this;
    this.turn = (this.turn + 1) % workers.length;
    let slot = workers[this.turn];
    for (let i = 1; i < workers.length; i++) {
      const candidate = workers[(this.turn + i) % workers.length];
      if (candidate.requests.size < slot.requests.size) slot = candidate;
    }
    if (slot.ended) {
      if (this.closing) return Promise.reject(new AppError('INDEX_UNAVAILABLE', { message: 'the index is closing' }));
      slot = workers[workers.indexOf(slot)] = this.spawn();
    }
    const requestId = this.nextId++;
    slot.requests.add(requestId);
    return new Promise<T>((resolve, reject) => {
      this.pending.set(requestId, { resolve: resolve as (value: unknown) => void, reject });
      const clock = stageClock(); // null unless FUNDUS_STAGE_TIMINGS (benchmark only)
      slot.worker.postMessage({ ...body, requestId });
      clock?.lap('main.post_message');
    });
  }

  /** How many searches the calling thread has answered itself (tests and benchmarks look at it). */
  inlineAnswers = 0;

  search(query: IndexQuery): Promise<IndexSearchResult> {
    // Only while no worker has anything to do: under load the calling thread is the one that parses
    // and answers every request, and work it takes on stalls all of them.
    if (this.inline && this.pending.size === 0) {
      const clock = stageClock(); // null unless FUNDUS_STAGE_TIMINGS (benchmark only)
      let result: IndexSearchResult | null = null;
      try {
        result = this.inline.searchIfCheap(query, this.inlinePostings);
      } catch {
        // e.g. busy past the timeout: a worker tries, and reports a failure as it does
      }
      if (result) {
        finishHits(result, query);
        this.inlineAnswers++;
        clock?.lap('main.inline');
        return Promise.resolve(result);
      }
      clock?.lap('main.inline_check');
    }
    return this.call({ method: 'search', query });
  }

  getDocument(id: string): Promise<StoredDocument | null> {
    return this.call({ method: 'getDocument', documentId: id });
  }

  listSources(): Promise<SourceCount[]> {
    return this.call({ method: 'listSources' });
  }

  stats(): Promise<IndexStats> {
    return this.call({ method: 'stats' });
  }

  async ping(): Promise<boolean> {
    return this.call<boolean>({ method: 'ping' }).catch(() => false);
  }

  async put(): Promise<WriteOutcome> {
    return readOnly();
  }
  async findByContentHash(): Promise<StoredDocument | null> {
    return readOnly();
  }
  async findNearDuplicateCandidates(): Promise<StoredDocument[]> {
    return readOnly();
  }
  async addAlias(): Promise<void> {
    return readOnly();
  }
  async remove(): Promise<boolean> {
    return readOnly();
  }
  async writeBatch<T>(): Promise<T> {
    return readOnly();
  }

  async close(): Promise<void> {
    this.closing = true;
    this.inline?.closeSync();
    await Promise.all(this.workers.map(({ worker }) => worker.terminate()));
  }
}

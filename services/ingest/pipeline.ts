import type { ExtractedDocument } from '../core/document.ts';
import type { DocumentIndex } from '../core/index-port.ts';
import { storeDocument, type StoreOutcome } from '../core/use-cases/store-document.ts';
import { buildStoredDocument } from './build-document.ts';
import { classifyTopicByKeywords } from './topics/keyword-classifier.ts';
import { isProblem, type IngestInput, type IngestItem } from './item.ts';

// The ingestion pipeline: extraction runs in parallel (a worker pool with time and memory limits),
// writes go through one writer in batches. A bad input is reported and skipped; it never stops the
// run, and every batch committed before a crash stays committed.

export interface IngestDeps {
  index: DocumentIndex;
  extract(input: { bytes: Uint8Array; url: string; fileName?: string; headers?: Record<string, string> }): Promise<ExtractedDocument>;
  /** Prepares a pre-extracted document, fetched from `url`, for the index off the main thread (the extraction pool). */
  prepare?(doc: ExtractedDocument, url: string, options?: { topic?: boolean }): Promise<ExtractedDocument>;
  /** A topic classifier other than the offline one the workers run (e.g. an AI endpoint). */
  classifyTopic?(doc: { title: string; text: string; url: string }): Promise<string | null> | string | null;
  /** Files larger than this are skipped without being read. */
  maxBytes: number;
  /** Documents in flight at once, between their read and their write. */
  concurrency?: number;
  /**
   * Bytes that files in flight may hold at once, from their read until their extraction has ended
   * (a file of unknown size counts as maxBytes); one file always may. Default 8 × maxBytes.
   */
  bytesInFlight?: number;
  /** Documents per commit at most. */
  batchSize?: number;
  /**
   * A commit at least this often while documents wait (default 2000 ms), also while the input is
   * idle (a crawler between pages): a killed run keeps all but its last seconds, even on a corpus
   * smaller than one batch.
   */
  commitEveryMs?: number;
  now?: () => Date;
  onEvent?(event: IngestEvent): void;
}

export type IngestEvent =
  | { kind: 'stored'; label: string; outcome: StoreOutcome }
  | { kind: 'skipped'; label: string; reason: string };

export interface IngestSummary {
  read: number;
  added: number;
  updated: number;
  unchanged: number;
  duplicates: number;
  nearDuplicates: number;
  skipped: number;
  skippedByReason: Record<string, number>;
}

export function emptySummary(): IngestSummary {
  return { read: 0, added: 0, updated: 0, unchanged: 0, duplicates: 0, nearDuplicates: 0, skipped: 0, skippedByReason: {} };
}

function reasonCode(error: unknown): string {
  if (error instanceof Error && 'code' in error && typeof error.code === 'string') return `${error.code}: ${error.message}`;
  return `EXTRACTION_FAILED: ${error instanceof Error ? error.message : String(error)}`;
}

function fileNameOf(item: IngestItem): string | undefined {
  try {
    return decodeURIComponent(new URL(item.url).pathname.split('/').pop() ?? '') || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Milliseconds of writing between two turns of the event loop within a batch: an extraction process
 * holds about two files' work (a few ms each), and gets more only when this thread has read its answer.
 */
const YIELD_AFTER_MS = 4;
const COMMIT_EVERY_MS = 2000;
/**
 * Extracted files are stored at least every this many: at a few hundred files a second, a batch of
 * 2500 or 2 s left the last seconds' writing until after the last extraction, with a core idle.
 */
const FILE_BATCH = 128;

type Prepared = { item: IngestItem; extracted: ExtractedDocument; topic: string | null } | { label: string; reason: string };

/** An extraction in flight; `done` is set once it has settled (prepare never rejects). */
interface InFlight {
  promise: Promise<Prepared>;
  done?: Prepared;
}

function track(promise: Promise<Prepared>): InFlight {
  const slot: InFlight = { promise };
  void promise.then((value) => (slot.done = value));
  return slot;
}

const TICK = Symbol('tick');

/**
 * Bounds the bytes files hold while they wait for and go through extraction: the window of documents
 * in flight is wide, so that one slow page does not leave the processes idle, but files of the
 * largest allowed size must not all be read at once. A file that finds nothing held always goes.
 */
class ByteGate {
  private held = 0;
  private waiting: (() => void)[] = [];
  private readonly limit: number;

  constructor(limit: number) {
    this.limit = limit;
  }

  async acquire(bytes: number): Promise<void> {
    while (this.held > 0 && this.held + bytes > this.limit) await new Promise<void>((wake) => this.waiting.push(wake));
    this.held += bytes;
  }

  release(bytes: number): void {
    this.held -= bytes;
    for (const wake of this.waiting.splice(0)) wake();
  }
}

export async function ingest(inputs: AsyncIterable<IngestInput> | Iterable<IngestInput>, deps: IngestDeps): Promise<IngestSummary> {
  const summary = emptySummary();
  const concurrency = deps.concurrency ?? 8;
  const batchSize = deps.batchSize ?? 2500;
  const now = deps.now ?? (() => new Date());
  const bytesGate = new ByteGate(deps.bytesInFlight ?? 8 * deps.maxBytes);

  const skip = (label: string, reason: string) => {
    summary.skipped++;
    const code = reason.split(':')[0];
    summary.skippedByReason[code] = (summary.skippedByReason[code] ?? 0) + 1;
    deps.onEvent?.({ kind: 'skipped', label, reason });
  };

  async function classify(extracted: ExtractedDocument, url: string): Promise<string | null> {
    if (deps.classifyTopic) return deps.classifyTopic({ title: extracted.title, text: extracted.text, url });
    return extracted.prepared ? extracted.prepared.topic : classifyTopicByKeywords(extracted);
  }

  async function prepare(item: IngestItem): Promise<Prepared> {
    try {
      if (item.extracted) {
        // A record that names its topic keeps it: the workers need not classify it.
        const extracted = deps.prepare ? await deps.prepare(item.extracted, item.url, { topic: item.topic === undefined }) : item.extracted;
        return { item, extracted, topic: item.topic !== undefined ? item.topic : await classify(extracted, item.url) };
      }
      if (item.size !== undefined && item.size > deps.maxBytes) return { label: item.label, reason: `TOO_LARGE: ${item.size} bytes` };
      const reserved = item.size ?? deps.maxBytes;
      await bytesGate.acquire(reserved);
      let extracted: ExtractedDocument;
      try {
        const bytes = await item.read();
        if (bytes.length > deps.maxBytes) return { label: item.label, reason: `TOO_LARGE: ${bytes.length} bytes` };
        extracted = await deps.extract({ bytes, url: item.url, fileName: fileNameOf(item), headers: item.headers });
      } finally {
        bytesGate.release(reserved);
      }
      if (extracted.noindex) return { label: item.label, reason: 'NOINDEX: the document asks not to be indexed' };
      if (!extracted.text.trim() && !extracted.title.trim()) return { label: item.label, reason: 'NO_TEXT: nothing to index' };
      return { item, extracted, topic: await classify(extracted, item.url) };
    } catch (error) {
      return { label: item.label, reason: reasonCode(error) };
    }
  }

  const commitEveryMs = deps.commitEveryMs ?? COMMIT_EVERY_MS;
  let lastCommit = Date.now();
  let batch: Prepared[] = [];
  let filesInBatch = 0;
  async function flush(): Promise<void> {
    const ready = batch;
    batch = [];
    filesInBatch = 0;
    lastCommit = Date.now();
    if (ready.length === 0) return;
    await deps.index.writeBatch(async () => {
      let resumed = performance.now();
      for (const prepared of ready) {
        // Let the event loop run now and then: the extraction workers' results arrive as messages,
        // a worker gets its next job only when its last one has been received, and more inputs are
        // read (a batch is written while the next one is extracted).
        if (performance.now() - resumed >= YIELD_AFTER_MS) {
          await new Promise((resume) => setImmediate(resume));
          resumed = performance.now();
        }
        if ('reason' in prepared) {
          skip(prepared.label, prepared.reason);
          continue;
        }
        const outcome = await storeDocument(deps.index, buildStoredDocument(prepared.item, prepared.extracted, prepared.topic, now()));
        if (outcome === 'added') summary.added++;
        else if (outcome === 'updated') summary.updated++;
        else if (outcome === 'unchanged') summary.unchanged++;
        else if (outcome === 'duplicate') summary.duplicates++;
        else summary.nearDuplicates++;
        deps.onEvent?.({ kind: 'stored', label: prepared.item.label, outcome });
      }
    });
  }

  // Keep input order for writes (the first URL of a duplicate pair stays primary) while
  // `concurrency` extractions run ahead.
  const inFlight: InFlight[] = [];
  const commitDue = () => batch.length >= batchSize || filesInBatch >= FILE_BATCH || (batch.length > 0 && Date.now() - lastCommit >= commitEveryMs);
  // One batch is written in the background while the next is gathered (and extracted); a batch due
  // while one is still being written waits for it, so that at most two are held at once.
  let writing = null as Promise<void> | null;
  const startFlush = async () => {
    if (writing) await writing;
    const flushing = flush();
    writing = flushing;
    flushing.then(
      () => {
        if (writing === flushing) writing = null;
      },
      () => {}, // rethrown where it is awaited: the next batch, or the end of the run
    );
  };
  const add = (prepared: Prepared) => {
    batch.push(prepared);
    if (!('reason' in prepared) && !prepared.item.extracted) filesInBatch++;
  };
  const takeOldest = async () => {
    add(await inFlight.shift()!.promise);
    if (commitDue()) await startFlush();
  };
  /** While the input is idle: what has settled, in input order, is committed once a commit is due. */
  const commitSettled = async () => {
    while (inFlight[0]?.done) add(inFlight.shift()!.done!);
    if (batch.length > 0 && Date.now() - lastCommit >= commitEveryMs) await startFlush();
  };
  // One timer for the whole run: each wait for the next input races against its current tick.
  let tick!: Promise<typeof TICK>;
  let fire!: () => void;
  const newTick = () => (tick = new Promise((resolve) => (fire = () => resolve(TICK))));
  newTick();
  const ticker = setInterval(() => {
    fire();
    newTick();
  }, Math.max(50, Math.min(commitEveryMs, 1000)));
  ticker.unref();
  const iterator = Symbol.asyncIterator in inputs ? inputs[Symbol.asyncIterator]() : inputs[Symbol.iterator]();
  let finished = false;
  try {
    for (;;) {
      const next = Promise.resolve(iterator.next());
      let result: IteratorResult<IngestInput>;
      for (;;) {
        const first = await Promise.race([next, tick]);
        if (first !== TICK) {
          result = first;
          break;
        }
        await commitSettled();
      }
      if (result.done) break;
      const input = result.value;
      summary.read++;
      if (isProblem(input)) {
        inFlight.push(track(Promise.resolve({ label: input.label, reason: input.reason })));
      } else {
        inFlight.push(track(prepare(input)));
      }
      // Files run `concurrency` ahead (their bytes bounded by the gate); pre-extracted records are
      // small and run two batches ahead, so that the workers keep analysing while the writer commits.
      const ahead = !isProblem(input) && input.extracted ? Math.max(concurrency, batchSize * 2) : concurrency;
      while (inFlight.length >= ahead) await takeOldest();
    }
    finished = true;
    while (inFlight.length) await takeOldest();
    if (writing) await writing;
    await flush();
  } catch (error) {
    // A batch still being written ends first: the caller closes the index after this.
    await writing?.catch(() => {});
    throw error;
  } finally {
    clearInterval(ticker);
    // Stopped early by an error: let the source close its files and connections.
    if (!finished) await iterator.return?.();
  }
  return summary;
}

// A pool of extraction worker threads. Untrusted files run where a runaway parser can be killed
// (per-job timeout -> terminate and respawn, TIMEOUT) and where a heap limit ends only that worker
// (resourceLimits -> OUT_OF_MEMORY); the ingesting process and the other jobs carry on (issue 3:
// "one bad file never takes the process down").
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ExtractedDocument } from '../../core/document.ts';
import { ExtractionError, isExtractionErrorCode } from './errors.ts';
import type { ExtractInput, ExtractOptions } from './extract-document.ts';
import type { TestOnlyHook, WorkerJob, WorkerReply } from './worker.ts';
import type { ZipLimits } from './zip-guard.ts';

export interface ExtractionPoolOptions {
  workers: number;
  /** Per job; a job still running after this is killed with its worker. */
  timeoutMs: number;
  /** Old-generation heap of each worker. */
  maxMemoryMb: number;
  /** Files larger than this are refused before they reach a worker. */
  maxBytes: number;
  zipLimits?: ZipLimits;
}

export interface ExtractJobOptions {
  /** Makes the worker misbehave on purpose; for the pool's own tests only. */
  testOnlyHook?: TestOnlyHook;
}

export interface ExtractionPool {
  /** Extracts a file and prepares it for the index (analysis, fingerprint, topic). */
  extract(input: ExtractInput, job?: ExtractJobOptions): Promise<ExtractedDocument>;
  /** Prepares an already extracted document for the index, on the pool's threads. */
  prepare(doc: ExtractedDocument): Promise<ExtractedDocument>;
  close(): Promise<void>;
}

interface Pending {
  id: number;
  input: ExtractInput;
  preExtracted?: ExtractedDocument;
  hook?: TestOnlyHook;
  resolve(doc: ExtractedDocument): void;
  reject(error: ExtractionError): void;
}

interface Slot {
  worker: Worker | null;
  job: Pending | null;
  timer: NodeJS.Timeout | null;
}

/** worker.ts next to this file when running from source, worker.js when compiled to dist/. */
export function resolveWorkerUrl(): URL {
  const own = import.meta.url;
  const preferred = own.endsWith('.ts') ? ['worker.ts', 'worker.js'] : ['worker.js', 'worker.ts'];
  for (const name of preferred) {
    const url = new URL(`./${name}`, own);
    if (existsSync(fileURLToPath(url))) return url;
  }
  throw new Error(`extraction worker not found next to ${own}`);
}

// Flags of the parent process that make no sense in a worker (and --input-type makes it fail to start).
const PARENT_ONLY_FLAGS = /^(--input-type|--eval|-e|--print|-p|--test|--watch|--check|-c|--interactive|-i)(=|$)/;

function workerExecArgv(): string[] {
  const out: string[] = [];
  const argv = process.execArgv;
  for (let i = 0; i < argv.length; i++) {
    if (PARENT_ONLY_FLAGS.test(argv[i])) {
      if (!argv[i].includes('=') && /^(--input-type|--eval|-e|--print|-p)$/.test(argv[i])) i++;
      continue;
    }
    out.push(argv[i]);
  }
  return out;
}

export function createExtractionPool(options: ExtractionPoolOptions): ExtractionPool {
  const workerUrl = resolveWorkerUrl();
  const workerOptions: ExtractOptions = { maxBytes: options.maxBytes, zipLimits: options.zipLimits };
  const slots: Slot[] = Array.from({ length: Math.max(1, options.workers) }, () => ({ worker: null, job: null, timer: null }));
  const queue: Pending[] = [];
  let nextId = 1;
  let closing = false;
  const idleWaiters: (() => void)[] = [];
  // Workers that die without a job (a broken install, a missing worker file) would respawn forever.
  let idleDeaths = 0;
  let broken: ExtractionError | null = null;

  function settle(slot: Slot): Pending | null {
    const job = slot.job;
    slot.job = null;
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    return job;
  }

  function replace(slot: Slot): void {
    const old = slot.worker;
    slot.worker = null;
    if (old) void old.terminate().catch(() => undefined);
    if (!closing) spawn(slot);
  }

  function fail(slot: Slot, error: ExtractionError): void {
    const job = settle(slot);
    if (job) job.reject(error);
    else if (++idleDeaths >= 3 && !broken) {
      broken = new ExtractionError('WORKER_FAILED', `extraction workers keep dying: ${error.message}`);
      for (const queued of queue.splice(0)) queued.reject(broken);
    }
    if (broken) {
      slot.worker?.terminate().catch(() => undefined);
      slot.worker = null;
      return;
    }
    replace(slot);
    dispatch();
  }

  function spawn(slot: Slot): void {
    const worker = new Worker(workerUrl, {
      workerData: workerOptions,
      execArgv: workerExecArgv(),
      resourceLimits: {
        maxOldGenerationSizeMb: options.maxMemoryMb,
        maxYoungGenerationSizeMb: Math.max(16, Math.min(64, Math.floor(options.maxMemoryMb / 8))),
        stackSizeMb: 4,
      },
    });
    // An idle pool must not keep the process alive; a running job does, through its timer.
    worker.unref();
    slot.worker = worker;
    worker.on('message', (reply: WorkerReply) => {
      if (slot.worker !== worker || !slot.job || slot.job.id !== reply.id) return;
      const job = settle(slot)!;
      idleDeaths = 0;
      if (reply.ok) job.resolve(reply.doc);
      else job.reject(new ExtractionError(isExtractionErrorCode(reply.code) ? reply.code : 'CORRUPT_FILE', undefined, { cause: reply.message }));
      dispatch();
    });
    worker.on('error', (error: Error & { code?: string }) => {
      if (slot.worker !== worker) return;
      if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') fail(slot, new ExtractionError('OUT_OF_MEMORY', `heap limit ${options.maxMemoryMb} MB`, { cause: error }));
      else fail(slot, new ExtractionError('WORKER_FAILED', error.message, { cause: error }));
    });
    worker.on('exit', (code) => {
      if (slot.worker !== worker) return;
      fail(slot, new ExtractionError('WORKER_FAILED', `worker exited with code ${code}`));
    });
  }

  function dispatch(): void {
    for (const slot of slots) {
      if (queue.length === 0) break;
      if (slot.job || !slot.worker) continue;
      const job = queue.shift()!;
      slot.job = job;
      slot.timer = setTimeout(() => {
        if (slot.job === job) fail(slot, new ExtractionError('TIMEOUT', `still running after ${options.timeoutMs} ms`));
      }, options.timeoutMs);
      // A fresh copy is transferred: the caller's bytes may be a Buffer on Node's shared pool slab
      // (untransferable), and `Buffer.slice()` would not copy at all.
      const bytes = new Uint8Array(job.input.bytes);
      const message: WorkerJob = { id: job.id, input: { ...job.input, bytes }, preExtracted: job.preExtracted, testOnlyHook: job.hook };
      try {
        slot.worker.postMessage(message, [bytes.buffer]);
      } catch (error) {
        settle(slot);
        job.reject(new ExtractionError('WORKER_FAILED', `could not hand the job to a worker: ${(error as Error).message}`, { cause: error }));
      }
    }
    if (queue.length === 0 && slots.every((s) => !s.job)) idleWaiters.splice(0).forEach((wake) => wake());
  }

  for (const slot of slots) spawn(slot);

  return {
    extract(input, job = {}) {
      if (closing) return Promise.reject(new ExtractionError('POOL_CLOSED'));
      if (broken) return Promise.reject(broken);
      if (input.bytes.length > options.maxBytes) {
        return Promise.reject(new ExtractionError('TOO_LARGE', `${input.bytes.length} bytes, limit ${options.maxBytes}`));
      }
      if (input.bytes.length === 0) return Promise.reject(new ExtractionError('EMPTY_FILE'));
      return new Promise<ExtractedDocument>((resolve, reject) => {
        queue.push({ id: nextId++, input, hook: job.testOnlyHook, resolve, reject });
        dispatch();
      });
    },
    prepare(doc) {
      if (closing) return Promise.reject(new ExtractionError('POOL_CLOSED'));
      if (broken) return Promise.reject(broken);
      return new Promise<ExtractedDocument>((resolve, reject) => {
        queue.push({ id: nextId++, input: { bytes: new Uint8Array(0), url: '' }, preExtracted: doc, resolve, reject });
        dispatch();
      });
    },
    async close() {
      closing = true;
      for (const job of queue.splice(0)) job.reject(new ExtractionError('POOL_CLOSED'));
      if (slots.some((s) => s.job)) await new Promise<void>((wake) => idleWaiters.push(wake));
      await Promise.all(
        slots.map(async (slot) => {
          const worker = slot.worker;
          slot.worker = null;
          if (worker) await worker.terminate().catch(() => undefined);
        }),
      );
    },
  };
}

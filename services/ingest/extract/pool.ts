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
import type { TestOnlyHook, WorkerJob, WorkerReady, WorkerReply } from './worker.ts';
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
  prepare(doc: ExtractedDocument, url?: string): Promise<ExtractedDocument>;
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
  /** The jobs the worker is running: one file, or a run of pre-extracted documents. */
  jobs: Pending[];
  timer: NodeJS.Timeout | null;
  /** The worker has loaded and warmed up: only then does a job's time limit start to run. */
  ready: boolean;
  /** Ends a worker that never gets ready (a hung start-up). */
  startup: NodeJS.Timeout | null;
}

/**
 * Pre-extracted documents handed to a worker in one message: one message each kept the workers
 * waiting for the writer's thread to hand out the next (measured: idle two thirds of the time).
 */
const PREPARE_BATCH = 32;

/**
 * How long a worker may take to load and warm up before it counts as failed. Start-up is not part
 * of a job's time limit: on a loaded machine it took longer than a small limit, and the job
 * queued behind a killed one then timed out on a worker that had not yet started.
 */
const STARTUP_LIMIT_MS = 60_000;

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
  const slots: Slot[] = Array.from({ length: Math.max(1, options.workers) }, () => ({ worker: null, jobs: [], timer: null, ready: false, startup: null }));
  const queue: Pending[] = [];
  let nextId = 1;
  let closing = false;
  const idleWaiters: (() => void)[] = [];
  // Workers that die without a job (a broken install, a missing worker file) would respawn forever.
  let idleDeaths = 0;
  let broken: ExtractionError | null = null;

  function settle(slot: Slot): Pending[] {
    const jobs = slot.jobs;
    slot.jobs = [];
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    return jobs;
  }

  function finish(job: Pending, outcome: { ok: true; doc: ExtractedDocument } | { ok: false; code: string; message: string }): void {
    if (outcome.ok) job.resolve(outcome.doc);
    else job.reject(new ExtractionError(isExtractionErrorCode(outcome.code) ? outcome.code : 'CORRUPT_FILE', undefined, { cause: outcome.message }));
  }

  function stopStartup(slot: Slot): void {
    if (slot.startup) clearTimeout(slot.startup);
    slot.startup = null;
  }

  /** A job's time limit, from when a ready worker gets it. */
  function startTimer(slot: Slot): void {
    const job = slot.jobs[0];
    slot.timer = setTimeout(() => {
      if (slot.jobs[0] === job) fail(slot, new ExtractionError('TIMEOUT', `still running after ${options.timeoutMs} ms`));
    }, options.timeoutMs);
  }

  function replace(slot: Slot): void {
    const old = slot.worker;
    slot.worker = null;
    stopStartup(slot);
    if (old) void old.terminate().catch(() => undefined);
    if (!closing) spawn(slot);
  }

  function fail(slot: Slot, error: ExtractionError): void {
    const jobs = settle(slot);
    for (const job of jobs) job.reject(error);
    if (jobs.length === 0 && ++idleDeaths >= 3 && !broken) {
      broken = new ExtractionError('WORKER_FAILED', `extraction workers keep dying: ${error.message}`);
      for (const queued of queue.splice(0)) queued.reject(broken);
    }
    if (broken) {
      stopStartup(slot);
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
    slot.ready = false;
    stopStartup(slot);
    slot.startup = setTimeout(() => {
      if (slot.worker === worker && !slot.ready) fail(slot, new ExtractionError('WORKER_FAILED', `worker not ready after ${STARTUP_LIMIT_MS} ms`));
    }, STARTUP_LIMIT_MS);
    worker.on('message', (reply: WorkerReply | WorkerReady) => {
      if (slot.worker !== worker) return;
      if ('ready' in reply) {
        slot.ready = true;
        stopStartup(slot);
        if (slot.jobs.length) send(slot);
        return;
      }
      if (slot.jobs[0]?.id !== reply.id) return;
      const jobs = settle(slot);
      idleDeaths = 0;
      if ('batch' in reply) jobs.forEach((job, i) => finish(job, reply.batch[i]));
      else finish(jobs[0], reply);
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

  /** Hands the slot's jobs to its worker, which is ready: the job's time limit starts now. */
  function send(slot: Slot): void {
    const jobs = slot.jobs;
    const job = jobs[0];
    startTimer(slot);
    // A fresh copy is transferred: the caller's bytes may be a Buffer on Node's shared pool slab
    // (untransferable), and `Buffer.slice()` would not copy at all.
    const bytes = new Uint8Array(job.input.bytes);
    const preExtracted = job.preExtracted ? jobs.map((j) => j.preExtracted!) : undefined;
    const preExtractedUrls = job.preExtracted ? jobs.map((j) => j.input.url) : undefined;
    const message: WorkerJob = { id: job.id, input: { ...job.input, bytes }, preExtracted, preExtractedUrls, testOnlyHook: job.hook };
    try {
      slot.worker!.postMessage(message, [bytes.buffer]);
    } catch (error) {
      for (const failed of settle(slot)) {
        failed.reject(new ExtractionError('WORKER_FAILED', `could not hand the job to a worker: ${(error as Error).message}`, { cause: error }));
      }
    }
  }

  function dispatch(): void {
    for (const slot of slots) {
      if (queue.length === 0) break;
      if (slot.jobs.length || !slot.worker) continue;
      const job = queue.shift()!;
      const jobs = [job];
      if (job.preExtracted) while (jobs.length < PREPARE_BATCH && queue[0]?.preExtracted) jobs.push(queue.shift()!);
      slot.jobs = jobs;
      if (slot.ready) send(slot);
    }
    if (queue.length === 0 && slots.every((s) => !s.jobs.length)) idleWaiters.splice(0).forEach((wake) => wake());
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
    prepare(doc, url = '') {
      if (closing) return Promise.reject(new ExtractionError('POOL_CLOSED'));
      if (broken) return Promise.reject(broken);
      return new Promise<ExtractedDocument>((resolve, reject) => {
        queue.push({ id: nextId++, input: { bytes: new Uint8Array(0), url }, preExtracted: doc, resolve, reject });
        dispatch();
      });
    },
    async close() {
      closing = true;
      for (const job of queue.splice(0)) job.reject(new ExtractionError('POOL_CLOSED'));
      if (slots.some((s) => s.jobs.length)) await new Promise<void>((wake) => idleWaiters.push(wake));
      await Promise.all(
        slots.map(async (slot) => {
          const worker = slot.worker;
          slot.worker = null;
          stopStartup(slot);
          if (worker) await worker.terminate().catch(() => undefined);
        }),
      );
    },
  };
}

// Child-process entry of the extraction pool: one job at a time (the next one waits in line), results and errors as IPC messages.
// A process, not a worker thread: V8 ends the whole process on some heap-limit failures even inside a
// worker with resourceLimits (one large allocation, a growing array or Map: "FATAL ERROR: ... heap
// out of memory"), and a native crash in a parser takes its process along. Here that is this process
// only; the pool reports the file and starts another.
// Imports use .ts extensions so this file runs both from source (Node 24 strips the types) and
// compiled to dist/ (tsc rewrites the extensions).
import { spawn } from 'node:child_process';
import { fstatSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import type { ExtractedDocument, IndexPreparation } from '../../core/document.ts';
import { toExtractionError } from './errors.ts';
import { prepareForIndex, prepareText, type TextPreparation } from '../prepare.ts';
import { type ExtractInput, type ExtractOptions, extractDocument } from './extract-document.ts';
import { runTestOnlyHook, type TestOnlyHook } from './test-only-hooks.ts';

export interface WorkerJob {
  id: number;
  input: ExtractInput;
  /** Documents extracted elsewhere (pre-extracted records): only prepared for the index, in one message. */
  preExtracted?: ExtractedDocument[];
  /** The URL each pre-extracted document was fetched from. */
  preExtractedUrls?: string[];
  /** Per pre-extracted document: false when it brings its own topic (no offline classification). */
  preExtractedTopics?: boolean[];
  /** Per pre-extracted document: its prepareText, when the process that extracted it made it. */
  preExtractedText?: (TextPreparation | undefined)[];
  /** Extract only: the pool has the document prepared by another process (see the pool's roles). */
  extractOnly?: boolean;
  testOnlyHook?: TestOnlyHook;
}

type Failure = { ok: false; code: string; message: string };
/** `text`: an extract-only job's prepareText of the document, for the process that prepares it. */
type Outcome = { ok: true; doc: ExtractedDocument; text?: TextPreparation } | Failure;
/** A pre-extracted document's outcome: only what was added (the pool has the document itself). */
export type PreparedOutcome = { ok: true; prepared: IndexPreparation } | Failure;

/**
 * The answer to a job: one outcome, or one per pre-extracted document. `cpuMs`: this process's CPU
 * time so far (all threads, as /proc/PID/stat counts it); the pool measures the next job's CPU time
 * from it, with no read of /proc per job.
 */
export type WorkerReply = (({ id: number } & Outcome) | { id: number; batch: PreparedOutcome[] }) & { cpuMs: number };

/** Sent once, after the process has loaded and warmed up; the pool starts job time limits from it. */
export interface WorkerReady {
  ready: true;
  cpuMs: number;
}

/**
 * The process's CPU time over all its threads (getrusage) cost 0.5–0.9 ms of CPU a call in these
 * processes (measured: 0.3 s of 2.3 in a run over the corpus HTML; it was called after every file),
 * while V8's helper threads run; this thread's own time is cheap to read. So the whole process is
 * read at most every FULL_CPU_EVERY_MS, and this thread's time since then is added: what the other
 * threads used meanwhile (GC, compiling) is counted at the next full read. A job's CPU time may so
 * look larger by that much (a few ms), never smaller; the readings never go back.
 */
const FULL_CPU_EVERY_MS = 100;
let full = { at: Number.NEGATIVE_INFINITY, processMs: 0, threadMs: 0 };

function msOf(used: NodeJS.CpuUsage): number {
  return (used.user + used.system) / 1000;
}

function cpuMs(): number {
  const now = performance.now();
  const threadMs = msOf(process.threadCpuUsage());
  if (now - full.at >= FULL_CPU_EVERY_MS) full = { at: now, processMs: msOf(process.cpuUsage()), threadMs };
  return full.processMs + (threadMs - full.threadMs);
}

const toParent = process.send?.bind(process);
if (!toParent) throw new Error('worker.ts must run as a child process of the extraction pool (with an IPC channel)');
const send: (message: WorkerReply | WorkerReady) => void = toParent;
const options = JSON.parse(process.argv[2] ?? '{}') as ExtractOptions;
/** What the pool has this process do mostly (its roles): an extract-only process never analyses a file. */
export type WorkerRole = 'extracts' | 'prepares';
const role: WorkerRole = process.argv[3] === 'extracts' ? 'extracts' : 'prepares';

// The pool closed or died: nothing more will come.
process.on('disconnect', () => process.exit(0));

// 'disconnect' needs this thread, and a job stuck in a loop would outlive a killed pool. So a small
// shell waits on this process's stdin, a pipe the pool holds and never writes to: when the pool's
// process ends, however it ends, the pipe closes, `read` returns and the shell kills this process.
// A thread polling the parent did the same for 40 ms of CPU at the start of each process; the shell
// costs a fork. Where there is no POSIX shell (Windows), or stdin is no pipe (a process started by
// hand), the thread it is.
function watchForOrphaning(): void {
  if (process.platform === 'win32' || !stdinIsPipe()) return watchWithThread();
  const watchdog = spawn('/bin/sh', ['-c', 'read -r _; kill -9 "$0" 2>/dev/null', String(process.pid)], { stdio: [0, 'ignore', 'ignore'] });
  watchdog.once('error', watchWithThread);
  watchdog.unref();
  // A normal end takes the watchdog along (the pool may live on).
  process.once('exit', () => watchdog.kill());
}

function stdinIsPipe(): boolean {
  try {
    const stdin = fstatSync(0);
    return stdin.isFIFO() || stdin.isSocket();
  } catch {
    return false;
  }
}

function watchWithThread(): void {
  const orphanWatch = new Worker(
    "const { workerData } = require('node:worker_threads'); setInterval(() => { if (process.ppid !== workerData) process.kill(process.pid, 'SIGKILL'); }, 1000);",
    { eval: true, workerData: process.ppid, resourceLimits: { maxOldGenerationSizeMb: 8, maxYoungGenerationSizeMb: 2 } },
  );
  orphanWatch.unref();
}

watchForOrphaning();

/** `prepare`: false for an extract-only job (its prepareText comes with it); `text`: the document's prepareText if made already. */
async function outcomeOf(work: () => Promise<ExtractedDocument> | ExtractedDocument, url: string | undefined, topic = true, prepare = true, text?: TextPreparation): Promise<Outcome> {
  try {
    const doc = await work();
    if (!prepare) return { ok: true, doc, text: prepareText(doc, url) };
    doc.prepared = prepareForIndex(doc, url, { topic, text });
    return { ok: true, doc };
  } catch (error) {
    const e = toExtractionError(error);
    return { ok: false, code: e.code, message: e.message };
  }
}

// The pool hands over the next job before this one is answered: jobs run one after another, in order.
let running: Promise<void> = Promise.resolve();
process.on('message', (job: WorkerJob) => {
  running = running.then(() => run(job));
});

async function run(job: WorkerJob): Promise<void> {
  if (job.preExtracted) {
    if (job.testOnlyHook) runTestOnlyHook(job.testOnlyHook);
    // The reply carries the preparations only: sending each text back was a tenth of this process's CPU.
    const batch: PreparedOutcome[] = [];
    for (const [i, doc] of job.preExtracted.entries()) {
      const outcome = await outcomeOf(() => doc, job.preExtractedUrls?.[i], job.preExtractedTopics?.[i] ?? true, true, job.preExtractedText?.[i]);
      batch.push(outcome.ok ? { ok: true, prepared: outcome.doc.prepared! } : outcome);
    }
    send({ id: job.id, batch, cpuMs: cpuMs() } satisfies WorkerReply);
    return;
  }
  const outcome = await outcomeOf(async () => {
    if (job.testOnlyHook) runTestOnlyHook(job.testOnlyHook);
    return extractDocument(job.input, options);
  }, job.input.url, true, !job.extractOnly);
  send({ id: job.id, ...outcome, cpuMs: cpuMs() } satisfies WorkerReply);
}

// Warm-up: the first document loads the analysis lexicon and compiles the parsers; doing it before
// saying "ready" keeps that start-up cost out of the first real job's time limit. An extract-only
// process skips the analysis (about 45 ms of CPU); should it prepare records, it loads it then.
const WARM_UP = new TextEncoder().encode('<!doctype html><html lang="de"><head><title>Aufwärmen</title></head><body><p>Die Schulwegpläne der Häuser sind fertig.</p></body></html>');
void outcomeOf(() => extractDocument({ bytes: WARM_UP, url: 'https://warm-up.invalid/' }, options), 'https://warm-up.invalid/', true, role === 'prepares').finally(() =>
  send({ ready: true, cpuMs: cpuMs() } satisfies WorkerReady),
);

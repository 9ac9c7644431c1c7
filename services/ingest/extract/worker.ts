// Worker thread entry of the extraction pool: one job at a time, results and errors as messages.
// Imports use .ts extensions so this file runs both from source (Node 24 strips the types) and
// compiled to dist/ (tsc rewrites the extensions).
import { parentPort, workerData } from 'node:worker_threads';
import type { ExtractedDocument } from '../../core/document.ts';
import { toExtractionError } from './errors.ts';
import { prepareForIndex } from '../prepare.ts';
import { type ExtractInput, type ExtractOptions, extractDocument } from './extract-document.ts';

/** Behaviours that only tests request, to prove the pool survives a stuck, bloated or dying worker. */
export type TestOnlyHook = 'hang' | 'exhaust-memory' | 'exit';

export interface WorkerJob {
  id: number;
  input: ExtractInput;
  /** Documents extracted elsewhere (pre-extracted records): only prepared for the index, in one message. */
  preExtracted?: ExtractedDocument[];
  /** The URL each pre-extracted document was fetched from. */
  preExtractedUrls?: string[];
  testOnlyHook?: TestOnlyHook;
}

type Outcome = { ok: true; doc: ExtractedDocument } | { ok: false; code: string; message: string };

/** The answer to a job: one outcome, or one per pre-extracted document. */
export type WorkerReply = ({ id: number } & Outcome) | { id: number; batch: Outcome[] };

/** Sent once, after the worker has loaded and warmed up; the pool starts job time limits from it. */
export interface WorkerReady {
  ready: true;
}

function runTestOnlyHook(hook: TestOnlyHook): void {
  if (hook === 'hang') {
    // A synchronous loop like a runaway parser: only terminate() can stop it.
    for (;;) {
      /* spin */
    }
  }
  if (hook === 'exhaust-memory') {
    const hoard: number[][] = [];
    for (;;) hoard.push(new Array(1_000_000).fill(hoard.length));
  }
  if (hook === 'exit') process.exit(3);
}

const options = (workerData ?? {}) as ExtractOptions;
const port = parentPort;
if (!port) throw new Error('worker.ts must run as a worker thread');

async function outcomeOf(work: () => Promise<ExtractedDocument> | ExtractedDocument, url: string | undefined): Promise<Outcome> {
  try {
    const doc = await work();
    doc.prepared = prepareForIndex(doc, url);
    return { ok: true, doc };
  } catch (error) {
    const e = toExtractionError(error);
    return { ok: false, code: e.code, message: e.message };
  }
}

port.on('message', async (job: WorkerJob) => {
  if (job.preExtracted) {
    const batch: Outcome[] = [];
    for (const [i, doc] of job.preExtracted.entries()) batch.push(await outcomeOf(() => doc, job.preExtractedUrls?.[i]));
    port.postMessage({ id: job.id, batch } satisfies WorkerReply);
    return;
  }
  const outcome = await outcomeOf(async () => {
    if (job.testOnlyHook) runTestOnlyHook(job.testOnlyHook);
    return extractDocument(job.input, options);
  }, job.input.url);
  port.postMessage({ id: job.id, ...outcome } satisfies WorkerReply);
});

// Warm-up: the first document loads the analysis lexicon and compiles the parsers; doing it before
// saying "ready" keeps that start-up cost out of the first real job's time limit.
const WARM_UP = new TextEncoder().encode('<!doctype html><html lang="de"><head><title>Aufwärmen</title></head><body><p>Die Schulwegpläne der Häuser sind fertig.</p></body></html>');
void outcomeOf(() => extractDocument({ bytes: WARM_UP, url: 'https://warm-up.invalid/' }, options), 'https://warm-up.invalid/').finally(() =>
  port.postMessage({ ready: true } satisfies WorkerReady),
);

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
  /** A document extracted elsewhere (pre-extracted records): only prepared for the index. */
  preExtracted?: ExtractedDocument;
  testOnlyHook?: TestOnlyHook;
}

export type WorkerReply =
  | { id: number; ok: true; doc: ExtractedDocument }
  | { id: number; ok: false; code: string; message: string };

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

port.on('message', async (job: WorkerJob) => {
  try {
    if (job.testOnlyHook) runTestOnlyHook(job.testOnlyHook);
    const doc = job.preExtracted ?? (await extractDocument(job.input, options));
    doc.prepared = prepareForIndex(doc);
    port.postMessage({ id: job.id, ok: true, doc } satisfies WorkerReply);
  } catch (error) {
    const e = toExtractionError(error);
    port.postMessage({ id: job.id, ok: false, code: e.code, message: e.message } satisfies WorkerReply);
  }
});

import { Worker } from 'node:worker_threads';
import { ftsFileOf, type FtsOp } from './fts-file.ts';
import { siblingUrl } from './sibling.ts';

/**
 * Writes the FTS5 changes of committed writes on a thread of its own (fts-writer-worker.ts), while
 * the writer's thread goes on with the next rows (fts-file.ts says why). Changes are applied in the
 * order they were posted; `settled(n)` waits until at most `n` writes are still being applied,
 * which bounds the memory that waiting changes hold.
 */
export class FtsWriter {
  private readonly worker: Worker;
  private inFlight = 0;
  private failure: Error | null = null;
  private waiters: (() => void)[] = [];
  private closed = false;
  private readonly exited: Promise<void>;

  private readonly onApplied: (generation: number) => void;

  constructor(indexFile: string, onApplied: (generation: number) => void) {
    this.onApplied = onApplied;
    this.worker = new Worker(siblingUrl('fts-writer-worker'), { workerData: { ftsFile: ftsFileOf(indexFile) }, name: 'fts-writer' });
    this.worker.unref(); // idle, it keeps no process alive
    this.worker.on('message', (message: { applied: number } | { error: string }) => {
      if ('error' in message) this.fail(new Error(`writing the FTS5 file failed: ${message.error}`));
      else {
        this.inFlight--;
        this.onApplied(message.applied);
        if (this.inFlight === 0) this.worker.unref();
        this.wake();
      }
    });
    this.worker.on('error', (error) => this.fail(error));
    this.exited = new Promise((resolve) =>
      this.worker.on('exit', (code) => {
        if (!this.closed || this.inFlight > 0) this.fail(new Error(`the FTS5 writer thread exited with ${code}`));
        resolve();
      }),
    );
  }

  post(generation: number, ops: FtsOp[]): void {
    this.check();
    if (this.inFlight++ === 0) this.worker.ref();
    this.worker.postMessage({ generation, ops });
  }

  /** Waits until at most `atMost` posted writes are still being applied; throws the thread's failure. */
  async settled(atMost = 0): Promise<void> {
    while (this.inFlight > atMost && !this.failure) await new Promise<void>((resolve) => this.waiters.push(resolve));
    this.check();
  }

  /** Applies what was posted, then ends the thread (its connection closed). */
  async close(): Promise<void> {
    if (this.closed) return;
    try {
      await this.settled(0);
    } finally {
      this.closed = true;
      this.worker.ref();
      this.worker.postMessage('close');
      await this.exited;
    }
  }

  /** Ends the thread at once: writes not yet applied are repaired by the next writer (fts_pending). */
  stop(): void {
    this.closed = true;
    void this.worker.terminate();
  }

  private check(): void {
    if (this.failure) throw this.failure;
  }

  private fail(error: Error): void {
    this.failure ??= error;
    this.wake();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }
}

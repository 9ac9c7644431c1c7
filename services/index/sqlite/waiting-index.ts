import type { StoredDocument } from '../../core/document.ts';
import { AppError } from '../../core/errors.ts';
import type { DocumentIndex, IndexQuery, IndexSearchResult, IndexStats, SourceCount, WriteOutcome } from '../../core/index-port.ts';
import { IndexNotReadyError } from './sqlite-index.ts';

// `fundus serve` before the index can be read: nothing ingested yet, or a writer holding the lock
// (an ingestion creating the file). The server starts anyway and opens the index read-only as soon
// as it can, trying again with a back-off that doubles up to a bound; until then /readyz says 503
// and reads answer 503 INDEX_UNAVAILABLE (or, for an index that may well never exist, such as the
// fediverse one, an empty stand-in answers). It never writes and never exits for this.

export const RETRY_FIRST_MS = 200;
export const RETRY_MAX_MS = 5000;

export interface WaitingIndexOptions {
  /** Opens the index read-only; throws IndexNotReadyError while it cannot be read yet, at once (SqliteIndexOptions.openWaitMs 0). */
  open(): DocumentIndex;
  /** Answers while waiting (an empty index), instead of 503; readiness is then true. */
  standIn?: DocumentIndex;
  /** Told once per reason while waiting, and once when open. */
  onWait?(reason: string): void;
  onOpen?(): void;
}

/** Opens now if it can; else returns an index that keeps trying in the background. */
export function openWhenReady(options: WaitingIndexOptions): DocumentIndex {
  try {
    return options.open();
  } catch (error) {
    if (!(error instanceof IndexNotReadyError)) throw error;
    return new WaitingIndex(options, error.message);
  }
}

export class WaitingIndex implements DocumentIndex {
  private opened: DocumentIndex | null = null;
  private reason: string;
  private delay = RETRY_FIRST_MS;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private readonly options: WaitingIndexOptions;

  constructor(options: WaitingIndexOptions, reason: string) {
    this.options = options;
    this.reason = reason;
    options.onWait?.(reason);
    this.schedule();
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      if (!this.tryOpen() && !this.closed) this.schedule();
    }, this.delay);
    this.timer.unref();
    this.delay = Math.min(this.delay * 2, RETRY_MAX_MS);
  }

  /**
   * Opens the index if it can be read now. Besides the back-off, every request and readiness probe
   * tries (the opener fails at once while a writer holds the lock): the process's serving threads
   * each wait on their own, and one that just said "ready" must not leave the next request, which
   * may land on another thread, with a 503.
   */
  private tryOpen(): boolean {
    if (this.closed) return false;
    if (this.opened) return true;
    try {
      this.opened = this.options.open();
    } catch (error) {
      if (!(error instanceof IndexNotReadyError)) {
        // A damaged or foreign file: say so and keep trying (an operator may replace it).
        this.note(`the index cannot be opened: ${error instanceof Error ? error.message : String(error)}`);
      } else this.note(error.message);
      return false;
    }
    if (this.timer) clearTimeout(this.timer);
    this.options.onOpen?.();
    void this.options.standIn?.close();
    return true;
  }

  private note(reason: string): void {
    if (reason !== this.reason) this.options.onWait?.(reason);
    this.reason = reason;
  }

  /** The open index, the stand-in, or a 503. */
  private reader(): DocumentIndex {
    if (this.tryOpen()) return this.opened!;
    if (this.options.standIn) return this.options.standIn;
    throw new AppError('INDEX_UNAVAILABLE', { message: 'The index is not available yet; retry shortly' });
  }

  async search(query: IndexQuery): Promise<IndexSearchResult> {
    return this.reader().search(query);
  }
  async getDocument(id: string): Promise<StoredDocument | null> {
    return this.reader().getDocument(id);
  }
  async listSources(): Promise<SourceCount[]> {
    return this.reader().listSources();
  }
  async stats(): Promise<IndexStats> {
    return this.reader().stats();
  }
  async ping(): Promise<boolean> {
    if (this.tryOpen()) return this.opened!.ping();
    return this.options.standIn ? this.options.standIn.ping() : false;
  }

  private readOnly(): never {
    throw new AppError('INTERNAL', { message: 'the serving index is read-only; write with `fundus ingest`' });
  }
  async put(): Promise<WriteOutcome> {
    return this.readOnly();
  }
  async findByContentHash(): Promise<StoredDocument | null> {
    return this.readOnly();
  }
  async findNearDuplicateCandidates(): Promise<StoredDocument[]> {
    return this.readOnly();
  }
  async addAlias(): Promise<void> {
    return this.readOnly();
  }
  async remove(): Promise<boolean> {
    return this.readOnly();
  }
  async writeBatch<T>(): Promise<T> {
    return this.readOnly();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    await this.opened?.close();
    if (!this.opened) await this.options.standIn?.close();
  }
}

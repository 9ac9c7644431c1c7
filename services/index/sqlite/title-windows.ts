// The writer's memory of the newest primary records per title key: the near-duplicate check
// compares a new record with the `size` newest records of its title (store-document.ts), and in
// a large collection common titles ("Impressum") have hundreds of records, so reading that window
// from the index took 40 µs a record — the writer's largest cost after the inserts themselves.
// A window is read once and then kept up to date as records are added; anything else that changes
// records (an update, a removal, a rollback, another connection's commit) clears all windows.

import { bitsApart, fingerprintBits, type FingerprintBits } from '../../core/text.ts';

export interface WindowRecord {
  seq: number;
  /** The fingerprint parsed once (a record is compared with every later one of its title); null for short texts. */
  bits: FingerprintBits | null;
}

export function windowRecord(seq: number, fingerprint: string | null): WindowRecord {
  return { seq, bits: fingerprint === null ? null : fingerprintBits(fingerprint) };
}

/** Row ids of the records (newest first) whose fingerprint is at most `maxBits` from `target`, at most `limit`. */
export function closestOf(window: WindowRecord[], target: FingerprintBits, maxBits: number, limit: number): number[] {
  const found: number[] = [];
  for (const record of window) {
    if (found.length >= limit) break;
    if (record.bits !== null && bitsApart(record.bits, target) <= maxBits) found.push(record.seq);
  }
  return found;
}

export class TitleWindows {
  /** Per title key, its newest records, newest first. */
  private readonly windows = new Map<string, WindowRecord[]>();
  private entries = 0;
  private readonly size: number;
  private readonly maxEntries: number;

  /** `size` records per title, at most `maxEntries` in all (the titles read first are dropped first). */
  constructor(size: number, maxEntries: number) {
    this.size = size;
    this.maxEntries = maxEntries;
  }

  clear(): void {
    this.windows.clear();
    this.entries = 0;
  }

  /** closestOf over the window of `key`; `load` reads the window (newest first) when it is not held. */
  closest(key: string, target: FingerprintBits, maxBits: number, limit: number, load: () => WindowRecord[]): number[] {
    let window = this.windows.get(key);
    if (!window) {
      window = load();
      this.windows.set(key, window);
      this.entries += window.length;
      this.evict();
    }
    return closestOf(window, target, maxBits, limit);
  }

  /** A new primary record (the newest of its title), if its title's window is held. */
  added(key: string, seq: number, fingerprint: string | null): void {
    const window = this.windows.get(key);
    if (!window) return;
    window.unshift(windowRecord(seq, fingerprint));
    if (window.length > this.size) {
      window.pop();
    } else {
      this.entries++;
      this.evict();
    }
  }

  private evict(): void {
    for (const [key, window] of this.windows) {
      if (this.entries <= this.maxEntries) break;
      this.windows.delete(key);
      this.entries -= window.length;
    }
  }
}

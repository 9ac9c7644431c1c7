// The writer's memory of the newest primary records per title key: the near-duplicate check
// compares a new record with the `size` newest records of its title (store-document.ts), and in
// a large collection common titles ("Impressum") have hundreds of records, so reading that window
// from the index took 40 µs a record — the writer's largest cost after the inserts themselves.
// A window is read once and then kept up to date as records are added; anything else that changes
// records (an update, a removal, a rollback, another connection's commit) clears all windows.

import { bitCount, fingerprintBits, type FingerprintBits } from '../../core/text.ts';

/** The records of one title, newest first: row ids and parsed fingerprint halves side by side (-1: none), compared without objects. */
export class TitleWindow {
  readonly seqs: number[] = [];
  readonly highs: number[] = [];
  readonly lows: number[] = [];

  static of(records: { seq: number; fingerprint: string | null }[]): TitleWindow {
    const window = new TitleWindow();
    for (const { seq, fingerprint } of records) {
      const bits = fingerprint === null ? null : fingerprintBits(fingerprint);
      window.seqs.push(seq);
      window.highs.push(bits ? bits.high : -1);
      window.lows.push(bits ? bits.low : -1);
    }
    return window;
  }

  get length(): number {
    return this.seqs.length;
  }

  addNewest(seq: number, fingerprint: string | null): void {
    const bits = fingerprint === null ? null : fingerprintBits(fingerprint);
    this.seqs.unshift(seq);
    this.highs.unshift(bits ? bits.high : -1);
    this.lows.unshift(bits ? bits.low : -1);
  }

  dropOldest(): void {
    this.seqs.pop();
    this.highs.pop();
    this.lows.pop();
  }
}

/** Row ids of the records (newest first) whose fingerprint is at most `maxBits` from `target`, at most `limit`. */
export function closestOf(window: TitleWindow, target: FingerprintBits, maxBits: number, limit: number): number[] {
  const found: number[] = [];
  const { seqs, highs, lows } = window;
  for (let i = 0; i < seqs.length && found.length < limit; i++) {
    if (highs[i] < 0) continue;
    if (bitCount((highs[i] ^ target.high) >>> 0) + bitCount((lows[i] ^ target.low) >>> 0) <= maxBits) found.push(seqs[i]);
  }
  return found;
}

export class TitleWindows {
  /** Per title key, its newest records, newest first. */
  private readonly windows = new Map<string, TitleWindow>();
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
  closest(key: string, target: FingerprintBits, maxBits: number, limit: number, load: () => TitleWindow): number[] {
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
    window.addNewest(seq, fingerprint);
    if (window.length > this.size) {
      window.dropOldest();
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

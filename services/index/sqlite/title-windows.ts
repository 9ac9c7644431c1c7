// The writer's memory of the newest primary records per title key: the near-duplicate check
// compares a new record with the `size` newest records of its title (store-document.ts), and in
// a large collection common titles ("Impressum") have hundreds of records, so reading that window
// from the index took 40 µs a record — the writer's largest cost after the inserts themselves.
// A window is read once and then kept up to date as records are added; anything else that changes
// records (an update, a removal, a rollback, another connection's commit) clears all windows.

interface Window {
  seqs: number[];
  fingerprints: (string | null)[];
}

export class TitleWindows {
  private readonly windows = new Map<string, Window>();
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

  /**
   * Row ids of the newest records of `key` whose fingerprint passes `close`, newest first, at most
   * `limit`; `load` reads the window (newest first) when it is not held.
   */
  closest(key: string, close: (fingerprint: string) => boolean, limit: number, load: () => { seq: number; fingerprint: string | null }[]): number[] {
    let window = this.windows.get(key);
    if (!window) {
      const rows = load().reverse();
      window = { seqs: rows.map((row) => row.seq), fingerprints: rows.map((row) => row.fingerprint) };
      this.windows.set(key, window);
      this.entries += rows.length;
      this.evict();
    }
    const found: number[] = [];
    for (let i = window.seqs.length - 1; i >= 0 && found.length < limit; i--) {
      const fingerprint = window.fingerprints[i];
      if (fingerprint !== null && close(fingerprint)) found.push(window.seqs[i]);
    }
    return found;
  }

  /** A new primary record (the newest of its title), if its title's window is held. */
  added(key: string, seq: number, fingerprint: string | null): void {
    const window = this.windows.get(key);
    if (!window) return;
    window.seqs.push(seq);
    window.fingerprints.push(fingerprint);
    if (window.seqs.length > this.size) {
      window.seqs.shift();
      window.fingerprints.shift();
    } else {
      this.entries++;
      this.evict();
    }
  }

  private evict(): void {
    for (const [key, window] of this.windows) {
      if (this.entries <= this.maxEntries) break;
      this.windows.delete(key);
      this.entries -= window.seqs.length;
    }
  }
}

import { isGap, type DecodedPiece, type StreamGap } from './gzip-members.ts';

// Pull-style reading over decoded chunks for the WARC record parser. A gap in the source stops
// every read until the parser takes it: the bytes buffered before it belong to a damaged record.

const EMPTY = new Uint8Array(0);

export class ByteReader {
  #source: AsyncIterator<DecodedPiece>;
  #buffer: Uint8Array = EMPTY;
  #gap: StreamGap | null = null;
  #eof = false;

  constructor(source: AsyncIterable<DecodedPiece>) {
    this.#source = source[Symbol.asyncIterator]();
  }

  get available(): number {
    return this.#buffer.length;
  }

  /** The reason of a gap that stopped reading, if one did. */
  get gap(): string | null {
    return this.#gap?.gap ?? null;
  }

  /** The gap's damaged member had already delivered bytes, so the last bytes read are suspect. */
  get gapIsPartial(): boolean {
    return this.#gap?.partial ?? false;
  }

  /** The source is exhausted (bytes may still be buffered). */
  get ended(): boolean {
    return this.#eof;
  }

  /** Clears a pending gap and drops what was buffered before it; returns its reason. */
  takeGap(): string {
    const reason = this.#gap?.gap ?? 'damaged data';
    this.#gap = null;
    this.#buffer = EMPTY;
    return reason;
  }

  /** True when n bytes are buffered; false at the end of the data or at a gap. */
  async need(n: number): Promise<boolean> {
    while (this.#buffer.length < n) {
      const chunk = await this.#pull();
      if (!chunk) return false;
      this.#buffer = this.#buffer.length ? Buffer.concat([this.#buffer, chunk]) : chunk;
    }
    return true;
  }

  peek(n: number = this.#buffer.length): Uint8Array {
    return this.#buffer.subarray(0, n);
  }

  skip(n: number): void {
    this.#buffer = this.#buffer.subarray(n);
  }

  unread(bytes: Uint8Array): void {
    this.#buffer = this.#buffer.length ? Buffer.concat([bytes, this.#buffer]) : bytes;
  }

  /** Exactly n bytes in a fresh array, or null at the end or a gap (nothing consumed then). */
  async read(n: number): Promise<Uint8Array | null> {
    const parts: Uint8Array[] = [this.#buffer];
    let have = this.#buffer.length;
    while (have < n) {
      const chunk = await this.#pull();
      if (!chunk) {
        this.#buffer = Buffer.concat(parts);
        return null;
      }
      parts.push(chunk);
      have += chunk.length;
    }
    // One copy for the whole record: joining chunk by chunk would be quadratic for large records.
    const joined = Buffer.concat(parts, have);
    const result = Uint8Array.prototype.slice.call(joined, 0, n);
    this.#buffer = joined.subarray(n);
    return result;
  }

  /** Passes over n bytes without keeping them; false at the end or a gap. */
  async discard(n: number): Promise<boolean> {
    let left = n;
    for (;;) {
      const take = Math.min(left, this.#buffer.length);
      this.skip(take);
      left -= take;
      if (left === 0) return true;
      const chunk = await this.#pull();
      if (!chunk) return false;
      this.#buffer = chunk;
    }
  }

  async #pull(): Promise<Uint8Array | null> {
    if (this.#gap !== null || this.#eof) return null;
    const next = await this.#source.next();
    if (next.done) {
      this.#eof = true;
      return null;
    }
    if (isGap(next.value)) {
      this.#gap = next.value;
      return null;
    }
    return next.value;
  }

  async close(): Promise<void> {
    await this.#source.return?.();
  }
}

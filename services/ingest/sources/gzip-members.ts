import { open, type FileHandle } from 'node:fs/promises';
import zlib from 'node:zlib';

// A .warc.gz is a series of gzip members, usually one per record. Each member is inflated on its
// own (native zlib) so that its exact end is known: a damaged member becomes one gap and decoding
// resumes at the next member header instead of losing the rest of the archive.

/** Bytes were lost here; partial says that bytes of the damaged member were already delivered. */
export interface StreamGap {
  gap: string;
  partial: boolean;
}

export type DecodedPiece = Uint8Array | StreamGap;

const READ_SIZE = 64 * 1024;
const MAX_GZIP_HEADER = 64 * 1024;
const FLAG = { HCRC: 2, EXTRA: 4, NAME: 8, COMMENT: 16 } as const;

export function isGap(piece: DecodedPiece): piece is StreamGap {
  return 'gap' in piece;
}

/** The decoded bytes of a file, gzip (any number of members) or plain, with gaps where data was damaged. */
export async function* readDecodedBytes(file: string): AsyncGenerator<DecodedPiece> {
  const raw = await RawFile.open(file);
  try {
    await raw.need(2);
    const head = raw.peek(2);
    if (head[0] === 0x1f && head[1] === 0x8b) yield* readMembers(raw);
    else for (let chunk = await raw.next(); chunk; chunk = await raw.next()) yield chunk;
  } finally {
    await raw.close();
  }
}

async function* readMembers(raw: RawFile): AsyncGenerator<DecodedPiece> {
  // After damage, later failures belong to the same damaged region: report one gap for it.
  let resyncing = false;
  const fail = function* (reason: string, partial: boolean): Generator<StreamGap> {
    if (!resyncing) yield { gap: reason, partial };
    resyncing = true;
  };
  for (;;) {
    const { found, junk } = await skipToMemberHeader(raw);
    if (junk) yield* fail(`unexpected bytes between gzip members before offset ${raw.offset}`, false);
    if (!found) return;
    const start = raw.offset;
    const headerProblem = await readGzipHeader(raw);
    const { problem, partial } = headerProblem ? { problem: headerProblem, partial: false } : yield* inflateMember(raw);
    if (problem) {
      yield* fail(`damaged gzip member at offset ${start}: ${problem}`, partial);
      raw.seekTo(start + 1);
      continue;
    }
    resyncing = false;
  }
}

/** Moves to the next member header; zero padding is harmless, other bytes on the way are junk. */
async function skipToMemberHeader(raw: RawFile): Promise<{ found: boolean; junk: boolean }> {
  let junk = false;
  for (;;) {
    const complete = await raw.need(3);
    const window = raw.peek(raw.available);
    const at = complete ? indexOfMagic(window) : -1;
    const passed = at !== -1 ? at : complete ? window.length - 2 : window.length;
    if (window.subarray(0, passed).some((byte) => byte !== 0)) junk = true;
    raw.skip(passed);
    if (at !== -1) return { found: true, junk };
    if (!complete) return { found: false, junk };
  }
}

function indexOfMagic(bytes: Uint8Array): number {
  for (let i = bytes.indexOf(0x1f); i !== -1 && i + 2 < bytes.length; i = bytes.indexOf(0x1f, i + 1)) {
    if (bytes[i + 1] === 0x8b && bytes[i + 2] === 0x08) return i;
  }
  return -1;
}

/** RFC 1952 section 2.3; returns a problem or null with the reader just after the header. */
async function readGzipHeader(raw: RawFile): Promise<string | null> {
  if (!(await raw.need(10))) return 'truncated gzip header';
  const flags = raw.peek(10)[3];
  if (flags & 0xe0) return 'invalid gzip header flags';
  let length = 10;
  if (flags & FLAG.EXTRA) {
    if (!(await raw.need(length + 2))) return 'truncated gzip header';
    const extra = raw.peek(length + 2);
    length += 2 + (extra[length] | (extra[length + 1] << 8));
  }
  for (const flag of [FLAG.NAME, FLAG.COMMENT]) {
    if (!(flags & flag)) continue;
    for (;;) {
      if (length >= MAX_GZIP_HEADER) return 'gzip header too long';
      if (!(await raw.need(length + 1))) return 'truncated gzip header';
      if (raw.peek(length + 1)[length++] === 0) break;
    }
  }
  if (flags & FLAG.HCRC) length += 2;
  if (!(await raw.need(length))) return 'truncated gzip header';
  raw.skip(length);
  return null;
}

interface MemberEnd {
  /** Why the member is damaged or truncated; null when it is whole. */
  problem: string | null;
  /** Some of its bytes were yielded before the problem showed. */
  partial: boolean;
}

/** Yields one member's inflated bytes, then says whether the member was whole. */
async function* inflateMember(raw: RawFile): AsyncGenerator<Uint8Array, MemberEnd> {
  const inflater = zlib.createInflateRaw();
  const state = { output: [] as Buffer[], failure: null as Error | null, ended: false, wake: () => {} };
  inflater.on('data', (chunk: Buffer) => state.output.push(chunk));
  inflater.on('error', (error) => { state.failure = error; state.wake(); });
  inflater.on('end', () => { state.ended = true; state.wake(); });
  const settled = () => new Promise<void>((resolve) => {
    state.wake = resolve;
    if (state.ended || state.failure) resolve();
  });
  const write = (chunk: Uint8Array) => new Promise<void>((resolve) => {
    state.wake = resolve;
    inflater.write(chunk, () => resolve());
  });
  let crc = 0;
  let size = 0;
  const result = (problem: string | null): MemberEnd => ({ problem, partial: size > 0 });
  const drain = function* () {
    for (const chunk of state.output.splice(0)) {
      crc = zlib.crc32(chunk, crc);
      size += chunk.length;
      yield chunk;
    }
  };
  try {
    let fed = 0;
    for (;;) {
      const chunk = await raw.next();
      if (!chunk) {
        const done = settled();
        inflater.end();
        await done;
        yield* drain();
        if (state.failure || !state.ended) return result('truncated');
        break;
      }
      fed += chunk.length;
      await write(chunk);
      yield* drain();
      if (state.failure) return result(state.failure.message);
      // The inflater stops taking input at the end of the deflate stream: the rest is the trailer.
      const unused = fed - inflater.bytesWritten;
      if (unused > 0) {
        raw.unread(chunk.subarray(chunk.length - unused));
        await settled();
        yield* drain();
        break;
      }
    }
    if (!(await raw.need(8))) return result('truncated gzip trailer');
    const trailer = Buffer.from(raw.peek(8));
    raw.skip(8);
    if (trailer.readUInt32LE(0) !== crc >>> 0) return result('CRC mismatch');
    if (trailer.readUInt32LE(4) !== size % 2 ** 32) return result('length mismatch');
    return result(null);
  } finally {
    inflater.destroy();
  }
}

/** A file read in chunks with a small look-ahead buffer; offset counts consumed bytes. */
class RawFile {
  #handle: FileHandle;
  #position = 0;
  #buffer: Uint8Array = new Uint8Array(0);
  #eof = false;
  offset = 0;

  private constructor(handle: FileHandle) {
    this.#handle = handle;
  }

  static async open(file: string): Promise<RawFile> {
    return new RawFile(await open(file, 'r'));
  }

  get available(): number {
    return this.#buffer.length;
  }

  peek(n: number): Uint8Array {
    return this.#buffer.subarray(0, n);
  }

  skip(n: number): void {
    this.#buffer = this.#buffer.subarray(n);
    this.offset += n;
  }

  unread(bytes: Uint8Array): void {
    this.#buffer = this.#buffer.length ? Buffer.concat([bytes, this.#buffer]) : bytes;
    this.offset -= bytes.length;
  }

  seekTo(offset: number): void {
    this.#buffer = new Uint8Array(0);
    this.#position = offset;
    this.offset = offset;
    this.#eof = false;
  }

  /** True when n bytes are buffered, false at the end of the file. */
  async need(n: number): Promise<boolean> {
    while (this.#buffer.length < n) {
      const chunk = await this.#read();
      if (!chunk) return false;
      this.#buffer = this.#buffer.length ? Buffer.concat([this.#buffer, chunk]) : chunk;
    }
    return true;
  }

  /** The buffered bytes, or the next chunk of the file; null at the end. */
  async next(): Promise<Uint8Array | null> {
    if (this.#buffer.length) {
      const chunk = this.#buffer;
      this.skip(chunk.length);
      return chunk;
    }
    const chunk = await this.#read();
    if (chunk) this.offset += chunk.length;
    return chunk;
  }

  async #read(): Promise<Uint8Array | null> {
    if (this.#eof) return null;
    const buffer = Buffer.allocUnsafe(READ_SIZE);
    const { bytesRead } = await this.#handle.read(buffer, 0, READ_SIZE, this.#position);
    if (bytesRead === 0) {
      this.#eof = true;
      return null;
    }
    this.#position += bytesRead;
    return buffer.subarray(0, bytesRead);
  }

  async close(): Promise<void> {
    await this.#handle.close();
  }
}

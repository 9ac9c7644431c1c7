// A zip reader for untrusted DOCX/ODT files. The central directory's declared sizes can lie (zip bombs),
// so every entry is inflated with a hard output cap: node:zlib's `maxOutputLength` stops the native
// inflater as soon as the cap is passed, before the memory is spent. That is both faster than a JS
// inflater and exact, which is why it is used here instead of fflate's streaming Inflate.
import { inflateRawSync } from 'node:zlib';
import { ExtractionError } from './errors.ts';

export interface ZipLimits {
  /** Largest inflated size of one entry. */
  maxEntryBytes: number;
  /** Largest inflated size of all entries read from one archive together. */
  maxTotalBytes: number;
  /** Most entries a central directory may list. */
  maxEntries: number;
}

export const DEFAULT_ZIP_LIMITS: ZipLimits = {
  maxEntryBytes: 64 * 1024 * 1024,
  maxTotalBytes: 128 * 1024 * 1024,
  maxEntries: 10_000,
};

export interface ZipEntry {
  name: string;
  method: number;
  flags: number;
  compressedSize: number;
  /** As declared by the central directory; never trusted for allocation. */
  declaredSize: number;
  localHeaderOffset: number;
}

const SIG_EOCD = 0x06054b50;
const SIG_EOCD64_LOCATOR = 0x07064b50;
const SIG_EOCD64 = 0x06064b50;
const SIG_CENTRAL = 0x02014b50;
const SIG_LOCAL = 0x04034b50;
const METHOD_STORED = 0;
const METHOD_DEFLATE = 8;
const FLAG_ENCRYPTED = 0x1;

function corrupt(detail: string): ExtractionError {
  return new ExtractionError('CORRUPT_FILE', `zip: ${detail}`);
}

function view(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function findEndOfCentralDirectory(bytes: Uint8Array, dv: DataView): number {
  // The comment after the record is at most 65535 bytes long.
  const lowest = Math.max(0, bytes.length - 22 - 0xffff);
  for (let at = bytes.length - 22; at >= lowest; at--) {
    if (dv.getUint32(at, true) === SIG_EOCD) return at;
  }
  throw corrupt('no end of central directory record (cut off or not a zip)');
}

function readUint64(dv: DataView, at: number): number {
  const value = dv.getBigUint64(at, true);
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw corrupt('64-bit size out of range');
  return Number(value);
}

/** Lists the entries of the central directory; throws CORRUPT_FILE for anything that does not add up. */
export function listZipEntries(bytes: Uint8Array, limits: ZipLimits = DEFAULT_ZIP_LIMITS): ZipEntry[] {
  if (bytes.length < 22) throw corrupt('too short');
  const dv = view(bytes);
  const eocd = findEndOfCentralDirectory(bytes, dv);
  let count = dv.getUint16(eocd + 10, true);
  let cdSize = dv.getUint32(eocd + 12, true);
  let cdOffset = dv.getUint32(eocd + 16, true);
  if ((count === 0xffff || cdOffset === 0xffffffff || cdSize === 0xffffffff) && eocd >= 20 && dv.getUint32(eocd - 20, true) === SIG_EOCD64_LOCATOR) {
    const eocd64 = readUint64(dv, eocd - 20 + 8);
    if (eocd64 + 56 > bytes.length || dv.getUint32(eocd64, true) !== SIG_EOCD64) throw corrupt('bad zip64 record');
    count = readUint64(dv, eocd64 + 32);
    cdSize = readUint64(dv, eocd64 + 40);
    cdOffset = readUint64(dv, eocd64 + 48);
  }
  if (count > limits.maxEntries) throw new ExtractionError('DECOMPRESSION_LIMIT', `zip lists ${count} entries`);
  if (cdOffset + cdSize > bytes.length) throw corrupt('central directory outside the file');

  const decoder = new TextDecoder('utf-8');
  const entries: ZipEntry[] = [];
  let at = cdOffset;
  for (let i = 0; i < count; i++) {
    if (at + 46 > bytes.length || dv.getUint32(at, true) !== SIG_CENTRAL) throw corrupt(`bad central directory entry ${i}`);
    const flags = dv.getUint16(at + 8, true);
    const method = dv.getUint16(at + 10, true);
    let compressedSize = dv.getUint32(at + 20, true);
    let declaredSize = dv.getUint32(at + 24, true);
    const nameLength = dv.getUint16(at + 28, true);
    const extraLength = dv.getUint16(at + 30, true);
    const commentLength = dv.getUint16(at + 32, true);
    let localHeaderOffset = dv.getUint32(at + 42, true);
    const nameStart = at + 46;
    const extraStart = nameStart + nameLength;
    if (extraStart + extraLength + commentLength > bytes.length) throw corrupt(`entry ${i} runs past the end`);
    const name = decoder.decode(bytes.subarray(nameStart, extraStart));
    // ZIP64: the real values sit in extra field 0x0001, in this order, only for the fields set to 0xffffffff.
    for (let x = extraStart; x + 4 <= extraStart + extraLength; ) {
      const id = dv.getUint16(x, true);
      const size = dv.getUint16(x + 2, true);
      if (id === 0x0001) {
        let p = x + 4;
        if (declaredSize === 0xffffffff && p + 8 <= x + 4 + size) { declaredSize = readUint64(dv, p); p += 8; }
        if (compressedSize === 0xffffffff && p + 8 <= x + 4 + size) { compressedSize = readUint64(dv, p); p += 8; }
        if (localHeaderOffset === 0xffffffff && p + 8 <= x + 4 + size) { localHeaderOffset = readUint64(dv, p); }
      }
      x += 4 + size;
    }
    entries.push({ name, method, flags, compressedSize, declaredSize, localHeaderOffset });
    at = extraStart + extraLength + commentLength;
  }
  return entries;
}

function dataRange(bytes: Uint8Array, dv: DataView, entry: ZipEntry): [number, number] {
  const at = entry.localHeaderOffset;
  if (at + 30 > bytes.length || dv.getUint32(at, true) !== SIG_LOCAL) throw corrupt(`bad local header for ${entry.name}`);
  const start = at + 30 + dv.getUint16(at + 26, true) + dv.getUint16(at + 28, true);
  const end = start + entry.compressedSize;
  if (end > bytes.length) throw corrupt(`${entry.name} is cut off`);
  return [start, end];
}

/** Reads one archive's entries under a shared budget, so many medium entries cannot add up to a bomb either. */
export class GuardedZip {
  readonly entries: ZipEntry[];
  private readonly bytes: Uint8Array;
  private readonly dv: DataView;
  private readonly limits: ZipLimits;
  private readonly byName: Map<string, ZipEntry>;
  private inflatedTotal = 0;

  constructor(bytes: Uint8Array, limits: ZipLimits = DEFAULT_ZIP_LIMITS) {
    this.bytes = bytes;
    this.dv = view(bytes);
    this.limits = limits;
    this.entries = listZipEntries(bytes, limits);
    this.byName = new Map(this.entries.map((e) => [e.name, e]));
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  /** The inflated bytes of an entry, or null when the archive has no such entry. */
  read(name: string, maxBytes = this.limits.maxEntryBytes): Uint8Array | null {
    const entry = this.byName.get(name);
    if (!entry) return null;
    if (entry.flags & FLAG_ENCRYPTED) throw new ExtractionError('ENCRYPTED', `zip entry ${name} is encrypted`);
    const cap = Math.min(maxBytes, this.limits.maxEntryBytes, this.limits.maxTotalBytes - this.inflatedTotal);
    const [start, end] = dataRange(this.bytes, this.dv, entry);
    const raw = this.bytes.subarray(start, end);
    let out: Uint8Array;
    if (entry.method === METHOD_STORED) {
      if (raw.length > cap) throw this.limitError(name, cap);
      out = raw;
    } else if (entry.method === METHOD_DEFLATE) {
      try {
        out = inflateRawSync(raw, { maxOutputLength: Math.max(1, cap) });
      } catch (error) {
        if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw this.limitError(name, cap);
        throw new ExtractionError('CORRUPT_FILE', `zip entry ${name} does not inflate`, { cause: error });
      }
    } else {
      throw corrupt(`entry ${name} uses compression method ${entry.method}`);
    }
    this.inflatedTotal += out.length;
    return out;
  }

  readText(name: string, maxBytes?: number): string | null {
    const data = this.read(name, maxBytes);
    return data === null ? null : new TextDecoder('utf-8').decode(data);
  }

  private limitError(name: string, cap: number): ExtractionError {
    return new ExtractionError('DECOMPRESSION_LIMIT', `${name} inflates beyond ${Math.round(cap / 1024 / 1024)} MiB`);
  }
}

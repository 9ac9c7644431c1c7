// A small reader for OLE compound files (MS-CFB), the container of legacy .doc files. word-extractor
// reads the text but exposes neither the stream list (needed to tell a Word file from other OLE files
// and to spot encrypted Office files) nor the SummaryInformation stream (title and dates).
// Every chain walk is bounded, because the file is untrusted.
import { ExtractionError } from './errors.ts';

export const CFB_SIGNATURE = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

const END_OF_CHAIN = 0xfffffffe;
const FREE_SECTOR = 0xffffffff;
const MAX_REGULAR_SECTOR = 0xfffffffa;

export function hasCfbSignature(bytes: Uint8Array): boolean {
  return bytes.length >= 512 && CFB_SIGNATURE.every((b, i) => bytes[i] === b);
}

interface DirectoryEntry {
  name: string;
  type: number;
  start: number;
  size: number;
}

function corrupt(detail: string): ExtractionError {
  return new ExtractionError('CORRUPT_FILE', `OLE container: ${detail}`);
}

export class CompoundFile {
  private readonly bytes: Uint8Array;
  private readonly dv: DataView;
  private readonly sectorSize: number;
  private readonly miniSectorSize: number;
  private readonly miniCutoff: number;
  private readonly fat: Uint32Array;
  private readonly entries: DirectoryEntry[];
  private miniFat: Uint32Array | null = null;
  private miniStream: Uint8Array | null = null;
  private readonly firstMiniFatSector: number;

  constructor(bytes: Uint8Array) {
    if (!hasCfbSignature(bytes)) throw corrupt('bad signature');
    this.bytes = bytes;
    this.dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const sectorShift = this.dv.getUint16(0x1e, true);
    const miniShift = this.dv.getUint16(0x20, true);
    if (sectorShift !== 9 && sectorShift !== 12) throw corrupt(`sector shift ${sectorShift}`);
    if (miniShift !== 6) throw corrupt(`mini sector shift ${miniShift}`);
    this.sectorSize = 1 << sectorShift;
    this.miniSectorSize = 1 << miniShift;
    this.miniCutoff = this.dv.getUint32(0x38, true);
    this.firstMiniFatSector = this.dv.getUint32(0x3c, true);
    this.fat = this.readFat();
    this.entries = this.readDirectory(this.dv.getUint32(0x30, true));
  }

  /** Names of all streams (any storage level); enough for the checks done here. */
  streamNames(): string[] {
    return this.entries.filter((e) => e.type === 2).map((e) => e.name);
  }

  hasStream(name: string): boolean {
    return this.entries.some((e) => e.type === 2 && e.name === name);
  }

  /** The bytes of the first stream of that name, or null. */
  readStream(name: string): Uint8Array | null {
    const entry = this.entries.find((e) => e.type === 2 && e.name === name);
    if (!entry) return null;
    if (entry.size < this.miniCutoff) return this.readMini(entry.start, entry.size);
    return this.readChain(entry.start, entry.size);
  }

  private sectorOffset(sector: number): number {
    const offset = (sector + 1) * this.sectorSize;
    if (sector > MAX_REGULAR_SECTOR || offset + this.sectorSize > this.bytes.length) throw corrupt(`sector ${sector} outside the file`);
    return offset;
  }

  private readFat(): Uint32Array {
    const fatSectorCount = this.dv.getUint32(0x2c, true);
    const maxSectors = Math.floor(this.bytes.length / this.sectorSize);
    if (fatSectorCount > maxSectors) throw corrupt('FAT larger than the file');
    const fatSectors: number[] = [];
    for (let i = 0; i < 109 && fatSectors.length < fatSectorCount; i++) fatSectors.push(this.dv.getUint32(0x4c + i * 4, true));
    let difat = this.dv.getUint32(0x44, true);
    const perDifat = this.sectorSize / 4 - 1;
    for (let guard = 0; fatSectors.length < fatSectorCount && difat !== END_OF_CHAIN && difat !== FREE_SECTOR; guard++) {
      if (guard > maxSectors) throw corrupt('DIFAT loop');
      const at = this.sectorOffset(difat);
      for (let i = 0; i < perDifat && fatSectors.length < fatSectorCount; i++) fatSectors.push(this.dv.getUint32(at + i * 4, true));
      difat = this.dv.getUint32(at + perDifat * 4, true);
    }
    const perSector = this.sectorSize / 4;
    const fat = new Uint32Array(fatSectors.length * perSector);
    fatSectors.forEach((sector, i) => {
      const at = this.sectorOffset(sector);
      for (let j = 0; j < perSector; j++) fat[i * perSector + j] = this.dv.getUint32(at + j * 4, true);
    });
    return fat;
  }

  private chain(start: number, table: Uint32Array): number[] {
    const sectors: number[] = [];
    for (let s = start; s !== END_OF_CHAIN; s = table[s]) {
      if (s >= table.length || sectors.length > table.length) throw corrupt('broken sector chain');
      sectors.push(s);
    }
    return sectors;
  }

  private readChain(start: number, size: number): Uint8Array {
    const sectors = this.chain(start, this.fat);
    if (sectors.length * this.sectorSize < size) throw corrupt('stream shorter than declared');
    const out = new Uint8Array(size);
    let written = 0;
    for (const s of sectors) {
      if (written >= size) break;
      const at = this.sectorOffset(s);
      const n = Math.min(this.sectorSize, size - written);
      out.set(this.bytes.subarray(at, at + n), written);
      written += n;
    }
    return out;
  }

  private readMini(start: number, size: number): Uint8Array {
    if (!this.miniFat || !this.miniStream) {
      const root = this.entries[0];
      if (!root || root.type !== 5) throw corrupt('no root entry');
      this.miniStream = this.readChain(root.start, root.size);
      const miniFatSectors = this.firstMiniFatSector === END_OF_CHAIN ? [] : this.chain(this.firstMiniFatSector, this.fat);
      const raw = new Uint8Array(miniFatSectors.length * this.sectorSize);
      miniFatSectors.forEach((s, i) => raw.set(this.bytes.subarray(this.sectorOffset(s), this.sectorOffset(s) + this.sectorSize), i * this.sectorSize));
      this.miniFat = new Uint32Array(raw.buffer, 0, raw.length / 4);
    }
    const sectors = this.chain(start, this.miniFat);
    const out = new Uint8Array(size);
    let written = 0;
    for (const s of sectors) {
      if (written >= size) break;
      const at = s * this.miniSectorSize;
      const n = Math.min(this.miniSectorSize, size - written);
      if (at + n > this.miniStream.length) throw corrupt('mini sector outside the mini stream');
      out.set(this.miniStream.subarray(at, at + n), written);
      written += n;
    }
    if (written < size) throw corrupt('mini stream shorter than declared');
    return out;
  }

  private readDirectory(start: number): DirectoryEntry[] {
    const sectors = this.chain(start, this.fat);
    const entries: DirectoryEntry[] = [];
    for (const s of sectors) {
      const at = this.sectorOffset(s);
      for (let off = at; off + 128 <= at + this.sectorSize; off += 128) {
        const nameLength = Math.min(64, this.dv.getUint16(off + 0x40, true));
        let name = '';
        for (let i = 0; i + 2 <= nameLength - 2; i += 2) name += String.fromCharCode(this.dv.getUint16(off + i, true));
        const type = this.bytes[off + 0x42];
        const startSector = this.dv.getUint32(off + 0x74, true);
        const size = this.dv.getUint32(off + 0x78, true);
        entries.push({ name, type, start: startSector, size });
      }
    }
    return entries;
  }
}

export interface SummaryInformation {
  title?: string;
  subject?: string;
  author?: string;
  keywords?: string;
  created?: Date;
  lastSaved?: Date;
  pageCount?: number;
}

const PID_CODEPAGE = 1;
const PID_TITLE = 2;
const PID_SUBJECT = 3;
const PID_AUTHOR = 4;
const PID_KEYWORDS = 5;
const PID_CREATE_DTM = 12;
const PID_LASTSAVE_DTM = 13;
const PID_PAGECOUNT = 14;
const VT_I2 = 2;
const VT_I4 = 3;
const VT_LPSTR = 0x1e;
const VT_LPWSTR = 0x1f;
const VT_FILETIME = 0x40;
// 100-ns ticks between 1601-01-01 and 1970-01-01.
const FILETIME_EPOCH_OFFSET = 116444736000000000n;

function decoderForCodepage(codepage: number | undefined): InstanceType<typeof TextDecoder> {
  const label = codepage === 65001 ? 'utf-8' : codepage === 1200 ? 'utf-16le' : codepage ? `windows-${codepage}` : 'windows-1252';
  try {
    return new TextDecoder(label);
  } catch {
    return new TextDecoder('windows-1252');
  }
}

/** Parses the "\u0005SummaryInformation" property set stream; unknown or damaged properties are skipped. */
export function parseSummaryInformation(stream: Uint8Array): SummaryInformation {
  const dv = new DataView(stream.buffer, stream.byteOffset, stream.byteLength);
  if (stream.length < 48 || dv.getUint16(0, true) !== 0xfffe) return {};
  const section = dv.getUint32(44, true);
  if (section + 8 > stream.length) return {};
  const count = Math.min(dv.getUint32(section + 4, true), 1000);
  const raw = new Map<number, { type: number; at: number }>();
  for (let i = 0; i < count; i++) {
    const p = section + 8 + i * 8;
    if (p + 8 > stream.length) break;
    const at = section + dv.getUint32(p + 4, true);
    if (at + 4 > stream.length) continue;
    raw.set(dv.getUint32(p, true), { type: dv.getUint32(at, true), at: at + 4 });
  }
  const codepageProp = raw.get(PID_CODEPAGE);
  const codepage = codepageProp && codepageProp.type === VT_I2 ? dv.getUint16(codepageProp.at, true) : undefined;
  const decoder = decoderForCodepage(codepage);
  const readString = (pid: number): string | undefined => {
    const prop = raw.get(pid);
    if (!prop || prop.at + 4 > stream.length) return undefined;
    const length = dv.getUint32(prop.at, true);
    if (prop.type === VT_LPSTR) {
      if (prop.at + 4 + length > stream.length) return undefined;
      return decoder.decode(stream.subarray(prop.at + 4, prop.at + 4 + length)).replace(/\0+$/, '').trim() || undefined;
    }
    if (prop.type === VT_LPWSTR) {
      if (prop.at + 4 + length * 2 > stream.length) return undefined;
      return new TextDecoder('utf-16le').decode(stream.subarray(prop.at + 4, prop.at + 4 + length * 2)).replace(/\0+$/, '').trim() || undefined;
    }
    return undefined;
  };
  const readTime = (pid: number): Date | undefined => {
    const prop = raw.get(pid);
    if (!prop || prop.type !== VT_FILETIME || prop.at + 8 > stream.length) return undefined;
    const ticks = dv.getBigUint64(prop.at, true);
    const date = new Date(Number((ticks - FILETIME_EPOCH_OFFSET) / 10000n));
    // A zero FILETIME means "not set" (it reads as 1601); law texts reach back to the 1870s.
    if (Number.isNaN(date.getTime()) || date.getUTCFullYear() < 1800) return undefined;
    return date;
  };
  const pages = raw.get(PID_PAGECOUNT);
  return {
    title: readString(PID_TITLE),
    subject: readString(PID_SUBJECT),
    author: readString(PID_AUTHOR),
    keywords: readString(PID_KEYWORDS),
    created: readTime(PID_CREATE_DTM),
    lastSaved: readTime(PID_LASTSAVE_DTM),
    pageCount: pages && pages.type === VT_I4 ? dv.getInt32(pages.at, true) : undefined,
  };
}

import { ByteReader } from './byte-reader.ts';
import { parseHeaderLines } from './http-message.ts';
import { digestMatches } from './warc-digest.ts';
import type { DecodedPiece } from './gzip-members.ts';

// WARC record framing (WARC 1.0 and 1.1, section 4): a version line, named fields, an empty line,
// Content-Length bytes of block, then CRLF CRLF. A record that does not frame cleanly is reported
// and reading goes on at the next line that starts with "WARC/".

export type WarcRecordItem =
  | {
      kind: 'record';
      version: string;
      /** Lower-case field names. */
      fields: Record<string, string>;
      /** Null when the caller did not want the block or it was larger than allowed. */
      block: Uint8Array | null;
      blockLength: number;
    }
  | { kind: 'damaged'; url?: string; reason: string };

export interface ReadRecordsOptions {
  /** Whether to keep the block of a record with these fields; others are passed over unread. */
  keep: (fields: Record<string, string>) => boolean;
  maxBlockBytes: number;
}

const MAX_HEADER_BYTES = 64 * 1024;
const VERSION_LINE = /^WARC\/(\d+\.\d+)$/;
const WARC_MARK = Buffer.from('WARC/');

export async function* readWarcRecords(source: AsyncIterable<DecodedPiece>, options: ReadRecordsOptions): AsyncGenerator<WarcRecordItem> {
  const reader = new ByteReader(source);
  // After damage the next record is searched for silently: the damage was reported once.
  let resyncing = false;
  let seenRecord = false;
  const damaged = (reason: string, url?: string): WarcRecordItem => ({ kind: 'damaged', reason, ...(url ? { url } : {}) });
  try {
    for (;;) {
      const start = await seekRecordStart(reader);
      if (start.junk && !resyncing) yield damaged(seenRecord ? `unrecognised bytes between records` : 'not a WARC file: no record header at the start');
      if (start.status === 'gap') {
        yield damaged(reader.takeGap()!);
        resyncing = true;
        continue;
      }
      if (start.status === 'eof') {
        if (!seenRecord && !start.junk && !resyncing) yield damaged('empty file');
        return;
      }
      resyncing = false;
      seenRecord = true;

      const head = await readHead(reader);
      if (head.status !== 'ok') {
        yield damaged(head.status === 'gap' ? reader.takeGap()! : head.reason);
        if (head.status === 'eof') return;
        if (head.status === 'malformed') reader.skip(1); // do not find the same "WARC/" again
        resyncing = true;
        continue;
      }
      const { version, fields } = head;
      const url = targetUri(fields);
      const length = Number(fields['content-length']);
      if (!/^\d+$/.test(fields['content-length'] ?? '') || !Number.isSafeInteger(length)) {
        yield damaged('missing or invalid Content-Length', url);
        resyncing = true;
        continue;
      }

      const wanted = options.keep(fields) && length <= options.maxBlockBytes;
      const block = wanted ? await reader.read(length) : null;
      if (wanted ? block === null : !(await reader.discard(length))) {
        yield damaged(reader.gap !== null ? reader.takeGap()! : 'truncated record', url);
        if (reader.atEnd) return;
        resyncing = true;
        continue;
      }

      const end = await checkRecordEnd(reader);
      if (end === 'damaged-member') {
        yield damaged(reader.takeGap()!, url);
        resyncing = true;
        continue;
      }
      if (end === 'mismatch') {
        const declared = fields['warc-block-digest'];
        if (!block || !declared || digestMatches(declared, block) !== true) {
          // The length was wrong: look for the next record inside what was taken as the block.
          if (block) reader.unread(block);
          yield damaged('record length does not match its Content-Length', url);
          resyncing = true;
          continue;
        }
      }
      yield { kind: 'record', version, fields, block, blockLength: length };
    }
  } finally {
    await reader.close();
  }
}

export function targetUri(fields: Record<string, string>): string | undefined {
  // WARC 1.0 wrote the URI in angle brackets in its grammar; some writers kept them.
  return fields['warc-target-uri']?.trim().replace(/^<(.*)>$/, '$1') || undefined;
}

/** Skips the blank lines between records; anything else up to the next "WARC/" line is junk. */
async function seekRecordStart(reader: ByteReader): Promise<{ status: 'found' | 'eof' | 'gap'; junk: boolean }> {
  let junk = false;
  for (;;) {
    const more = await reader.need(WARC_MARK.length);
    const window = reader.peek();
    let at = 0;
    while (at < window.length && (window[at] === 0x0d || window[at] === 0x0a)) at++;
    if (at + WARC_MARK.length <= window.length && startsWithMark(window, at)) {
      reader.skip(at);
      return { status: 'found', junk };
    }
    if (!more && window.length - at < WARC_MARK.length && !startsWithMarkPrefix(window, at)) {
      if (at < window.length) junk = true;
      reader.skip(window.length);
      return { status: reader.gap !== null ? 'gap' : 'eof', junk };
    }
    if (!more) {
      // A partial "WARC/" at the end of the data or before a gap.
      junk = true;
      reader.skip(window.length);
      return { status: reader.gap !== null ? 'gap' : 'eof', junk };
    }
    const next = findLineStartMark(window, at);
    junk = true;
    reader.skip(next === -1 ? window.length - (WARC_MARK.length - 1) : next);
    if (next !== -1) return { status: 'found', junk };
  }
}

function startsWithMark(bytes: Uint8Array, at: number): boolean {
  for (let i = 0; i < WARC_MARK.length; i++) if (bytes[at + i] !== WARC_MARK[i]) return false;
  return true;
}

function startsWithMarkPrefix(bytes: Uint8Array, at: number): boolean {
  if (at >= bytes.length) return false;
  for (let i = at; i < bytes.length; i++) if (bytes[i] !== WARC_MARK[i - at]) return false;
  return true;
}

function findLineStartMark(bytes: Uint8Array, from: number): number {
  for (let i = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).indexOf(WARC_MARK, from); i !== -1; ) {
    if (i === 0 || bytes[i - 1] === 0x0a) return i;
    i = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).indexOf(WARC_MARK, i + 1);
  }
  return -1;
}

type HeadResult =
  | { status: 'ok'; version: string; fields: Record<string, string> }
  | { status: 'gap' | 'eof' | 'malformed'; reason: string };

async function readHead(reader: ByteReader): Promise<HeadResult> {
  let searched = 0;
  for (;;) {
    const window = reader.peek();
    const end = findEmptyLine(window, Math.max(0, searched - 3));
    if (end !== null) {
      const text = Buffer.from(window.buffer, window.byteOffset, end.headEnd).toString('utf8');
      const lines = text.split(/\r?\n/);
      const version = VERSION_LINE.exec(lines[0].trim());
      if (!version) return { status: 'malformed', reason: `invalid WARC version line ${JSON.stringify(lines[0].slice(0, 40))}` };
      reader.skip(end.bodyOffset);
      return { status: 'ok', version: version[1], fields: parseHeaderLines(lines.slice(1)) };
    }
    searched = window.length;
    if (window.length > MAX_HEADER_BYTES) return { status: 'malformed', reason: 'record header too long' };
    if (!(await reader.need(window.length + 1))) {
      if (reader.gap !== null) return { status: 'gap', reason: reader.gap };
      return { status: 'eof', reason: 'truncated record header' };
    }
  }
}

function findEmptyLine(bytes: Uint8Array, from: number): { headEnd: number; bodyOffset: number } | null {
  for (let i = bytes.indexOf(0x0a, from); i !== -1; i = bytes.indexOf(0x0a, i + 1)) {
    if (bytes[i + 1] === 0x0a) return { headEnd: i, bodyOffset: i + 2 };
    if (bytes[i + 1] === 0x0d && bytes[i + 2] === 0x0a) return { headEnd: i, bodyOffset: i + 3 };
  }
  return null;
}

/**
 * After the block come CRLF CRLF and the next record or the end. Lenient about the line breaks;
 * 'damaged-member' when the gzip member holding the record failed its check after the block was read.
 */
async function checkRecordEnd(reader: ByteReader): Promise<'ok' | 'mismatch' | 'damaged-member'> {
  for (;;) {
    const more = await reader.need(reader.available + 1);
    const window = reader.peek();
    let at = 0;
    while (at < window.length && (window[at] === 0x0d || window[at] === 0x0a)) at++;
    if (at < window.length) {
      if (window.length - at < WARC_MARK.length && more) continue;
      if (!startsWithMark(window, at) && !startsWithMarkPrefix(window, at)) return 'mismatch';
      reader.skip(at);
      return 'ok';
    }
    if (!more) {
      reader.skip(at);
      if (reader.gap !== null && reader.gapIsPartial) return 'damaged-member';
      return 'ok';
    }
  }
}

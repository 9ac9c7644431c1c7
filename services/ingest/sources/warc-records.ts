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
        yield damaged(reader.takeGap());
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
        yield damaged(head.status === 'gap' ? reader.takeGap() : head.reason);
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
        yield damaged(reader.gap !== null ? reader.takeGap() : 'truncated record', url);
        if (reader.ended) return;
        resyncing = true;
        continue;
      }

      const end = await checkRecordEnd(reader);
      if (end === 'damaged-member') {
        yield damaged(reader.takeGap(), url);
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

/** Skips the blank lines between records; other bytes passed over on the way to a "WARC/" line are junk. */
async function seekRecordStart(reader: ByteReader): Promise<{ status: 'found' | 'eof' | 'gap'; junk: boolean }> {
  let junk = false;
  for (;;) {
    const more = await reader.need(WARC_MARK.length);
    const window = reader.peek();
    const from = skipLineBreaks(window, 0);
    const mark = findMark(window, from);
    if (mark !== -1) {
      if (mark > from) junk = true;
      reader.skip(mark);
      return { status: 'found', junk };
    }
    if (!more) {
      if (from < window.length) junk = true;
      reader.skip(window.length);
      return { status: reader.gap !== null ? 'gap' : 'eof', junk };
    }
    // Keep a tail: a "WARC/" may be split across chunks.
    const passed = Math.max(from, window.length - (WARC_MARK.length - 1));
    if (passed > from) junk = true;
    reader.skip(passed);
  }
}

function skipLineBreaks(bytes: Uint8Array, from: number): number {
  let at = from;
  while (at < bytes.length && (bytes[at] === 0x0d || bytes[at] === 0x0a)) at++;
  return at;
}

/** "WARC/" at `from` or at the start of a later line. */
function findMark(bytes: Uint8Array, from: number): number {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  for (let i = buffer.indexOf(WARC_MARK, from); i !== -1; i = buffer.indexOf(WARC_MARK, i + 1)) {
    if (i === from || bytes[i - 1] === 0x0a) return i;
  }
  return -1;
}

function startsWithMarkPrefix(bytes: Uint8Array, at: number): boolean {
  for (let i = at; i < bytes.length && i - at < WARC_MARK.length; i++) if (bytes[i] !== WARC_MARK[i - at]) return false;
  return true;
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
 * After the block come CRLF CRLF and the next record or the end; lenient about the line breaks.
 * 'damaged-member' when the gzip member holding the end of the record failed its check.
 */
async function checkRecordEnd(reader: ByteReader): Promise<'ok' | 'mismatch' | 'damaged-member'> {
  for (;;) {
    const window = reader.peek();
    const at = skipLineBreaks(window, 0);
    if (!startsWithMarkPrefix(window, at)) return 'mismatch';
    if (window.length - at >= WARC_MARK.length) {
      reader.skip(at);
      return 'ok';
    }
    if (!(await reader.need(window.length + 1))) {
      // A gap right after the record's own bytes means its member failed (CRC); a gap after
      // bytes of the next record belongs to that one.
      if (reader.gap !== null && reader.gapIsPartial && at === window.length) return 'damaged-member';
      reader.skip(at);
      return 'ok';
    }
  }
}

import { readDecodedBytes } from './gzip-members.ts';
import { decodeHttpBody, HttpMessageError, parseHttpResponseHead } from './http-message.ts';
import type { FetchedResource, WarcSkip } from './resource.ts';
import { digestMatches } from './warc-digest.ts';
import { readWarcRecords, targetUri } from './warc-records.ts';

// Documents out of a web archive (.warc or .warc.gz, WARC 1.0 and 1.1), one record at a time.
// Records that carry no document (request, metadata, warcinfo, revisit, conversion, continuation)
// are passed over silently; everything else becomes a resource or a skip with a reason.

export interface ReadWarcOptions {
  /** Larger record blocks and decoded bodies are skipped; default 256 MiB. */
  maxRecordBytes?: number;
}

const DEFAULT_MAX_RECORD_BYTES = 256 * 1024 * 1024;
const CONTENT_RECORD_TYPES = new Set(['response', 'resource']);
/** Archivers' own bookkeeping, never documents (Heritrix DNS lookups, wget's metadata://). */
const SILENT_SCHEMES = new Set(['dns:', 'metadata:']);

export async function* readWarc(file: string, options: ReadWarcOptions = {}): AsyncGenerator<FetchedResource | WarcSkip> {
  const maxBytes = options.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES;
  const records = readWarcRecords(readDecodedBytes(file), {
    keep: (fields) => CONTENT_RECORD_TYPES.has(fields['warc-type']?.toLowerCase()),
    maxBlockBytes: maxBytes,
  });
  for await (const record of records) {
    if (record.kind === 'damaged') {
      yield record.url ? { url: record.url, reason: record.reason } : { reason: record.reason };
      continue;
    }
    const type = record.fields['warc-type']?.toLowerCase();
    if (!CONTENT_RECORD_TYPES.has(type)) continue;
    const result = toResource(type, record.fields, record.block, record.blockLength, maxBytes);
    if (result) yield result;
  }
}

function toResource(
  type: string,
  fields: Record<string, string>,
  block: Uint8Array | null,
  blockLength: number,
  maxBytes: number,
): FetchedResource | WarcSkip | null {
  const rawUrl = targetUri(fields);
  if (!rawUrl) return { reason: `${type} record without WARC-Target-URI` };
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return { url: rawUrl, reason: 'invalid WARC-Target-URI' };
  }
  if (SILENT_SCHEMES.has(url.protocol)) return null;
  const skip = (reason: string): WarcSkip => ({ url: rawUrl, reason });
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return skip(`unsupported URI scheme ${url.protocol}`);
  const fetchedAt = fields['warc-date']?.trim();
  if (!fetchedAt || Number.isNaN(Date.parse(fetchedAt))) return skip('missing or invalid WARC-Date');
  if (fields['warc-segment-number']) return skip('segmented record (continuation records are not supported)');
  if (fields['warc-truncated']) return skip(`record truncated by the archiver (${fields['warc-truncated']})`);
  if (!block) return skip(`record larger than ${maxBytes} bytes (${blockLength})`);
  const declared = fields['warc-block-digest'];
  if (declared && digestMatches(declared, block) === false) return skip('WARC-Block-Digest does not match the record');

  if (type === 'resource') {
    const contentType = fields['content-type'];
    return { url: rawUrl, bytes: block, headers: contentType ? { 'content-type': contentType } : {}, fetchedAt, status: 200 };
  }
  if (!/^application\/http\b/i.test(fields['content-type'] ?? 'application/http')) {
    return skip(`response record is not an HTTP message (${fields['content-type']})`);
  }
  try {
    const head = parseHttpResponseHead(block);
    if (head.status !== 200) return skip(`http status ${head.status}`);
    const body = decodeHttpBody(block.subarray(head.bodyOffset), head.headers, maxBytes);
    return { url: rawUrl, bytes: body.bytes, headers: body.headers, fetchedAt, status: head.status };
  } catch (error) {
    if (error instanceof HttpMessageError) return skip(error.message);
    throw error;
  }
}

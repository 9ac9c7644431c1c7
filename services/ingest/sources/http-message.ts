import zlib from 'node:zlib';

// HTTP/1.x messages as web archives store them: the head as received, the body possibly still
// chunked and compressed. Some archivers store the body decoded but keep the original headers,
// so every decoder first checks whether the bytes really are encoded.

export class HttpMessageError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'HttpMessageError';
  }
}

export interface HttpResponseHead {
  status: number;
  headers: Record<string, string>;
  /** Where the body starts in the parsed bytes. */
  bodyOffset: number;
}

const MAX_HEAD_BYTES = 64 * 1024;
const STATUS_LINE = /^HTTP\/\d(?:\.\d)?\s+(\d{3})(?:\s.*)?$/;

/** Headers a decoded body no longer matches. */
const ENCODING_HEADERS = ['content-encoding', 'transfer-encoding', 'content-length'];

export function parseHttpResponseHead(message: Uint8Array): HttpResponseHead {
  const end = findHeadEnd(message);
  if (end === null) throw new HttpMessageError('HTTP head not terminated by an empty line');
  const lines = Buffer.from(message.buffer, message.byteOffset, end.headEnd).toString('latin1').split(/\r?\n/);
  const match = STATUS_LINE.exec(lines[0].trim());
  if (!match) throw new HttpMessageError(`not an HTTP response status line: ${JSON.stringify(lines[0].slice(0, 80))}`);
  return { status: Number(match[1]), headers: parseHeaderLines(lines.slice(1)), bodyOffset: end.bodyOffset };
}

/** Lower-case names; repeated headers joined with ", " as fetch() does; folded lines unfolded. */
export function parseHeaderLines(lines: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  let last: string | null = null;
  for (const line of lines) {
    if (line === '') continue;
    if ((line[0] === ' ' || line[0] === '\t') && last) {
      headers[last] += ` ${line.trim()}`;
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
    last = name;
  }
  return headers;
}

function findHeadEnd(message: Uint8Array): { headEnd: number; bodyOffset: number } | null {
  const limit = Math.min(message.length, MAX_HEAD_BYTES);
  for (let i = 0; i < limit; i++) {
    if (message[i] !== 0x0a) continue;
    if (message[i + 1] === 0x0a) return { headEnd: i, bodyOffset: i + 2 };
    if (message[i + 1] === 0x0d && message[i + 2] === 0x0a) return { headEnd: i, bodyOffset: i + 3 };
  }
  return null;
}

/**
 * The body as the server meant it: chunked framing and content encodings removed, never more than
 * maxBytes (a decompression bomb fails instead of filling memory). Returns headers without the
 * encoding headers the decoded bytes no longer match.
 */
export function decodeHttpBody(
  body: Uint8Array,
  headers: Record<string, string>,
  maxBytes: number,
): { bytes: Uint8Array; headers: Record<string, string> } {
  let bytes = body;
  if (/\bchunked\b/i.test(headers['transfer-encoding'] ?? '')) bytes = decodeChunked(bytes);
  const encodings = (headers['content-encoding'] ?? '')
    .split(',')
    .map((value) => value.trim().toLowerCase())
    .filter((value) => value && value !== 'identity');
  for (const encoding of encodings.reverse()) bytes = decodeContent(bytes, encoding, maxBytes);
  if (bytes.length > maxBytes) throw new HttpMessageError(`body larger than ${maxBytes} bytes`);
  return { bytes, headers: withoutEncodingHeaders(headers) };
}

export function withoutEncodingHeaders(headers: Record<string, string>): Record<string, string> {
  const result = { ...headers };
  for (const name of ENCODING_HEADERS) delete result[name];
  return result;
}

const CHUNK_SIZE_LINE = /^([0-9a-fA-F]{1,16})[ \t]*(?:;[^\r\n]*)?\r?\n/;

/** RFC 9112 section 7.1; a body that does not start with a chunk-size line is taken as already de-chunked. */
function decodeChunked(body: Uint8Array): Uint8Array {
  const text = (at: number) => Buffer.from(body.buffer, body.byteOffset + at, Math.min(80, body.length - at)).toString('latin1');
  if (!CHUNK_SIZE_LINE.test(text(0))) return body;
  const parts: Uint8Array[] = [];
  let at = 0;
  for (;;) {
    const line = CHUNK_SIZE_LINE.exec(text(at));
    if (!line) throw new HttpMessageError(`malformed chunk size line at byte ${at}`);
    const size = Number.parseInt(line[1], 16);
    at += line[0].length;
    if (size === 0) break; // trailers after the last chunk carry nothing the pipeline needs
    if (at + size > body.length) throw new HttpMessageError('chunked body is truncated');
    parts.push(body.subarray(at, at + size));
    at += size;
    if (body[at] === 0x0d) at++;
    if (body[at] === 0x0a) at++;
  }
  return Buffer.concat(parts);
}

function decodeContent(bytes: Uint8Array, encoding: string, maxBytes: number): Uint8Array {
  const options = { maxOutputLength: Math.max(1, maxBytes) };
  const attempt = (decode: () => Uint8Array): Uint8Array => {
    try {
      return decode();
    } catch (error) {
      if (error instanceof RangeError) throw new HttpMessageError(`decoded body larger than ${maxBytes} bytes`, { cause: error });
      throw new HttpMessageError(`body is not valid ${encoding}: ${(error as Error).message}`, { cause: error });
    }
  };
  switch (encoding) {
    case 'gzip':
    case 'x-gzip':
      if (bytes[0] !== 0x1f || bytes[1] !== 0x8b) return keepIfPlain(bytes, encoding);
      return attempt(() => zlib.gunzipSync(bytes, options));
    case 'deflate':
      // Servers send both zlib-wrapped (RFC 9110) and raw deflate; a zlib header has CMF 0x?8.
      if ((bytes[0] & 0x0f) === 8 && ((bytes[0] << 8) | bytes[1]) % 31 === 0) return attempt(() => zlib.inflateSync(bytes, options));
      if (looksPlain(bytes)) return bytes;
      return attempt(() => zlib.inflateRawSync(bytes, options));
    case 'br':
      if (looksPlain(bytes)) return bytes;
      return attempt(() => zlib.brotliDecompressSync(bytes, options));
    case 'zstd':
      if (bytes[0] !== 0x28 || bytes[1] !== 0xb5 || bytes[2] !== 0x2f || bytes[3] !== 0xfd) return keepIfPlain(bytes, encoding);
      return attempt(() => zlib.zstdDecompressSync(bytes, options));
    default:
      throw new HttpMessageError(`unsupported content-encoding ${encoding}`);
  }
}

function keepIfPlain(bytes: Uint8Array, encoding: string): Uint8Array {
  if (bytes.length === 0 || looksPlain(bytes)) return bytes;
  throw new HttpMessageError(`body is not valid ${encoding}`);
}

/** Starts like a document we index (markup, PDF, ZIP, OLE), so it was stored already decoded. */
function looksPlain(bytes: Uint8Array): boolean {
  let i = 0;
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) i = 3;
  while (i < bytes.length && (bytes[i] === 0x20 || bytes[i] === 0x09 || bytes[i] === 0x0a || bytes[i] === 0x0d)) i++;
  const head = Buffer.from(bytes.buffer, bytes.byteOffset + i, Math.min(8, bytes.length - i));
  return head[0] === 0x3c || head.toString('latin1').startsWith('%PDF') || head.toString('latin1').startsWith('PK\x03\x04')
    || head.equals(Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]));
}

/**
 * node:http's reason phrases, taken from the module when first needed: `import ... from 'node:http'`
 * builds the module's namespace, which runs its lazy getters and loads undici (40 ms of CPU at the
 * start of every `fundus ingest`, which reads WARC files but never writes one).
 */
const reasonPhrase = (status: number): string | undefined => process.getBuiltinModule('node:http').STATUS_CODES[status];

/** The head of a response record; names stay as given, values lose line breaks so they cannot forge headers. */
export function serializeResponseHead(status: number, headers: Record<string, string>, bodyLength: number): string {
  const lines = [`HTTP/1.1 ${status} ${reasonPhrase(status) ?? 'Unknown'}`];
  for (const [name, value] of Object.entries(headers)) {
    if (ENCODING_HEADERS.includes(name.toLowerCase()) || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) continue;
    lines.push(`${name}: ${String(value).replace(/[\r\n]+/g, ' ')}`);
  }
  lines.push(`content-length: ${bodyLength}`);
  return `${lines.join('\r\n')}\r\n\r\n`;
}

// The document type comes from the bytes (issue 3: "from the bytes, not only the file name"). File name
// and Content-Type are only hints, used where the bytes are damaged and cannot speak for themselves
// (a DOCX with a cut-off central directory is still reported as a broken DOCX, not as junk).
import type { DocumentType } from '../../core/document.ts';
import { CompoundFile, hasCfbSignature } from './cfb.ts';
import { GuardedZip } from './zip-guard.ts';

const SNIFF_ZIP_LIMITS = { maxEntryBytes: 1024 * 1024, maxTotalBytes: 2 * 1024 * 1024, maxEntries: 10_000 };

const EXTENSIONS: Record<string, DocumentType> = {
  html: 'html', htm: 'html', xhtml: 'html', shtml: 'html', php: 'html', asp: 'html', aspx: 'html', jsp: 'html',
  pdf: 'pdf', docx: 'docx', docm: 'docx', dotx: 'docx', doc: 'doc', dot: 'doc', odt: 'odt', ott: 'odt',
};

const MIME_HINTS: [RegExp, DocumentType][] = [
  [/^(text\/html|application\/xhtml\+xml)/, 'html'],
  [/^application\/pdf/, 'pdf'],
  [/^application\/vnd\.openxmlformats-officedocument\.wordprocessingml/, 'docx'],
  [/^application\/vnd\.ms-word\.document/, 'docx'],
  [/^application\/msword/, 'doc'],
  [/^application\/vnd\.oasis\.opendocument\.text/, 'odt'],
];

/** What the file name or Content-Type claim the type is; never trusted on its own. */
export function hintedType(fileName?: string, contentType?: string): DocumentType | null {
  const mime = contentType?.toLowerCase().trim();
  if (mime) for (const [re, type] of MIME_HINTS) if (re.test(mime)) return type;
  const ext = fileName?.toLowerCase().match(/\.([a-z0-9]+)$/)?.[1];
  return (ext && EXTENSIONS[ext]) || null;
}

function startsWith(bytes: Uint8Array, ascii: string, at = 0): boolean {
  if (bytes.length < at + ascii.length) return false;
  for (let i = 0; i < ascii.length; i++) if (bytes[at + i] !== ascii.charCodeAt(i)) return false;
  return true;
}

function indexOfAscii(bytes: Uint8Array, ascii: string, limit: number): number {
  const end = Math.min(bytes.length, limit) - ascii.length;
  const first = ascii.charCodeAt(0);
  outer: for (let i = 0; i <= end; i++) {
    if (bytes[i] !== first) continue;
    for (let j = 1; j < ascii.length; j++) if (bytes[i + j] !== ascii.charCodeAt(j)) continue outer;
    return i;
  }
  return -1;
}

function sniffZip(bytes: Uint8Array): DocumentType | null | 'corrupt' {
  let zip: GuardedZip;
  try {
    zip = new GuardedZip(bytes, SNIFF_ZIP_LIMITS);
  } catch {
    return 'corrupt';
  }
  try {
    // ODF puts an uncompressed `mimetype` entry first; OOXML names its main part in [Content_Types].xml.
    const mimetype = zip.has('mimetype') ? zip.readText('mimetype', 256)?.trim() : undefined;
    if (mimetype?.startsWith('application/vnd.oasis.opendocument.text')) return 'odt';
    if (mimetype) return null;
    const contentTypes = zip.readText('[Content_Types].xml');
    if (contentTypes && /wordprocessingml\.(document|template)\.main\+xml|ms-word\.(document|template)\.macroEnabled/i.test(contentTypes)) return 'docx';
    if (!contentTypes && zip.has('word/document.xml')) return 'docx';
    return null;
  } catch {
    return 'corrupt';
  }
}

function sniffCfb(bytes: Uint8Array): DocumentType | null | 'corrupt' {
  try {
    const cfb = new CompoundFile(bytes);
    return cfb.hasStream('WordDocument') ? 'doc' : null;
  } catch {
    return 'corrupt';
  }
}

// Control bytes that never occur in text (WHATWG "binary data byte"): NUL..BS, VT, SO..US except ESC.
function isBinaryByte(b: number): boolean {
  return b <= 0x08 || b === 0x0b || (b >= 0x0e && b <= 0x1a) || (b >= 0x1c && b <= 0x1f);
}

// isBinaryByte as a table: the loop below runs over the first 4 KiB of every file.
const BINARY_BYTES = Uint8Array.from({ length: 256 }, (_, b) => (isBinaryByte(b) ? 1 : 0));

function looksTextual(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, 4096);
  let binary = 0;
  for (let i = 0; i < n; i++) binary += BINARY_BYTES[bytes[i]];
  return binary === 0 || binary / n < 0.002;
}

const HTML_MARKERS = ['<!doctype html', '<html', '<head', '<body', '<title', '<meta', '<script', '<style', '<div', '<p>', '<p ', '<h1', '<table', '<iframe', '<a href', '<br', '<!--'];

/** The bytes as ASCII in lower case, other bytes as "?" (one decode and two passes: adding a character at a time cost more than the rest of sniffing). */
function asciiLower(bytes: Uint8Array, start: number, limit: number): string {
  const n = Math.min(bytes.length, start + limit);
  if (n <= start) return '';
  return Buffer.from(bytes.buffer, bytes.byteOffset + start, n - start).toString('latin1').replace(/[^\x00-\x7f]/g, '?').toLowerCase();
}

function sniffHtml(bytes: Uint8Array, hinted: DocumentType | null): boolean {
  let head: string;
  if (startsWith(bytes, '\xff\xfe') || startsWith(bytes, '\xfe\xff')) {
    head = new TextDecoder(bytes[0] === 0xff ? 'utf-16le' : 'utf-16be').decode(bytes.subarray(0, 4096)).toLowerCase();
  } else {
    if (!looksTextual(bytes)) return false;
    head = asciiLower(bytes, startsWith(bytes, '\xef\xbb\xbf') ? 3 : 0, 4096);
  }
  const trimmed = head.replace(/^\ufeff/, '').trimStart();
  // The WHATWG sniffing rule: the first non-blank thing is an HTML tag or comment.
  if (HTML_MARKERS.some((m) => trimmed.startsWith(m))) return true;
  if (trimmed.startsWith('<?xml') && /<html[\s>]/.test(head)) return true;
  // Pages with a long preamble (server-side comments, text before the doctype) still name <html>/<body> early.
  if (/<html[\s>]|<body[\s>]|<!doctype html/.test(asciiLower(bytes, 0, 64 * 1024))) return true;
  return hinted === 'html' && /<[a-z][a-z0-9]*[\s>]/.test(head);
}

export function sniffDocumentType(bytes: Uint8Array, fileName?: string, contentType?: string): DocumentType | null {
  if (bytes.length === 0) return null;
  const hinted = hintedType(fileName, contentType);
  // PDF readers accept the header anywhere in the first 1024 bytes.
  if (indexOfAscii(bytes, '%PDF-', 1024) >= 0) return 'pdf';
  if (startsWith(bytes, 'PK\x03\x04') || startsWith(bytes, 'PK\x05\x06')) {
    const type = sniffZip(bytes);
    if (type === 'corrupt') return hinted === 'docx' || hinted === 'odt' ? hinted : null;
    return type;
  }
  if (hasCfbSignature(bytes)) {
    const type = sniffCfb(bytes);
    if (type === 'corrupt') return hinted === 'doc' ? 'doc' : null;
    return type;
  }
  if (startsWith(bytes, '{\\rtf')) return null;
  return sniffHtml(bytes, hinted) ? 'html' : null;
}

/** An Office file encrypted with a password is an OLE container holding an EncryptedPackage stream. */
export function isEncryptedOfficeContainer(bytes: Uint8Array): boolean {
  if (!hasCfbSignature(bytes)) return false;
  try {
    return new CompoundFile(bytes).hasStream('EncryptedPackage');
  } catch {
    return false;
  }
}

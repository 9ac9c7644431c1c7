// In-process extraction of one file: size and emptiness checks, type from the bytes, the extractor for
// that type, and the rules every result must meet (a title, a bounded text). Untrusted files should go
// through the pool (pool.ts), which adds the time and memory limits.
import type { DocumentType, ExtractedDocument } from '../../core/document.ts';
import { ExtractionError, toExtractionError } from './errors.ts';
import { extractHtml } from './html.ts';
import { hintedType, isEncryptedOfficeContainer, sniffDocumentType } from './sniff.ts';
import { DEFAULT_ZIP_LIMITS, type ZipLimits } from './zip-guard.ts';

export interface ExtractInput {
  bytes: Uint8Array;
  url: string;
  fileName?: string;
  /** HTTP response headers, names in lower case (content-type, last-modified, x-robots-tag, link, ...). */
  headers?: Record<string, string>;
}

export interface ExtractOptions {
  /** Files larger than this are refused before parsing (TOO_LARGE). */
  maxBytes?: number;
  zipLimits?: ZipLimits;
}

export const DEFAULT_MAX_BYTES = 50 * 1024 * 1024;
// The index stores the text; a 300-page PDF is about 1 M characters, so this only stops pathological files.
export const MAX_TEXT_CHARS = 5_000_000;
// Man page titles that list several commands reach 350 characters.
const MAX_TITLE_CHARS = 400;

function titleFromUrl(url: string, fileName?: string): string {
  const name = fileName ?? (() => {
    try {
      return decodeURIComponent(new URL(url).pathname.split('/').filter(Boolean).pop() ?? '');
    } catch {
      return '';
    }
  })();
  return name.replace(/\.[a-z0-9]{1,5}$/i, '').replace(/[-_]+/g, ' ').trim() || url;
}

function finish(doc: ExtractedDocument, input: ExtractInput): ExtractedDocument {
  let { title, text } = doc;
  const content = { ...doc.content };
  if (text.length > MAX_TEXT_CHARS) {
    text = text.slice(0, MAX_TEXT_CHARS);
    content.textTruncated = true;
  }
  title = title.trim();
  if (!title) {
    title = titleFromUrl(input.url, input.fileName);
    content.titleSource = 'url';
  }
  if (title.length > MAX_TITLE_CHARS) title = `${title.slice(0, MAX_TITLE_CHARS).replace(/\s+\S*$/, '')} …`;
  return { ...doc, title, text, content };
}

// The other extractors load on first use: an extraction process that meets only HTML never needs
// them and their libraries (unpdf, word-extractor with yauzl and saxes), a tenth of its module loading.
async function runExtractor(type: DocumentType, input: ExtractInput, options: ExtractOptions): Promise<ExtractedDocument> {
  const zipLimits = options.zipLimits ?? DEFAULT_ZIP_LIMITS;
  switch (type) {
    case 'html':
      return extractHtml(input);
    case 'pdf':
      return (await import('./pdf.ts')).extractPdf(input);
    case 'docx':
      return (await import('./docx.ts')).extractDocx({ bytes: input.bytes, zipLimits });
    case 'odt':
      return (await import('./odt.ts')).extractOdt({ bytes: input.bytes, zipLimits });
    case 'doc':
      return (await import('./doc.ts')).extractDoc(input);
  }
}

/** Header names are case-insensitive; callers are asked for lower case, this makes sure of it. */
function lowerCaseHeaders(headers: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!headers) return undefined;
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (typeof value === 'string') out[name.toLowerCase()] = value;
  return out;
}

export async function extractDocument(rawInput: ExtractInput, options: ExtractOptions = {}): Promise<ExtractedDocument> {
  const input: ExtractInput = { ...rawInput, headers: lowerCaseHeaders(rawInput.headers) };
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  if (input.bytes.length === 0) throw new ExtractionError('EMPTY_FILE');
  if (input.bytes.length > maxBytes) throw new ExtractionError('TOO_LARGE', `${input.bytes.length} bytes, limit ${maxBytes}`);
  if (isEncryptedOfficeContainer(input.bytes)) throw new ExtractionError('ENCRYPTED', 'password-protected Office document');
  const contentType = input.headers?.['content-type'];
  const type = sniffDocumentType(input.bytes, input.fileName, contentType);
  if (type === null) {
    const claimed = hintedType(input.fileName, contentType);
    throw new ExtractionError('UNSUPPORTED_TYPE', claimed ? `named or served as ${claimed}, but the bytes are not` : undefined);
  }
  try {
    return finish(await runExtractor(type, input, options), input);
  } catch (error) {
    throw toExtractionError(error);
  }
}

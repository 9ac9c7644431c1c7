// Which responses are documents the index holds (spec section 1: HTML, PDF, DOCX, DOC, ODT).

const DOCUMENT_TYPES = new Set([
  'text/html',
  'application/xhtml+xml',
  'application/pdf',
  'application/x-pdf',
  'application/msword',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.oasis.opendocument.text',
]);

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);

/** Many servers send office files and PDFs as octet-stream; the file name tells then. */
const GENERIC_TYPES = new Set(['', 'application/octet-stream', 'binary/octet-stream', 'application/download', 'application/force-download']);
const DOCUMENT_EXTENSION = /\.(?:pdf|docx?|odt|html?|xhtml)$/i;

/** Links to these are never documents: not worth a request. */
const NON_DOCUMENT_EXTENSION =
  /\.(?:jpe?g|png|gif|webp|avif|svg|ico|bmp|tiff?|css|js|mjs|json|woff2?|ttf|otf|eot|mp[34]|m4[av]|ogg|oga|ogv|wav|flac|webm|avi|mov|mkv|wmv|zip|gz|tgz|bz2|xz|zst|7z|rar|tar|exe|msi|dmg|iso|apk|deb|rpm|jar|bin)$/i;

export function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0].trim().toLowerCase();
}

export function isDocumentResponse(contentType: string | undefined, url: string): boolean {
  const type = mediaTypeOf(contentType);
  if (DOCUMENT_TYPES.has(type)) return true;
  return GENERIC_TYPES.has(type) && DOCUMENT_EXTENSION.test(new URL(url).pathname);
}

export function isHtml(contentType: string | undefined): boolean {
  return HTML_TYPES.has(mediaTypeOf(contentType));
}

export function hasNonDocumentExtension(url: string): boolean {
  return NON_DOCUMENT_EXTENSION.test(new URL(url).pathname);
}

import zlib from 'node:zlib';

// Sitemaps (sitemaps.org protocol 0.9): a <urlset> of page URLs or a <sitemapindex> of further
// sitemaps, as XML, gzip-compressed XML (.xml.gz), or plain text with one URL per line.

export type Sitemap = { kind: 'urlset'; urls: string[] } | { kind: 'index'; sitemaps: string[] };

/** The protocol's own limits: 50,000 URLs and 50 MB uncompressed per file. */
const MAX_SITEMAP_URLS = 50_000;
export const MAX_SITEMAP_BYTES = 50 * 1024 * 1024;

export class SitemapError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SitemapError';
  }
}

export function parseSitemap(bytes: Uint8Array): Sitemap {
  const text = Buffer.from(inflateIfGzip(bytes)).toString('utf8').replace(/^\uFEFF/, '');
  const start = text.trimStart().slice(0, 4096);
  if (/<sitemapindex[\s>]/i.test(text)) return { kind: 'index', sitemaps: locations(text) };
  if (/<urlset[\s>]/i.test(text)) return { kind: 'urlset', urls: locations(text) };
  if (start.startsWith('<')) throw new SitemapError('not a sitemap: neither <urlset> nor <sitemapindex>');
  const urls = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => /^https?:\/\/\S+$/i.test(line));
  return { kind: 'urlset', urls: urls.slice(0, MAX_SITEMAP_URLS) };
}

function inflateIfGzip(bytes: Uint8Array): Uint8Array {
  if (bytes[0] !== 0x1f || bytes[1] !== 0x8b) return bytes;
  try {
    return zlib.gunzipSync(bytes, { maxOutputLength: MAX_SITEMAP_BYTES });
  } catch (error) {
    throw new SitemapError(`broken gzip sitemap: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * Every <loc> in the file: in a urlset the pages, in an index the sitemaps. Prefixed ones such as
 * <image:loc> belong to extensions and are not pages. indexOf keeps this linear on hostile input.
 */
function locations(xml: string): string[] {
  const lower = xml.replace(/[A-Z]+/g, (letters) => letters.toLowerCase()); // keeps offsets, unlike toLowerCase()
  const result: string[] = [];
  for (let at = lower.indexOf('<loc'); at !== -1 && result.length < MAX_SITEMAP_URLS; at = lower.indexOf('<loc', at + 1)) {
    const open = lower.indexOf('>', at);
    if (open === -1) break;
    if (open !== at + 4 && !/\s/.test(lower[at + 4])) continue; // <location>, <locale>
    const close = lower.indexOf('</loc', open);
    if (close === -1) break;
    const value = decodeXml(xml.slice(open + 1, close).trim().replace(/^<!\[CDATA\[([\s\S]*)\]\]>$/, '$1')).trim();
    if (value) result.push(value);
    at = close;
  }
  return result;
}

const XML_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decodeXml(value: string): string {
  return value.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (entity, body: string) => {
    if (body[0] !== '#') return XML_ENTITIES[body.toLowerCase()];
    const code = body[1].toLowerCase() === 'x' ? Number.parseInt(body.slice(2), 16) : Number(body.slice(1));
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
  });
}

import { parseMetaRobots } from './robots-tags.ts';

// Links to follow out of an HTML page. A light tokenizer instead of a DOM: the crawler only needs
// <base>, robots <meta> and <a href rel>, and it runs for every fetched page.

export interface PageLinks {
  /** Absolute http(s) URLs without fragments, in page order, each once; rel="nofollow" left out. */
  links: string[];
  /** A robots meta tag for all robots or for this crawler says nofollow (or none). */
  nofollow: boolean;
}

const TAG = /<(a|base|meta)\b([^>]*)>/gi;
const ATTRIBUTE = /([^\s"'<>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;

export function extractLinks(html: string, pageUrl: string, productToken: string): PageLinks {
  const source = withoutIgnoredContent(html);
  let base = pageUrl;
  let nofollow = false;
  const hrefs: string[] = [];
  const token = productToken.toLowerCase();
  for (const [, name, rawAttributes] of source.matchAll(TAG)) {
    const attributes = parseAttributes(rawAttributes);
    switch (name.toLowerCase()) {
      case 'base':
        // Only the first <base href> counts (HTML standard); later ones are ignored.
        if (attributes.href !== undefined && base === pageUrl) base = resolveUrl(attributes.href, pageUrl) ?? pageUrl;
        break;
      case 'meta': {
        const metaName = attributes.name?.trim().toLowerCase();
        if ((metaName === 'robots' || metaName === token) && parseMetaRobots(attributes.content ?? '').nofollow) nofollow = true;
        break;
      }
      default:
        if (attributes.href === undefined) break;
        if ((attributes.rel ?? '').toLowerCase().split(/\s+/).includes('nofollow')) break;
        hrefs.push(attributes.href);
    }
  }
  const links = new Set<string>();
  if (!nofollow) {
    for (const href of hrefs) {
      const url = resolveUrl(href, base);
      if (url) links.add(url);
    }
  }
  return { links: [...links], nofollow };
}

/**
 * The form in which the crawler requests and remembers a URL: absolute, http or https, no
 * fragment, no empty "?". Null for anything else (mailto:, javascript:, tel:, broken URLs).
 */
export function resolveUrl(href: string, base?: string): string | null {
  let url: URL;
  try {
    url = new URL(href.trim(), base);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  url.hash = '';
  if (url.search === '') url.search = '';
  return url.href;
}

/** Comments and raw-text elements hold no links; an unclosed one runs to the end, as in browsers. */
function withoutIgnoredContent(html: string): string {
  const lower = html.replace(/[A-Z]+/g, (letters) => letters.toLowerCase()); // keeps offsets, unlike toLowerCase()
  const parts: string[] = [];
  let at = 0;
  const opener = /<!--|<(script|style|template|textarea)\b/gi;
  for (let match = opener.exec(html); match; match = opener.exec(html)) {
    parts.push(html.slice(at, match.index));
    const closer = match[1] ? `</${match[1].toLowerCase()}` : '-->';
    const end = lower.indexOf(closer, match.index + match[0].length);
    if (end === -1) return parts.join(' ');
    at = end + closer.length;
    opener.lastIndex = at;
  }
  parts.push(html.slice(at));
  return parts.join(' ');
}

function parseAttributes(raw: string): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const [, name, double, single, bare] of raw.matchAll(ATTRIBUTE)) {
    const key = name.toLowerCase();
    if (!(key in attributes)) attributes[key] = decodeEntities(double ?? single ?? bare ?? '');
  }
  return attributes;
}

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

function decodeEntities(value: string): string {
  return value.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);?/gi, (entity, body: string) => {
    if (body[0] === '#') {
      const code = body[1] === 'x' || body[1] === 'X' ? Number.parseInt(body.slice(2), 16) : Number(body.slice(1));
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
    }
    return NAMED[body.toLowerCase()] ?? entity;
  });
}

/** Page text for link extraction: charset from the header, else from a <meta> near the top, else UTF-8. */
export function decodeHtml(bytes: Uint8Array, contentType: string | undefined): string {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 2048)).toString('latin1');
  const label = /charset\s*=\s*["']?([\w.:-]+)/i.exec(contentType ?? '')?.[1] ?? /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head)?.[1] ?? 'utf-8';
  try {
    return new TextDecoder(label).decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes); // unknown label
  }
}

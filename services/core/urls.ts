import { createHash, hash } from 'node:crypto';
import { getDomain, getHostname } from 'tldts';

/** Fixed namespace of Fundus document ids (DESIGN.md section 3); never change it, ids depend on it. */
export const DOCUMENT_ID_NAMESPACE = '6f1c2e2a-7d3b-5c4e-9b8a-1f2d3c4b5a69';

const TRACKING_PARAMS = /^(utm_[a-z]+|fbclid|gclid|dclid|msclkid|mc_cid|mc_eid|_hsenc|_hsmi)$/i;

/**
 * The URL form that identifies a document: lower-case scheme and host, no default port,
 * no fragment, no tracking parameters, query parameters sorted, an empty path as "/".
 */
export function normalizeUrl(raw: string): string {
  const url = new URL(raw.trim());
  url.hash = '';
  url.hostname = url.hostname.toLowerCase().replace(/\.$/, '');
  const params = [...url.searchParams.entries()].filter(([key]) => !TRACKING_PARAMS.test(key));
  params.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  url.search = new URLSearchParams(params).toString();
  return url.toString();
}

export function documentIdForUrl(canonicalUrl: string): string {
  return `urn:uuid:${uuidV5(normalizeUrl(canonicalUrl))}`;
}

const NAMESPACE_BYTES = Buffer.from(DOCUMENT_ID_NAMESPACE.replaceAll('-', ''), 'hex');

/**
 * uuid v5 (RFC 9562: SHA-1 of the namespace and the name's UTF-8, version and variant bits set) of a
 * name in the document id namespace, in one hash call. The uuid package gives the same (the tests
 * compare); its copying and conversions cost twice the hashing, and loading its twenty modules cost
 * each process 15 ms of CPU at start.
 */
function uuidV5(name: string): string {
  const digest = createHash('sha1').update(NAMESPACE_BYTES).update(name, 'utf8').digest();
  digest[6] = (digest[6] & 0x0f) | 0x50;
  digest[8] = (digest[8] & 0x3f) | 0x80;
  const hex = digest.toString('hex', 0, 16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The registrable main domain (public suffix list), e.g. "docs.gimp.org" -> "gimp.org". */
export function registrableDomain(host: string): string {
  const clean = host.toLowerCase().replace(/\.$/, '');
  return getDomain(clean, { allowPrivateDomains: false }) ?? clean;
}

export function hostOf(url: string): string {
  return (getHostname(url) ?? new URL(url).hostname).toLowerCase();
}

/** The host and every parent domain down to the registrable domain: a source filter on any of them matches. */
export function hostSuffixes(host: string): string[] {
  const main = registrableDomain(host);
  const labels = host.split('.');
  const suffixes: string[] = [];
  for (let i = 0; i < labels.length; i++) {
    const suffix = labels.slice(i).join('.');
    suffixes.push(suffix);
    if (suffix === main) break;
  }
  return suffixes;
}

/** A stable id per source (main domain); the same on every machine and adapter. */
export function sourceIdFor(sourceDomain: string): string {
  return `src-${hash('sha256', sourceDomain, 'hex').slice(0, 16)}`;
}

/**
 * A `source` filter as users write it: "example.org", "domain:example.org", "www.example.org"
 * or even "https://example.org/x". Returns the host to filter on, or null when nothing usable is left.
 */
export function normalizeSourceFilter(raw: string): string | null {
  let value = raw.trim().toLowerCase().replace(/^domain:/, '').trim();
  if (/^[a-z][a-z0-9+.-]*:\/\//.test(value)) value = new URL(value).hostname;
  value = value.replace(/[/?#].*$/, '').replace(/:\d+$/, '').replace(/\.$/, '').replace(/^www\./, '');
  if (!value || !/^[\p{L}\p{N}.-]+$/u.test(value)) return null;
  try {
    return new URL(`http://${value}/`).hostname; // IDN -> punycode, as stored hosts are
  } catch {
    return null;
  }
}

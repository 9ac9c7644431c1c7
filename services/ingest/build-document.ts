import { analyzeForIndex } from '../core/analysis/index.ts';
import type { DocumentIdentity, ExtractedDocument, StoredDocument } from '../core/document.ts';
import { contentHashOf, contentOf, fingerprintOf, titleKeyOf } from '../core/text.ts';
import { documentIdForUrl, hostOf, normalizeUrl, registrableDomain, sourceIdFor } from '../core/urls.ts';
import type { IngestItem } from './item.ts';

const LOCAL_HOST = 'localhost';

function hostFor(url: string): string {
  return url.startsWith('file:') ? LOCAL_HOST : hostOf(url);
}

/** A canonical link counts only within the same main domain, so a page cannot claim another site's identity. */
export function canonicalFor(fetchedUrl: string, canonical: string | null): string {
  if (!canonical || fetchedUrl.startsWith('file:')) return normalizeUrl(fetchedUrl);
  try {
    const sameSite = registrableDomain(hostOf(canonical)) === registrableDomain(hostOf(fetchedUrl));
    return normalizeUrl(sameSite ? canonical : fetchedUrl);
  } catch {
    return normalizeUrl(fetchedUrl);
  }
}

function titleFallback(url: string): string {
  const last = decodeURIComponent(new URL(url).pathname.split('/').filter(Boolean).pop() ?? '');
  return last.replace(/\.[a-z0-9]{2,5}$/i, '').replace(/[-_]+/g, ' ').trim() || hostFor(url);
}

/**
 * The URL without "user:password@": a manifest, WARC record, record file or canonical link may carry
 * credentials, and stored URLs are served publicly. Ids are computed from the stripped URL, so a
 * document has the same id with or without them.
 */
export function withoutCredentials(url: string): string {
  if (!url.includes('@')) return url;
  try {
    const parsed = new URL(url);
    if (!parsed.username && !parsed.password) return url;
    parsed.username = '';
    parsed.password = '';
    return parsed.href;
  } catch {
    return url;
  }
}

/** Ids and URLs of a document fetched from `url` that names `canonical` (hashing and URL parsing: the workers do it ahead). */
export function identityOf(url: string, canonical: string | null): DocumentIdentity {
  const fetched = withoutCredentials(url);
  const normalizedFetchedUrl = normalizeUrl(fetched);
  const named = canonical && withoutCredentials(canonical);
  // Without a canonical link the canonical URL is the fetched one (canonicalFor): normalised once.
  const canonicalUrl = !named || fetched.startsWith('file:') ? normalizedFetchedUrl : canonicalFor(fetched, named);
  const host = hostFor(canonicalUrl);
  const sourceDomain = host === LOCAL_HOST ? LOCAL_HOST : registrableDomain(host);
  return {
    // The writer matches the identity the workers computed by the URL as given.
    fetchedUrl: url,
    normalizedFetchedUrl,
    canonicalUrl,
    host,
    sourceDomain,
    sourceId: sourceIdFor(sourceDomain),
    id: documentIdForUrl(canonicalUrl),
  };
}

export function buildStoredDocument(item: IngestItem, extracted: ExtractedDocument, topic: string | null, now: Date): StoredDocument {
  const ahead = extracted.prepared?.identity;
  const { canonicalUrl, host, sourceDomain, sourceId, id, normalizedFetchedUrl } =
    ahead && ahead.fetchedUrl === item.url ? ahead : identityOf(item.url, extracted.canonicalUrl);
  const title = extracted.title.trim() || titleFallback(canonicalUrl);
  return {
    id,
    url: canonicalUrl,
    canonicalUrl,
    host,
    sourceDomain,
    sourceId,
    title,
    text: extracted.text,
    contentType: extracted.contentType,
    documentType: extracted.documentType,
    language: extracted.language,
    publishedAt: extracted.publishedAt,
    modifiedAt: extracted.modifiedAt,
    contentDate: extracted.contentDate,
    dates: extracted.dates,
    fetchedAt: item.fetchedAt,
    // The workers hash with the extracted title; only a fallback title needs a new hash.
    contentHash:
      extracted.prepared && title === extracted.title.trim() ? extracted.prepared.contentHash : contentHashOf(contentOf(title, extracted.text)),
    fingerprint: extracted.prepared ? extracted.prepared.fingerprint : fingerprintOf(extracted.text),
    topic,
    isNews: extracted.isNews,
    // Remember where a copy was fetched when it named another URL as canonical.
    content: normalizedFetchedUrl === canonicalUrl ? extracted.content : { ...extracted.content, fetched_url: normalizedFetchedUrl },
    duplicateOf: null,
    changedAt: now.toISOString(),
    ...(extracted.prepared && {
      // Surrounding white space does not change the analysis: only a fallback title needs one.
      prepared:
        title === extracted.title.trim()
          ? { title: extracted.prepared.title, body: extracted.prepared.body, titleKey: extracted.prepared.titleKey }
          : { title: analyzeForIndex(title), body: extracted.prepared.body, titleKey: titleKeyOf(title) },
    }),
  };
}

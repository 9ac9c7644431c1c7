import { titleKeyOfDocument, type StoredDocument } from '../document.ts';
import type { DocumentIndex, WriteOutcome } from '../index-port.ts';
import { LruCache } from '../lru-cache.ts';
import { differingRegions, shingleSet, shingleSimilarity } from '../text.ts';
import { documentIdForUrl, normalizeUrl } from '../urls.ts';

// The duplicate rules of DESIGN.md section 3, applied the same way for every index adapter:
// one record per normalised canonical URL; a URL whose text is identical to a record's becomes an
// alias of that record; a near-duplicate is stored but collapsed under the record it repeats.

export type StoreOutcome = WriteOutcome | 'duplicate' | 'near_duplicate';

const NEAR_DUPLICATE_SIMILARITY = 0.85;
// And the texts differ in few places: a page fetched twice changes a footer or a date, while two
// laws made from one template (same title, another country named throughout) differ in many.
const NEAR_DUPLICATE_MAX_REGIONS = 4;
const NEAR_DUPLICATE_CANDIDATES = 20;
// A cheap first filter before the shingle comparison: unrelated texts differ in about half of the
// 64 SimHash bits, a page fetched twice with another footer line in a few.
const NEAR_DUPLICATE_MAX_BITS = 10;

/**
 * Shingles of the records compared last, by record and content hash: a common title's newest
 * records are the candidates of every newcomer with that title, and each is shingled once, its
 * text read once (a candidate's text is read when asked for), instead of every time. Bounded by
 * their bytes, not their number: a long PDF's shingles take a hundred times a page's. 300k
 * records: 1024 of them missed 111k times in 131k comparisons, 24 MiB of them (about 20k) 62k times.
 */
const recentShingles = new LruCache<string, Uint32Array>(24 * 2 ** 20);

function shinglesOf(doc: { id: string; contentHash: string; text: string }): Uint32Array {
  const key = `${doc.id} ${doc.contentHash}`;
  let shingles = recentShingles.get(key);
  if (!shingles) {
    shingles = shingleSet(doc.text);
    recentShingles.set(key, shingles, shingles.byteLength + key.length);
  }
  return shingles;
}

export async function storeDocument(index: DocumentIndex, doc: StoredDocument): Promise<StoreOutcome> {
  const fetchedUrl = typeof doc.content.fetched_url === 'string' ? doc.content.fetched_url : null;
  if (fetchedUrl) {
    // A copy that names a canonical URL: an alias of that record. The page fetched at its
    // canonical URL itself is the better source, so a copy never overwrites it.
    await index.addAlias(documentIdForUrl(fetchedUrl), normalizeUrl(fetchedUrl), doc.id);
    const existing = await index.getDocument(doc.id);
    if (existing?.id === doc.id && typeof existing.content.fetched_url !== 'string') return 'duplicate';
  }

  const sameText = await index.findByContentHash(doc.contentHash);
  if (sameText && sameText.id !== doc.id) {
    await index.addAlias(doc.id, doc.canonicalUrl, sameText.id);
    const stale = await index.getDocument(doc.id);
    if (stale?.id === doc.id) await index.remove(doc.id); // this URL used to hold another text
    return 'duplicate';
  }

  let record = doc;
  if (doc.fingerprint && !sameText) {
    // A near-duplicate repeats a record's title and most of its text (the same page fetched twice
    // with another footer line). Pages that share one text under different names (man page aliases
    // such as bunzip2/bzip2recover) are different documents to a searcher.
    const candidates = await index.findNearDuplicateCandidates(titleKeyOfDocument(doc), doc.fingerprint, NEAR_DUPLICATE_MAX_BITS, NEAR_DUPLICATE_CANDIDATES);
    const shingles = candidates.length ? shinglesOf(doc) : null;
    const near = candidates.find(
      (other) =>
        other.id !== doc.id &&
        !other.duplicateOf &&
        shingleSimilarity(shinglesOf(other), shingles!) >= NEAR_DUPLICATE_SIMILARITY &&
        differingRegions(other.text, doc.text) <= NEAR_DUPLICATE_MAX_REGIONS,
    );
    if (near) record = { ...doc, duplicateOf: near.id };
  }
  const outcome = await index.put(record);
  if (record.duplicateOf && outcome !== 'unchanged') return 'near_duplicate';
  return outcome;
}

import type { QueryTerm } from '../../core/analysis/index.ts';
import type { IndexQuery } from '../../core/index-port.ts';
import { hostSuffixes } from '../../core/urls.ts';
import { ageKey, normalizeTopic, type PhraseSide, type ScoredList, type ScoreLists } from './score-lists.ts';

// Ranks, filters and counts a query from the score lists (score-lists.ts). A query is an AND of
// words, each matching its exact form or one of its base forms (fts-query.ts); bm25 is a sum over
// those phrases, so a document's score is the sum of its list scores. Words are visited from the
// rarest up: the first sets the candidates, every further word keeps those it occurs in — by
// walking its lists, or, when the candidates are far fewer than a list, by binary search in it.
// Filters read per-document arrays; the total is exact. The order is FTS5's: bm25, then row id.

/** Words per query this path takes (a bit per word marks exact matches); longer queries go to FTS5. */
const MAX_WORDS = 30;
/** Scored lists kept per reader, by bytes: the frequent words of a busy index stay in memory. */
const CACHE_BYTES = 96 * 2 ** 20;
/** A token FTS5's ascii tokenizer reads as one token (letters, digits, '_', any non-ASCII). */
const SINGLE_TOKEN = /^[a-z0-9_\u0080-\uffff]+$/;

interface Phrase {
  side: PhraseSide;
  token: string;
  exact: boolean;
}

export interface ListPage {
  /** Row ids from `offset` on, best first: up to `limit` + 1 (the last tells `has_more`). */
  seqs: number[];
  total: number;
  /** bm25 relevance of each of `seqs` (higher is better). */
  scores: number[];
  /** Row ids of the page whose every word matched in its exact form. */
  exact: Set<number>;
}

/** Scores one phrase without a list (a rare word) through FTS5, in row-id order. */
export type UnlistedPhrase = (side: PhraseSide, token: string) => ScoredList;

export class ListSearcher {
  private readonly mark: Uint32Array;
  private readonly score: Float64Array;
  private readonly exactBits: Uint32Array;
  private epoch = 0;
  private readonly cache = new Map<string, ScoredList>();
  private cachedBytes = 0;

  readonly lists: ScoreLists;
  private readonly unlisted: UnlistedPhrase;

  constructor(lists: ScoreLists, unlisted: UnlistedPhrase) {
    this.lists = lists;
    this.unlisted = unlisted;
    const size = lists.maxSeq + 1;
    this.mark = new Uint32Array(size);
    this.score = new Float64Array(size);
    this.exactBits = new Uint32Array(size);
  }

  /** The page of `query`, or null when this path does not take it (FTS5 answers instead). */
  search(query: IndexQuery): ListPage | null {
    if (query.order !== 'relevance' || query.terms.length === 0 || query.terms.length > MAX_WORDS) return null;
    if (query.minAgeDate && !(this.lists.agesComparable && /^\d{4}-\d{2}-\d{2}$/.test(query.minAgeDate))) return null;
    const words = query.terms.map(phrasesOf);
    if (words.some((phrases) => phrases.some((phrase) => !SINGLE_TOKEN.test(phrase.token)))) return null;
    words.sort((a, b) => this.estimate(a) - this.estimate(b));

    const candidates = this.intersect(words);
    const passes = this.filterOf(query);
    const wanted = query.offset + query.limit + 1;
    const best = new TopK(wanted, this.score);
    let total = 0;
    for (const seq of candidates) {
      if (passes && !passes(seq)) continue;
      total++;
      best.offer(seq);
    }
    const all = (2 ** words.length - 1) >>> 0;
    const seqs = best.sorted().slice(query.offset);
    return { seqs, total, scores: seqs.map((seq) => this.score[seq]), exact: new Set(seqs.filter((seq) => this.exactBits[seq] === all)) };
  }

  private estimate(phrases: Phrase[]): number {
    return phrases.reduce((sum, phrase) => sum + (this.lists.documentsOf(phrase.side, phrase.token) ?? this.lists.minDocuments), 0);
  }

  /** Row ids matching every word; their summed scores and exact-form bits are left in the arrays. */
  private intersect(words: Phrase[][]): number[] {
    const { mark, score, exactBits } = this;
    if (this.epoch > 0xffffffff - 2 * (MAX_WORDS + 1)) {
      mark.fill(0);
      this.epoch = 0;
    }
    const base = this.epoch + 1;
    this.epoch += MAX_WORDS + 1;
    let candidates: number[] = [];
    for (let k = 0; k < words.length; k++) {
      const before = base + k - 1; // matched the words so far (any document, for the first word)
      const after = base + k;
      const bit = (1 << k) >>> 0;
      const reached: number[] = [];
      for (const phrase of words[k]) {
        const { seqs, scores } = this.listOf(phrase);
        const exact = phrase.exact ? bit : 0;
        const visit = (seq: number, value: number) => {
          const state = mark[seq];
          if (state === after) {
            score[seq] += value;
            exactBits[seq] |= exact;
          } else if (k === 0 || state === before) {
            mark[seq] = after;
            score[seq] = k === 0 ? value : score[seq] + value;
            exactBits[seq] = k === 0 ? exact : exactBits[seq] | exact;
            reached.push(seq);
          }
        };
        if (k > 0 && candidates.length * 24 < seqs.length) {
          for (const seq of candidates) {
            const i = search(seqs, seq);
            if (i >= 0) visit(seq, scores[i]);
          }
        } else {
          for (let i = 0; i < seqs.length; i++) visit(seqs[i], scores[i]);
        }
      }
      candidates = reached;
      if (candidates.length === 0) break;
    }
    return candidates;
  }

  private listOf(phrase: Phrase): ScoredList {
    const key = `${phrase.side}:${phrase.token}`;
    const cached = this.cache.get(key);
    if (cached) {
      this.cache.delete(key); // re-inserted: the Map's order is the order of use
      this.cache.set(key, cached);
      return cached;
    }
    const list = this.lists.read(phrase.side, phrase.token) ?? this.unlisted(phrase.side, phrase.token);
    const bytes = list.seqs.byteLength + list.scores.byteLength;
    if (bytes <= CACHE_BYTES / 8) {
      this.cache.set(key, list);
      this.cachedBytes += bytes;
      for (const [oldest, entry] of this.cache) {
        if (this.cachedBytes <= CACHE_BYTES) break;
        this.cache.delete(oldest);
        this.cachedBytes -= entry.seqs.byteLength + entry.scores.byteLength;
      }
    }
    return list;
  }

  /** The query's filters as a test of a row id, or null without filters (the same rules as fts-query.ts). */
  private filterOf(query: IndexQuery): ((seq: number) => boolean) | null {
    const { lists } = this;
    const tests: ((seq: number) => boolean)[] = [];
    if (query.documentTypes?.length) {
      const allowed = new Set(query.documentTypes.map((type) => lists.types.indexOf(type)));
      tests.push((seq) => allowed.has(lists.docType[seq]));
    }
    if (query.host) {
      const host = query.host;
      const allowed = new Uint8Array(lists.hosts.length);
      lists.hosts.forEach((candidate, code) => (allowed[code] = hostSuffixes(candidate).includes(host) ? 1 : 0));
      tests.push((seq) => allowed[lists.docHost[seq]] === 1);
    }
    if (query.topic) {
      const code = lists.topics.indexOf(normalizeTopic(query.topic));
      tests.push((seq) => code > 0 && lists.docTopic[seq] === code);
    }
    if (query.newsOnly) tests.push((seq) => lists.docNews[seq] === 1);
    if (query.minAgeDate) {
      const minimum = ageKey(query.minAgeDate);
      tests.push((seq) => lists.docAge[seq] >= minimum && lists.docAge[seq] > 0);
    }
    if (tests.length === 0) return null;
    return (seq) => tests.every((test) => test(seq));
  }
}

function phrasesOf(term: QueryTerm): Phrase[] {
  return [{ side: 'exact', token: term.exact, exact: true }, ...[...new Set(term.bases)].map((token) => ({ side: 'base' as const, token, exact: false }))];
}

/** Index of `value` in the ascending `seqs`, or -1. */
function search(seqs: Uint32Array, value: number): number {
  let low = 0;
  let high = seqs.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const at = seqs[middle];
    if (at < value) low = middle + 1;
    else if (at > value) high = middle - 1;
    else return middle;
  }
  return -1;
}

/** The best `size` row ids by score (higher first), ties by row id (lower first): a bounded heap. */
class TopK {
  private readonly heap: number[] = [];
  private readonly size: number;
  private readonly score: Float64Array;

  constructor(size: number, score: Float64Array) {
    this.size = size;
    this.score = score;
  }

  /** Whether a ranks below b. */
  private worse(a: number, b: number): boolean {
    const sa = this.score[a];
    const sb = this.score[b];
    return sa < sb || (sa === sb && a > b);
  }

  offer(seq: number): void {
    const heap = this.heap;
    if (heap.length < this.size) {
      heap.push(seq);
      let i = heap.length - 1;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!this.worse(heap[i], heap[parent])) break;
        [heap[i], heap[parent]] = [heap[parent], heap[i]];
        i = parent;
      }
      return;
    }
    if (!this.worse(heap[0], seq)) return;
    heap[0] = seq;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let worst = i;
      if (left < heap.length && this.worse(heap[left], heap[worst])) worst = left;
      if (right < heap.length && this.worse(heap[right], heap[worst])) worst = right;
      if (worst === i) break;
      [heap[i], heap[worst]] = [heap[worst], heap[i]];
      i = worst;
    }
  }

  sorted(): number[] {
    return [...this.heap].sort((a, b) => (this.worse(a, b) ? 1 : this.worse(b, a) ? -1 : 0));
  }
}

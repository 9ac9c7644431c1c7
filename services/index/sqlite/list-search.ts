import type { QueryTerm } from '../../core/analysis/index.ts';
import type { IndexQuery } from '../../core/index-port.ts';
import { LruCache } from '../../core/lru-cache.ts';
import { hostSuffixes } from '../../core/urls.ts';
import { better, bitSetWords, blockBitsFor, blockCount, blockedTopK, blocksOf, listBlocksBytes, residentList, scoreIn, searchRange, type BlockedList, type BlockPostings, type ListBlocks } from './block-max.ts';
import { indexOf, rankedBitsBytes, rankedBitsOf, type RankedBits } from './ranked-bits.ts';
import { ageKey, inverseDocumentFrequency, normalizeTopic, phraseScore, postingListBytes, type FacetKind, type PhraseSide, type PostingList, type ScoreLists } from './score-lists.ts';

// Ranks, filters and counts a query from the score lists (score-lists.ts). A query is an AND of
// words, each matching its exact form or one of its base forms (fts-query.ts); bm25 is a sum over
// those phrases, so a document's score is the sum of its list scores. Words are visited from the
// rarest up: the first sets the candidates, every further word keeps those it occurs in — by
// walking its lists, or, when the candidates are far fewer than a list, by binary search in it.
// Filters read per-document arrays; the total is exact. The order is FTS5's: bm25, then row id.

/** Words per query this path takes (a stage of `mark` each, and one for a filter's documents); longer queries go to FTS5. */
const MAX_WORDS = 30;
/**
 * Lists kept per reader, by bytes (6 per document): the frequent words of a busy index stay in
 * memory — at a million documents, the most frequent 20 or so phrases.
 */
const LIST_CACHE_BYTES = 64 * 2 ** 20;
/** A token FTS5's ascii tokenizer reads as one token (letters, digits, '_', any non-ASCII). */
const SINGLE_TOKEN = /^[a-z0-9_\u0080-\uffff]+$/;

interface Phrase {
  side: PhraseSide;
  token: string;
}

export interface ListPage {
  /** Row ids from `offset` on, best first: up to `limit` + 1 (the last tells `has_more`). */
  seqs: number[];
  total: number;
}

/** Scores one phrase without a list (a rare word) through FTS5, in row-id order. */
export type UnlistedPhrase = (side: PhraseSide, token: string) => PostingList;

export class ListSearcher {
  readonly lists: ScoreLists;
  private readonly unlisted: UnlistedPhrase;
  /** How many words each document has matched in this query, offset by the query's epoch (a byte: little memory traffic). */
  private readonly mark: Uint8Array;
  private readonly score: Float64Array;
  /** Candidates of the word before and of the current word (they take turns). */
  private candidates: Uint32Array;
  private reached: Uint32Array;
  private epoch = 0;
  /** Lists by phrase, weighed by their bytes and their block data's. */
  private readonly cache: LruCache<string, PostingList>;
  private readonly cacheBytes: number;
  /**
   * The block data of the lists blocked queries use, by phrase, apart from their postings: at a
   * million documents about 220 KB a list against 5 MB of postings, so the common words of a
   * varied mix keep theirs while postings come and go (a long list's are read only where a query
   * visits, `bitsList`).
   */
  private readonly blockCache: LruCache<string, ListBlocks>;
  /** From this many documents of the rarest word on, a query takes the block-max path. */
  private readonly blockedFrom: number;
  /** From this many documents on, a list is looked up through its bit set and ranks (ranked-bits.ts) rather than by binary search. */
  private readonly rankedFrom: number;

  /** Row ids per block of the block data, as a power of two (block-max.ts). */
  private readonly blockBits: number;
  /** From this many documents on, a blocked query reads a list block by block from the file unless it is cached whole. */
  private readonly lazyFrom: number;
  /** Whole frequency arrays of long lists (`bitsList`), by phrase: a third of a list's bytes, no row ids. */
  private readonly frequencyCache: LruCache<string, Uint16Array>;
  /** Blocks a query reads of a list's frequencies one by one before it reads them all (default: by the list's size). */
  private readonly frequencyBlocksMax: number | undefined;

  constructor(lists: ScoreLists, unlisted: UnlistedPhrase, options: { blockedFrom?: number; cacheBytes?: number; rankedFrom?: number; blockCacheBytes?: number; frequencyCacheBytes?: number; lazyFrom?: number; memoryShare?: number; frequencyBlocksMax?: number } = {}) {
    this.lists = lists;
    this.unlisted = unlisted;
    const share = options.memoryShare ?? 1;
    this.cacheBytes = options.cacheBytes ?? LIST_CACHE_BYTES * share;
    this.cache = new LruCache(this.cacheBytes, (list) => this.retired.push(list), ADMISSION);
    this.blockCache = new LruCache(options.blockCacheBytes ?? BLOCK_CACHE_BYTES * share, (blocks) => this.retiredBlocks.push(blocks), ADMISSION);
    this.lazyFrom = options.lazyFrom ?? LAZY_MIN_DOCUMENTS;
    this.frequencyCache = new LruCache(options.frequencyCacheBytes ?? FREQUENCY_CACHE_BYTES * share, (frequencies) => this.retiredFrequencies.push(frequencies), ADMISSION);
    this.frequencyBlocksMax = options.frequencyBlocksMax;
    this.blockBits = blockBitsFor(lists.maxSeq);
    const size = lists.maxSeq + 1;
    this.mark = new Uint8Array(size);
    this.score = new Float64Array(size);
    this.candidates = new Uint32Array(size);
    this.reached = new Uint32Array(size);
    this.blockedFrom = options.blockedFrom ?? Math.max(BLOCKED_MIN_DOCUMENTS, Math.round(size / 64));
    // From one posting per 32 row ids on, a list's bit set and ranks weigh at most as much as the list.
    this.rankedFrom = options.rankedFrom ?? Math.max(RANKED_MIN_DOCUMENTS, (size >>> 5) + 1);
  }

  /** Blocks the last blocked query scored, of those holding matches (null: it was not blocked); for profiles. */
  lastBlocks: { visited: number; settled: number; blocks: number } | null = null;

  /** The page of `query`, or null when this path does not take it (FTS5 answers instead). */
  search(query: IndexQuery): ListPage | null {
    this.releaseRetired();
    this.lastBlocks = null;
    if (query.order !== 'relevance' || query.terms.length === 0 || query.terms.length > MAX_WORDS) return null;
    if (query.minAgeDate && !(this.lists.agesComparable && /^\d{4}-\d{2}-\d{2}$/.test(query.minAgeDate))) return null;
    const inQueryOrder = query.terms.map(phrasesOf);
    if (inQueryOrder.some((phrases) => phrases.some((phrase) => !SINGLE_TOKEN.test(phrase.token)))) return null;
    const words = [...inQueryOrder].sort((a, b) => this.estimate(a) - this.estimate(b));
    // Scores are summed rarest word first; FTS5 sums its phrases in the query's order. The sums
    // can then differ in their last bits, and near-ties at the page's edges are scored again in
    // FTS5's order (`rescore`).
    const rescore = words.some((word, i) => word !== inQueryOrder[i]) ? (seqs: number[]) => this.rescore(inQueryOrder, seqs) : null;

    const passes = this.filterOf(query);
    const firstWord = this.estimate(words[0]);
    const facet = passes ? this.smallestFacet(query) : null;
    const wanted = query.offset + query.limit + 1;
    let seqs: number[];
    let total: number;
    if (firstWord >= this.blockedFrom && (!facet || facet.size >= this.blockedFrom) && wanted <= BLOCKED_MAX_WANTED) {
      // Many matches for a page near the top: block-max top-k, the total from bit sets.
      const page = this.blocked(words, inQueryOrder, passes ? this.filterBits(query, passes, facet) : null, wanted);
      this.lastBlocks = { visited: page.visited, settled: page.settled, blocks: page.blocks };
      seqs = page.best.slice(query.offset);
      total = page.total;
    } else {
      const start = facet && passes && facet.size * FACET_START_RATIO <= firstWord ? startFrom(facet.parts, passes) : null;
      total = this.intersect(words, passes, start);
      seqs = rescore ? this.rescoredWindow(total, query.offset, wanted, rescore) : selectWindow(this.candidates, total, query.offset, wanted, this.score);
    }
    return { seqs, total };
  }

  /**
   * How many postings the lists of `query`'s words hold in all (a rare word counted as the shortest
   * list), or null when this path would not take the query. Every step of `search` below that is
   * not block-max is bounded by it (the block-max path begins above it), the page's exact-form
   * check reads lists among them: a query with few postings is cheap, whatever its words.
   */
  postingsOf(query: IndexQuery): number | null {
    if (query.order !== 'relevance' || query.terms.length === 0 || query.terms.length > MAX_WORDS) return null;
    if (query.minAgeDate && !(this.lists.agesComparable && /^\d{4}-\d{2}-\d{2}$/.test(query.minAgeDate))) return null;
    const words = query.terms.map(phrasesOf);
    if (words.some((phrases) => phrases.some((phrase) => !SINGLE_TOKEN.test(phrase.token)))) return null;
    return words.reduce((sum, phrases) => sum + this.estimate(phrases), 0);
  }

  /** Which of `seqs` match every term in its exact form (each looked up in its exact list); null for words FTS5 reads as several tokens. */
  exactMatches(terms: QueryTerm[], seqs: number[]): Set<number> | null {
    this.releaseRetired();
    if (!terms.every((term) => SINGLE_TOKEN.test(term.exact))) return null;
    const inExact = terms.map((term) => this.membershipOf(phrasesOf(term)[0]));
    return new Set(seqs.filter((seq) => inExact.every((contains) => contains(seq))));
  }

  /** At most how many documents a query word matches (the sum of its phrases' documents). */
  matchesAtMost(term: QueryTerm): number {
    return this.estimate(phrasesOf(term));
  }

  private estimate(phrases: Phrase[]): number {
    return phrases.reduce((sum, phrase) => sum + (this.lists.documentsOf(phrase.side, phrase.token) ?? this.lists.minDocuments), 0);
  }

  /**
   * Leaves the row ids that match every word and pass the filters in `this.candidates` (returns
   * how many), with their summed scores in `this.score`. `mark` tells how many words a document
   * has matched in this query (epochs spare clearing it between most queries). Filters are
   * applied to the first word's documents, so nothing else is done for the documents they
   * exclude — or, when a filter is selective, its documents (`start`) are the first candidates.
   * A posting is scored only when its document is still a candidate.
   */
  private intersect(words: Phrase[][], passes: ((seq: number) => boolean) | null, start: Uint32Array | null): number {
    const { mark, score } = this;
    const norm = this.lists.lengthNorm;
    if (this.epoch > 0xff - (MAX_WORDS + 2)) {
      mark.fill(0);
      this.epoch = 0;
    }
    const base = this.epoch + 1;
    this.epoch += MAX_WORDS + 2;
    let count = 0;
    if (start) {
      for (const seq of start) {
        mark[seq] = base;
        score[seq] = 0;
        this.candidates[count++] = seq;
      }
    }
    const stage = start ? base + 1 : base; // of the first word
    for (let k = 0; k < words.length; k++) {
      const before = stage + k - 1;
      const after = stage + k;
      const first = k === 0 && !start;
      const previous = this.candidates;
      const out = this.reached;
      let reached = 0;
      for (const phrase of words[k]) {
        const probe = first ? null : this.probeOf(phrase, count);
        if (probe) {
          // A long list not in memory and few candidates: each looked up in the list's block data.
          for (let c = 0; c < count; c++) {
            const seq = previous[c];
            const phraseScore = probe(seq);
            if (phraseScore < 0) continue;
            if (mark[seq] === before) {
              mark[seq] = after;
              out[reached++] = seq;
            }
            score[seq] += phraseScore;
          }
          continue;
        }
        const list = this.listOf(phrase);
        const seqs = list.seqs;
        // One of the two is set: stored frequencies (scored here) or FTS5's scores.
        const frequencies = list.frequencies ?? EMPTY_FREQUENCIES;
        const fixed = list.scores;
        const idf = list.idf ?? 0;
        if (first) {
          for (let i = 0; i < seqs.length; i++) {
            const seq = seqs[i];
            if (mark[seq] === after) {
              score[seq] += fixed ? fixed[i] : phraseScore(idf, frequencies[i], norm[seq]);
            } else if (!passes || passes(seq)) {
              mark[seq] = after;
              score[seq] = fixed ? fixed[i] : phraseScore(idf, frequencies[i], norm[seq]);
              out[reached++] = seq;
            }
          }
        } else if (seqs.length >= this.rankedFrom && count * RANKED_PROBE_RATIO < seqs.length) {
          // A long list and fewer candidates: look each one up in the list's bit set, whose rank
          // directory gives its index (ranked-bits.ts) — three reads instead of a binary search.
          const ranked = this.rankedBitsOf(phrase, list);
          for (let c = 0; c < count; c++) {
            const seq = previous[c];
            const i = indexOf(ranked, seq);
            if (i < 0) continue;
            if (mark[seq] === before) {
              mark[seq] = after;
              out[reached++] = seq;
            }
            score[seq] += fixed ? fixed[i] : phraseScore(idf, frequencies[i], norm[seq]);
          }
        } else if (count * PROBE_RATIO < seqs.length) {
          // Far fewer candidates than documents in the list: look each one up.
          for (let c = 0; c < count; c++) {
            const seq = previous[c];
            const i = search(seqs, seq);
            if (i < 0) continue;
            if (mark[seq] === before) {
              mark[seq] = after;
              out[reached++] = seq;
            }
            score[seq] += fixed ? fixed[i] : phraseScore(idf, frequencies[i], norm[seq]);
          }
        } else {
          for (let i = 0; i < seqs.length; i++) {
            const seq = seqs[i];
            const state = mark[seq];
            if (state === before) {
              mark[seq] = after;
              out[reached++] = seq;
            } else if (state !== after) continue;
            score[seq] += fixed ? fixed[i] : phraseScore(idf, frequencies[i], norm[seq]);
          }
        }
      }
      this.reached = previous;
      this.candidates = out;
      count = reached;
      if (count === 0) break;
    }
    return count;
  }

  private listOf(phrase: Phrase): PostingList {
    const key = keyOf(phrase);
    const cached = this.cache.get(key);
    if (cached) return cached;
    const list = this.lists.read(phrase.side, phrase.token) ?? this.unlisted(phrase.side, phrase.token);
    const bytes = postingListBytes(list);
    if (bytes > this.cacheBytes / 8) this.retired.push(list);
    else this.cache.set(key, list, bytes);
    return list;
  }

  /** Whether a phrase's list holds a row id: by its bit set when its block data is at hand, else by binary search in the list. */
  private membershipOf(phrase: Phrase): (seq: number) => boolean {
    const bits = this.cache.peek(keyOf(phrase)) ? null : this.blockCache.peek(keyOf(phrase))?.bits;
    if (bits) return (seq) => (bits[seq >>> 5] & (1 << (seq & 31))) !== 0;
    const list = this.listOf(phrase).seqs;
    return (seq) => search(list, seq) >= 0;
  }

  /** Lists dropped from the cache, or too long to keep, during the current call. */
  private retired: PostingList[] = [];
  private retiredBlocks: ListBlocks[] = [];
  private retiredFrequencies: Uint16Array[] = [];

  /**
   * Gives the memory of dropped lists (and their block data) back at once, rather than leaving it
   * to the garbage collector: at a million documents the cache turns over many megabytes a second,
   * and that garbage, not the cache, set a reader's peak memory. Done at the start of a call,
   * when no list of an earlier call is in use any more.
   */
  private releaseRetired(): void {
    for (const blocks of this.retiredBlocks) release([blocks.maxima, blocks.starts, blocks.bits, blocks.scores]);
    this.retiredBlocks = [];
    release(this.retiredFrequencies);
    this.retiredFrequencies = [];
    for (const list of this.retired) {
      const ranked = this.listRanks.get(list);
      this.listRanks.delete(list);
      release([list.seqs, list.frequencies, list.scores, ranked?.bits, ranked?.ranks]);
    }
    this.retired = [];
  }

  private readonly hostFilters = new Map<string, Uint8Array>();

  /**
   * The documents of the query's most selective filter (type, source, topic or news), as one
   * ascending list per facet value. When they are far fewer than the first word's, they start the
   * candidates (`startFrom`), and the words' lists are then mostly looked up rather than walked.
   */
  private smallestFacet(query: IndexQuery): { parts: Uint32Array[]; size: number } | null {
    const { lists } = this;
    const options: { kind: FacetKind; codes: number[] }[] = [];
    if (query.documentTypes?.length) options.push({ kind: 'type', codes: query.documentTypes.map((type) => lists.types.indexOf(type)).filter((code) => code >= 0) });
    if (query.host) {
      const allowed = this.hostsUnder(query.host);
      options.push({ kind: 'host', codes: [...allowed.keys()].filter((code) => allowed[code] === 1) });
    }
    if (query.topic) options.push({ kind: 'topic', codes: [lists.topics.indexOf(normalizeTopic(query.topic))].filter((code) => code > 0) });
    if (query.newsOnly) options.push({ kind: 'news', codes: [1] });
    let best: { parts: Uint32Array[]; size: number } | null = null;
    for (const { kind, codes } of options) {
      const parts = codes.map((code) => lists.documentsWith(kind, code));
      const size = parts.reduce((sum, part) => sum + part.length, 0);
      if (!best || size < best.size) best = { parts, size };
    }
    return best;
  }

  /** Bit sets of the last few filters asked for (a filter's documents change only with the index). */
  private readonly filterBitSets = new Map<string, Int32Array>();

  /** The documents that pass the query's filters, as a bit set: from its smallest facet's documents, or (a date alone) from all. */
  private filterBits(query: IndexQuery, passes: (seq: number) => boolean, facet: { parts: Uint32Array[] } | null): Int32Array {
    const key = JSON.stringify([query.documentTypes, query.host, query.topic, query.newsOnly, query.minAgeDate]);
    let bits = this.filterBitSets.get(key);
    if (bits) return bits;
    bits = new Int32Array(bitSetWords(this.lists.maxSeq));
    const add = (seq: number) => {
      if (passes(seq)) bits![seq >>> 5] |= 1 << (seq & 31);
    };
    if (facet) for (const part of facet.parts) part.forEach(add);
    else for (let seq = 0; seq <= this.lists.maxSeq; seq++) add(seq);
    if (this.filterBitSets.size >= 32) this.filterBitSets.delete(this.filterBitSets.keys().next().value!);
    this.filterBitSets.set(key, bits);
    return bits;
  }

  private scratch: Parameters<typeof blockedTopK>[4] | null = null;

  /**
   * The window [from, to) of the candidates in FTS5's exact order: the candidates that could rank
   * above `to` — down to a hair below the `to`-th best sum — are scored again in FTS5's order.
   */
  private rescoredWindow(count: number, from: number, to: number, rescore: (seqs: number[]) => void): number[] {
    const { candidates, score } = this;
    const top = selectWindow(candidates, count, 0, to, score);
    if (top.length === 0) return [];
    const cut = score[top[top.length - 1]] * (1 - NEAR_TIE);
    const near: number[] = [];
    for (let c = 0; c < count; c++) if (score[candidates[c]] >= cut) near.push(candidates[c]);
    rescore(near);
    return near.sort((a, b) => (better(score, a, b) ? -1 : 1)).slice(from, to);
  }

  /** Scores `seqs` (documents that match every word) as FTS5 does: phrase by phrase in the query's order. */
  private rescore(inQueryOrder: Phrase[][], seqs: number[]): void {
    const norm = this.lists.lengthNorm;
    this.sumInOrder(
      inQueryOrder.flatMap((phrases) =>
        phrases.map((phrase) => {
          const probe = this.probeOf(phrase, seqs.length);
          if (probe) return (seq: number) => Math.max(0, probe(seq));
          const list = this.listOf(phrase);
          return (seq: number) => {
            const i = search(list.seqs, seq);
            return i < 0 ? 0 : list.scores ? list.scores[i] : phraseScore(list.idf ?? 0, list.frequencies![i], norm[seq]);
          };
        }),
      ),
      seqs,
    );
  }

  /**
   * A long list's score of a row id (-1: not in the list) without reading the list: when it is not
   * in memory and `candidates` are far fewer than its documents, its bit set tells membership, the
   * block starts and a pop count the posting's index, and only frequencies are read (`bitsList`).
   */
  private probeOf(phrase: Phrase, candidates: number): ((seq: number) => number) | null {
    const key = keyOf(phrase);
    if (this.cache.peek(key)) return null;
    const documents = this.lists.documentsOf(phrase.side, phrase.token);
    if (documents === null || documents < this.lazyFrom || candidates * RANKED_PROBE_RATIO >= documents) return null;
    const blocks = this.storedBlocks(phrase);
    if (!blocks?.bits) return null;
    const list = this.bitsListOf(phrase, blocks);
    const { blockBits } = this;
    const norm = this.lists.lengthNorm;
    return (seq) => scoreIn(list, seq, blockBits, norm);
  }

  /** A phrase's block data: cached, or as written with its list (null when the file has none for it). */
  private storedBlocks(phrase: Phrase): ListBlocks | null {
    const key = keyOf(phrase);
    let blocks = this.blockCache.get(key);
    if (!blocks) {
      const stored = this.lists.readBlocks(phrase.side, phrase.token);
      if (!stored) return null;
      this.blockCache.set(key, (blocks = stored), listBlocksBytes(stored));
    }
    return blocks;
  }

  /** Each of `seqs` scored as the sum of its phrases' scores, added in the order given (FTS5's: the query's). */
  private sumInOrder(phraseScores: ((seq: number) => number)[], seqs: number[]): void {
    for (const seq of seqs) {
      let sum = 0;
      for (const scoreOf of phraseScores) sum += scoreOf(seq);
      this.score[seq] = sum;
    }
  }

  /**
   * The page by block-max top-k. Scores are summed rarest word first; when that is not the query's
   * order, the near-ties at the page's edge are scored again in FTS5's order from the same blocks.
   */
  private blocked(words: Phrase[][], inQueryOrder: Phrase[][], filter: Int32Array | null, wanted: number) {
    const { maxSeq, lengthNorm } = this.lists;
    this.scratch ??= {
      score: this.score,
      matches: new Int32Array(bitSetWords(maxSeq)),
      wordBits: new Int32Array(bitSetWords(maxSeq)),
      keys: new Float64Array(blockCount(maxSeq)),
      bounds: new Float64Array(blockCount(maxSeq)),
      blockBits: this.blockBits,
    };
    const byKey = new Map<string, BlockedList>();
    const blockedList = (phrase: Phrase) => {
      const key = keyOf(phrase);
      let list = byKey.get(key);
      if (!list) byKey.set(key, (list = this.blockedList(phrase)));
      return list;
    };
    const blockedWords = words.map((phrases) => phrases.map(blockedList));
    const reordered = words.some((word, i) => word !== inQueryOrder[i]);
    const { blockBits } = this.scratch;
    const rescore = reordered
      ? (seqs: number[]) =>
          this.sumInOrder(
            inQueryOrder.flatMap((phrases) => phrases.map(blockedList)).map((list) => (seq) => Math.max(0, scoreIn(list, seq, blockBits, lengthNorm))),
            seqs,
          )
      : null;
    return blockedTopK(blockedWords, filter, wanted, lengthNorm, this.scratch, rescore, NEAR_TIE);
  }

  /**
   * A phrase's list for a blocked query: whole when cached, short or unlisted; else its block data
   * (as written with the list, or made from it once) and its postings read block by block.
   */
  private blockedList(phrase: Phrase): BlockedList {
    const key = keyOf(phrase);
    const documents = this.lists.documentsOf(phrase.side, phrase.token);
    const cached = this.cache.get(key);
    let blocks = this.storedBlocks(phrase);
    if (cached || documents === null || documents < this.lazyFrom) {
      const list = cached ?? this.listOf(phrase);
      if (!blocks) this.blockCache.set(key, (blocks = blocksOf(list, this.lists.lengthNorm, this.lists.maxSeq)), listBlocksBytes(blocks));
      return residentList(list, blocks);
    }
    if (!blocks?.bits) {
      const list = this.lists.read(phrase.side, phrase.token)!;
      blocks = blocksOf(list, this.lists.lengthNorm, this.lists.maxSeq, { alwaysBits: true, noScores: true });
      this.retired.push(list);
      this.blockCache.set(key, blocks, listBlocksBytes(blocks));
    }
    return this.bitsListOf(phrase, blocks);
  }

  private bitsListOf(phrase: Phrase, blocks: ListBlocks): BlockedList {
    const key = keyOf(phrase);
    const documents = this.lists.documentsOf(phrase.side, phrase.token)!;
    const whole = () => {
      const frequencies = this.lists.readFrequencies(phrase.side, phrase.token, 0, documents);
      if (frequencies.byteLength > this.frequencyCache.capacity / 8) this.retiredFrequencies.push(frequencies);
      else this.frequencyCache.set(key, frequencies, frequencies.byteLength);
      return frequencies;
    };
    const maxBlocks = this.frequencyBlocksMax ?? Math.floor((2 * documents) / BLOCK_READ_BYTES);
    return bitsList(this.lists, phrase, blocks, whole, this.frequencyCache.get(key) ?? null, maxBlocks);
  }

  private readonly listRanks = new WeakMap<PostingList, RankedBits>();

  /** A long list's bit set and rank directory, made on its first lookup and kept (and weighed) while the list is cached. */
  private rankedBitsOf(phrase: Phrase, list: PostingList): RankedBits {
    let ranked = this.listRanks.get(list);
    if (!ranked) {
      ranked = rankedBitsOf(list.seqs, this.lists.maxSeq);
      this.listRanks.set(list, ranked);
      if (this.cache.peek(keyOf(phrase)) === list) this.cache.addCost(keyOf(phrase), rankedBitsBytes(ranked));
    }
    return ranked;
  }

  /** Which host codes are `host` or one of its subdomains (kept for the last few sources asked for). */
  private hostsUnder(host: string): Uint8Array {
    let allowed = this.hostFilters.get(host);
    if (!allowed) {
      allowed = Uint8Array.from(this.lists.hosts, (candidate) => (hostSuffixes(candidate).includes(host) ? 1 : 0));
      if (this.hostFilters.size >= 64) this.hostFilters.delete(this.hostFilters.keys().next().value!);
      this.hostFilters.set(host, allowed);
    }
    return allowed;
  }

  /** The query's filters as a test of a row id, or null without filters (the same rules as fts-query.ts). */
  private filterOf(query: IndexQuery): ((seq: number) => boolean) | null {
    const { lists } = this;
    const { docType, docHost, docTopic, docNews, docAge } = lists;
    let types: Uint8Array | null = null;
    if (query.documentTypes?.length) {
      types = new Uint8Array(256);
      for (const type of query.documentTypes) if (lists.types.includes(type)) types[lists.types.indexOf(type)] = 1;
    }
    const hosts = query.host ? this.hostsUnder(query.host) : null;
    // Topic code 0 is "no topic": a topic nobody has matches nothing.
    const topic = query.topic ? lists.topics.indexOf(normalizeTopic(query.topic)) : -1;
    const news = Boolean(query.newsOnly);
    const minimumAge = query.minAgeDate ? ageKey(query.minAgeDate) : 0;
    if (!types && !hosts && topic < 0 && !news && !minimumAge) return query.topic ? () => false : null;
    return (seq) =>
      (!types || types[docType[seq]] === 1) &&
      (!hosts || hosts[docHost[seq]] === 1) &&
      (!query.topic || (topic > 0 && docTopic[seq] === topic)) &&
      (!news || docNews[seq] === 1) &&
      (!minimumAge || docAge[seq] >= minimumAge);
  }
}

/** Gives typed arrays' memory back now (their buffers become empty). */
function release(arrays: ({ buffer: ArrayBufferLike } | null | undefined)[]): void {
  for (const array of arrays) {
    const buffer = array?.buffer as ArrayBuffer | undefined;
    if (buffer && !buffer.detached) buffer.transfer(0);
  }
}

function keyOf(phrase: Phrase): string {
  return `${phrase.side}:${phrase.token}`;
}

function phrasesOf(term: QueryTerm): Phrase[] {
  return [{ side: 'exact', token: term.exact }, ...[...new Set(term.bases)].map((token) => ({ side: 'base' as const, token }))];
}

const EMPTY_FREQUENCIES = new Uint16Array(0);
/** Block data kept per reader (about 220 KB a long list at a million documents). */
const BLOCK_CACHE_BYTES = 96 * 2 ** 20;
/** Whole frequency arrays kept per reader (1.8 MB for a word in 900,000 documents). */
const FREQUENCY_CACHE_BYTES = 96 * 2 ** 20;
/**
 * The three caches admit a newcomer only over entries asked for less often (lru-cache.ts): a
 * sampled mix at a million documents cycles through more long lists than two serving threads
 * hold, and plain LRU then kept none of them until their next use (98 MiB read from the lists
 * file per round of the mix at a thread's half share, 0.3 MiB with admission and these sizes; at 100k nothing is read).
 */
const ADMISSION = { admission: true };
/** Lists shorter than this (384 KB) are read whole for a blocked query: one read costs less than a read per visited block. */
const LAZY_MIN_DOCUMENTS = 65_536;
/**
 * A list's frequencies are read one block at a time until the blocks read would weigh this much
 * (a read's own cost, about as much as copying 16 KiB), then all at once.
 */
const BLOCK_READ_BYTES = 16 * 1024;

/**
 * A long list with a bit set, as a blocked query or a probe reads it: its row ids are its bits, so
 * only its frequencies are read — a block's at a time while few blocks are visited (each once per
 * query), then all of them through `whole` (a third of the list's bytes), which keeps them in the
 * frequency cache. A posting's index is its block's first plus the bits before it there.
 */
function bitsList(lists: ScoreLists, phrase: Phrase, blocks: ListBlocks, whole: () => Uint16Array, cached: Uint16Array | null, maxBlocks: number): BlockedList {
  const documents = lists.documentsOf(phrase.side, phrase.token)!;
  const read = new Map<number, Uint16Array>();
  let all = cached;
  const at: BlockPostings = { seqs: null, frequencies: EMPTY_FREQUENCIES, scores: null, from: 0, to: 0 }; // refilled by every call
  return {
    blocks,
    idf: inverseDocumentFrequency(lists.rows, documents),
    seqs: null,
    postings(block) {
      const from = blocks.starts[block];
      const to = blocks.starts[block + 1];
      if (!all && read.size >= maxBlocks) all = whole();
      if (all) {
        at.frequencies = all;
        at.from = from;
        at.to = to;
        return at;
      }
      let frequencies = read.get(block);
      if (!frequencies) read.set(block, (frequencies = lists.readFrequencies(phrase.side, phrase.token, from, to)));
      at.frequencies = frequencies;
      at.from = 0;
      at.to = to - from;
      return at;
    },
  };
}

const BLOCKED_MIN_DOCUMENTS = 4096;
/** Deeper pages are selected from all matches: block bounds prune little when thousands of rows must be kept. */
const BLOCKED_MAX_WANTED = 2048;
/**
 * Sums of the same positive terms in another order differ by far less than this share (a query
 * has at most 30 words of a few phrases each): documents this close to the page's edge are
 * scored again in FTS5's order.
 */
export const NEAR_TIE = 2 ** -36;
/** A list is looked up by binary search rather than walked when it is this many times longer than the candidates. */
const PROBE_RATIO = 24;
/** A lookup in a bit set with ranks costs a few reads: worth it rather than a walk from this ratio on. */
const RANKED_PROBE_RATIO = 4;
const RANKED_MIN_DOCUMENTS = 1024;
/** A filter starts the candidates when its documents are at most this share of the first word's. */
const FACET_START_RATIO = 4;

/** The documents of a facet (one list per value) that pass every filter, ascending. */
function startFrom(parts: Uint32Array[], passes: (seq: number) => boolean): Uint32Array {
  const merged = mergeAscending(parts);
  const passing = new Uint32Array(merged.length);
  let count = 0;
  for (const seq of merged) if (passes(seq)) passing[count++] = seq;
  return passing.subarray(0, count);
}

/** The ascending union of ascending lists of row ids (disjoint: one facet's values). */
function mergeAscending(parts: Uint32Array[]): Uint32Array {
  if (parts.length === 0) return new Uint32Array(0);
  let merged = parts[0];
  for (const part of parts.slice(1)) {
    const out = new Uint32Array(merged.length + part.length);
    let i = 0;
    let j = 0;
    let k = 0;
    while (i < merged.length && j < part.length) out[k++] = merged[i] < part[j] ? merged[i++] : part[j++];
    while (i < merged.length) out[k++] = merged[i++];
    while (j < part.length) out[k++] = part[j++];
    merged = out;
  }
  return merged;
}

/** Index of `value` in the ascending `seqs`, or -1. */
function search(seqs: Uint32Array, value: number): number {
  return searchRange(seqs, 0, seqs.length, value);
}

/**
 * Rearranges items[low, high) so that items[k] is the one of rank k there, the better ones before
 * it and the worse after (quickselect: linear time on average).
 */
function select(items: Uint32Array, low: number, high: number, k: number, score: Float64Array): void {
  while (high - low > 1) {
    const middle = (low + high) >>> 1;
    // Median of three as the pivot.
    let a = items[low];
    let b = items[middle];
    const c = items[high - 1];
    if (better(score, b, a)) [a, b] = [b, a];
    const pivot = better(score, c, b) ? (better(score, c, a) ? a : c) : b;
    let i = low;
    let j = high - 1;
    while (i <= j) {
      while (better(score, items[i], pivot)) i++;
      while (better(score, pivot, items[j])) j--;
      if (i <= j) {
        const swap = items[i];
        items[i++] = items[j];
        items[j--] = swap;
      }
    }
    if (k <= j) high = j + 1;
    else if (k >= i) low = i;
    else return;
  }
}

/** Up to this many best items are kept in one pass with a sorted array; more by quickselect. */
const SMALL_WINDOW = 256;

/** The best `size` of the first `count` items, best first, in one pass (most items lose one comparison). */
function bestOf(items: Uint32Array, count: number, size: number, score: Float64Array): number[] {
  const best: number[] = [];
  for (let c = 0; c < count; c++) {
    const item = items[c];
    if (best.length === size && !better(score, item, best[size - 1])) continue;
    let low = 0;
    let high = best.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (better(score, best[middle], item)) low = middle + 1;
      else high = middle;
    }
    best.splice(low, 0, item);
    if (best.length > size) best.pop();
  }
  return best;
}

/** Below this many items, or when the window is over a quarter of them, quickselect goes over them all. */
const SAMPLED_MIN_ITEMS = 65_536;
/** Items whose scores estimate the window's lowest score. */
const SAMPLE_SIZE = 1024;

/**
 * Moves to the front of items[0, count) every item that scores at least an estimate of the score of
 * rank `end` (a low one, from a sample), and returns how many; `count` when fewer than `end` would
 * be kept (the estimate was too high). The items stay a permutation, so quickselect can then work on
 * the front only: the `end` best score at least the `end`-th best score, which is at least the
 * estimate whenever `end` items reach it. One pass of reads instead of quickselect's several.
 */
function keepLikelyBest(items: Uint32Array, count: number, end: number, score: Float64Array): number {
  const sample = new Float64Array(SAMPLE_SIZE);
  const stride = count / SAMPLE_SIZE;
  for (let s = 0; s < SAMPLE_SIZE; s++) sample[s] = score[items[Math.floor(s * stride)]];
  sample.sort();
  // The sample's rank of the window's end, lowered by a few standard deviations of its binomial spread.
  const expected = (end / count) * SAMPLE_SIZE;
  const rank = Math.ceil(expected + 4 * Math.sqrt(expected) + 8);
  if (rank >= SAMPLE_SIZE) return count;
  const threshold = sample[SAMPLE_SIZE - 1 - rank];
  let kept = 0;
  for (let i = 0; i < count; i++) {
    const item = items[i];
    if (score[item] >= threshold) {
      items[i] = items[kept];
      items[kept++] = item;
    }
  }
  return kept >= end ? kept : count;
}

/** The items of ranks [from, to) among the first `count`, best first. */
export function selectWindow(items: Uint32Array, count: number, from: number, to: number, score: Float64Array): number[] {
  const end = Math.min(to, count);
  if (from >= end) return [];
  if (end <= SMALL_WINDOW) return bestOf(items, count, end, score).slice(from);
  if (count >= SAMPLED_MIN_ITEMS && 4 * end <= count) count = keepLikelyBest(items, count, end, score);
  if (end < count) select(items, 0, count, end, score);
  if (from > 0) select(items, 0, end, from, score);
  return sortedBest(items.subarray(from, end), score);
}

/**
 * The items best first (better()'s order). Their scores are copied next to each other first: sorting
 * thousands of items read the large score array at random many times over.
 */
function sortedBest(items: Uint32Array, score: Float64Array): number[] {
  const n = items.length;
  const scores = new Float64Array(n);
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    scores[i] = score[items[i]];
    order[i] = i;
  }
  // Scores are finite: their difference has the sign of their comparison; equal scores go by row id.
  order.sort((a, b) => scores[b] - scores[a] || items[a] - items[b]);
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) out[i] = items[order[i]];
  return out;
}

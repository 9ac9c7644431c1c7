// German text analysis for the index (SQLite FTS5, Typesense) and for queries.
//
// Every word is indexed twice: its `exact` form (folded surface) in one
// column, its `bases` (stem after umlaut folding, plus the stems of its
// compound parts) in another. A query term matches when its exact form
// equals a document word's exact form, or one of its bases is among a
// document word's bases. See DESIGN.md §4.
//
// Query terms contain only Unicode letters and digits, so FTS-special input
// (quotes, *, ^, parentheses, NEAR/AND/OR written as operators) cannot reach
// the index as syntax: punctuation is dropped, and words are lowercased
// (FTS5 keywords are uppercase only). A query of punctuation alone yields [].
import { baseForm, baseFormOfNewWord } from './base-form.ts';
import { BoundedCache } from './bounded-cache.ts';
import { compoundParts, MAX_SPLIT_LENGTH, splitCompound } from './compounds.ts';
import { foldExact, foldForStemming, restoreUmlauts } from './fold.ts';
import {
  astralWordLength, cleanWord, HIGH_SURROGATE, isComplexGroup, isJoinerCode, joinedForms, NOT_WORD, PLAIN_WORD, scanGroups, splitGroup, tokenize,
  unitClasses,
} from './tokenize.ts';
import { BASE, EXACT, HAS_PARTS, HASH_START, hashOf, hashStep, KEY, NO_OUTPUT, PARTS, STRIDE, WIDE, WordTable } from './word-table.ts';
import { otherNounForms } from './word-forms.ts';
import type { Segment } from './tokenize.ts';

export type { Token } from './tokenize.ts';
export { foldExact, tokenize };

export interface AnalyzedWord { exact: string; bases: string[] }
export interface AnalyzedText { exact: string; base: string }
export interface QueryTerm { text: string; exact: string; bases: string[] }

interface CachedWord { exact: string; bases: readonly string[] }

// Word analyses are pure functions of the surface word; running text repeats
// words heavily, so a bounded cache keeps ingestion fast.
const CACHE_LIMIT = 200_000;
const EMPTY: CachedWord = { exact: '', bases: [] };
const words = new WordTable<CachedWord>(CACHE_LIMIT, computeWord);

function analyzeCached(word: string): CachedWord {
  return words.value(word);
}

function computeWord(word: string): CachedWord {
  const clean = cleanWord(word);
  const exact = foldExact(clean);
  if (!exact) return EMPTY;
  const lower = foldForStemming(clean);
  const bases = new Set([baseFormOfNewWord(lower)]);
  // The word's own split is the first step of its parts and gives the runs below: taken once.
  const parts = splitCompound(lower) ?? [];
  for (const part of compoundParts(lower, parts)) {
    // Modifiers by their lemma (Bücher|regal → buch); a head also as written,
    // so that its inflection is stemmed the way a query is (Studentinnen).
    bases.add(baseForm(part.lemma));
    if (part.head) bases.add(baseForm(part.surface));
  }
  // Runs of adjacent parts are words too: Schul|weg|plan holds "Schulweg" and "Wegplan",
  // Abfall|gebühren|satzung holds "Gebührensatzung".
  for (let from = 0; from < parts.length; from++) {
    for (let to = from + 2; to <= parts.length; to++) {
      if (from === 0 && to === parts.length) continue;
      bases.add(baseForm(parts.slice(from, to).map((part) => part.surface).join('')));
    }
  }
  const list = [...bases];
  return { exact, bases: list };
}

/** Index-side analysis of one surface word: exact form, base form and compound-part bases. */
export function analyzeWord(word: string): AnalyzedWord {
  const { exact, bases } = analyzeCached(word);
  return { exact, bases: [...bases] };
}

/** The two token streams of a text, space-separated, for the exact and the base column (compound parts once). */
export function analyzeForIndex(text: string): AnalyzedText {
  // Nearly every German text's streams are Latin-1: written as bytes. Others are joined as strings.
  return analyzeToBytes(text) ?? analyzeToStrings(text);
}

/**
 * Longer words (a run of letters and digits in a data URL, a hostile token) are analysed each time
 * they occur, not kept: the word table would copy each to no use, and German words are far shorter.
 */
const LONGEST_KEPT_WORD = 256;
const LONG_WORD = -2;

/**
 * The word table's entry of every index token of a text, in order (the tokens of tokenize()), one
 * per next() call: a group of plain word characters (nearly all) is hashed while it is read and
 * looked up where it stands; other groups take the careful path of tokenize(). An entry is valid in
 * words.current until the next call.
 */
class WordScanner {
  private readonly text: string;
  private readonly classes = unitClasses();
  private i = 0;
  /** Tokens of a complex group still to be looked up (one by one: a new word may turn the table over, moving the entries). */
  private pending: string[] = [];
  private pendingAt = 0;
  /** The analysis of the token when next() returned LONG_WORD. */
  long: CachedWord = EMPTY;

  constructor(text: string) {
    this.text = text;
  }

  /** The next token's entry, LONG_WORD (its analysis in `long`), or -1 at the end of the text. */
  next(): number {
    if (this.pendingAt < this.pending.length) return entryOf(this.pending[this.pendingAt++]);
    const text = this.text;
    const classes = this.classes;
    const n = text.length;
    let i = this.i;
    while (i < n) {
      let k = classes[text.charCodeAt(i)];
      if (k === NOT_WORD || (k === HIGH_SURROGATE && astralWordLength(text, i) === 0)) {
        i++;
        continue;
      }
      // The groups of scanGroups.
      const start = i;
      let plain = true;
      let hash = HASH_START;
      for (;;) {
        if (k === PLAIN_WORD) {
          hash = hashStep(hash, text.charCodeAt(i));
          i++;
        } else {
          plain = false;
          i += k === HIGH_SURROGATE ? 2 : 1;
        }
        if (i >= n) break;
        k = classes[text.charCodeAt(i)];
        if (k === PLAIN_WORD) continue;
        if (k === HIGH_SURROGATE ? astralWordLength(text, i) > 0 : k !== NOT_WORD) continue;
        // A joiner belongs to the group only between two word characters.
        if (isJoinerCode(text.charCodeAt(i)) && i + 1 < n) {
          const next = classes[text.charCodeAt(i + 1)];
          if (next === HIGH_SURROGATE ? astralWordLength(text, i + 1) > 0 : next !== NOT_WORD) {
            plain = false;
            i++;
            k = next;
            continue;
          }
        }
        break;
      }
      this.i = i;
      if (plain && i - start > LONGEST_KEPT_WORD) {
        this.long = computeWord(text.slice(start, i));
        return LONG_WORD;
      }
      if (plain) return words.get(text, start, i, hash);
      return this.complexGroup(text.slice(start, i), start);
    }
    this.i = i;
    return -1;
  }

  private complexGroup(raw: string, start: number): number {
    if (!isComplexGroup(raw)) return entryOf(raw);
    const segments = splitGroup(raw, start);
    this.pending = [...segments, ...joinedForms(segments)].map((token) => token.word);
    this.pendingAt = 0;
    return this.next();
  }
}

function entryOf(word: string): number {
  return words.get(word, 0, word.length, hashOf(word));
}

/** Output buffers of analyzeToBytes, reused from text to text (kept only up to KEPT_BUFFER bytes). */
let exactBytes: Buffer = Buffer.allocUnsafe(1 << 16);
let baseBytes: Buffer = Buffer.allocUnsafe(1 << 16);
const KEPT_BUFFER = 1 << 22;

function room(buffer: Buffer, used: number, needed: number): Buffer {
  if (used + needed <= buffer.length) return buffer;
  const bigger = Buffer.allocUnsafe(Math.max(2 * buffer.length, used + needed));
  buffer.copy(bigger, 0, 0, used);
  return bigger;
}

/**
 * analyzeForIndex writing both streams as Latin-1 bytes straight from the word table; undefined
 * when some output is not Latin-1 (then the strings are joined instead), or when the table turned
 * over to a new generation during the text (its part ids, which tell the parts already written, are
 * per generation).
 */
function analyzeToBytes(text: string): AnalyzedText | undefined {
  let exact = exactBytes;
  let base = baseBytes;
  let exactUsed = 0;
  let baseUsed = 0;
  const table = words.current;
  // A word's own base counts at every occurrence, the bases of its compound parts once per text: a
  // page that repeats "Verwaltungsgericht" thirty times is about that court, not thirty times about
  // "Verwaltung", and must not bury the pages that use the word itself (word forms found in the top
  // 50 on the shared corpus: 93.8 → 94.5 %, compound parts and key terms unchanged).
  const serial = ++table.serial;
  let complete = true;
  const scanner = new WordScanner(text);
  for (let entry = scanner.next(); entry !== -1; entry = scanner.next()) {
    if (entry === LONG_WORD) {
      // Never split (longer than MAX_SPLIT_LENGTH): one base.
      const { exact: word, bases } = scanner.long;
      if (!word) continue;
      if (bases.length !== 1) {
        complete = false;
        break;
      }
      exact = room(exact, exactUsed, word.length + 1);
      base = room(base, baseUsed, bases[0].length + 1);
      if (exactUsed > 0) {
        exact[exactUsed++] = 0x20;
        base[baseUsed++] = 0x20;
      }
      let units = 0;
      for (let i = 0; i < word.length; i++) units |= exact[exactUsed++] = word.charCodeAt(i);
      for (let i = 0; i < bases[0].length; i++) units |= base[baseUsed++] = bases[0].charCodeAt(i);
      if (units > 0xff) {
        complete = false;
        break;
      }
      continue;
    }
    if (words.current !== table) {
      complete = false;
      break;
    }
    const flags = table.flags[entry];
    if (flags & NO_OUTPUT) continue;
    if (flags & WIDE) {
      complete = false;
      break;
    }
    const { meta, units } = table;
    const at = STRIDE * entry;
    const from = meta[at + EXACT];
    const middle = meta[at + BASE];
    const to = meta[at + STRIDE + KEY];
    if (exactUsed + middle - from >= exact.length) exact = room(exact, exactUsed, middle - from + 1);
    if (baseUsed + to - middle >= base.length) base = room(base, baseUsed, to - middle + 1);
    if (exactUsed > 0) {
      exact[exactUsed++] = 0x20;
      base[baseUsed++] = 0x20;
    }
    for (let i = from; i < middle; i++) exact[exactUsed++] = units[i];
    for (let i = middle; i < to; i++) base[baseUsed++] = units[i];
    if ((flags & HAS_PARTS) === 0) continue;
    const { partIds, partSeen, partAt, partChars } = table;
    for (let p = meta[at + PARTS], last = meta[at + STRIDE + PARTS]; p < last; p++) {
      const id = partIds[p];
      if (partSeen[id] === serial) continue;
      partSeen[id] = serial;
      const partFrom = partAt[id];
      const partTo = partAt[id + 1];
      if (baseUsed + partTo - partFrom >= base.length) base = room(base, baseUsed, partTo - partFrom + 1);
      base[baseUsed++] = 0x20;
      for (let i = partFrom; i < partTo; i++) base[baseUsed++] = partChars[i];
    }
  }
  if (exact.length <= KEPT_BUFFER) exactBytes = exact;
  if (base.length <= KEPT_BUFFER) baseBytes = base;
  if (!complete) return undefined;
  return { exact: exact.toString('latin1', 0, exactUsed), base: base.toString('latin1', 0, baseUsed) };
}

/** analyzeForIndex joining strings: for texts with output beyond Latin-1. */
function analyzeToStrings(text: string): AnalyzedText {
  const exact: string[] = [];
  const base: string[] = [];
  let seenParts: Set<string> | undefined;
  const scanner = new WordScanner(text);
  for (let entry = scanner.next(); entry !== -1; entry = scanner.next()) {
    const { exact: word, bases } = entry === LONG_WORD ? scanner.long : words.current.values[entry];
    if (!word) continue;
    exact.push(word);
    base.push(bases[0]);
    for (let b = 1; b < bases.length; b++) {
      const part = bases[b];
      seenParts ??= new Set();
      if (seenParts.has(part)) continue;
      seenParts.add(part);
      base.push(part);
    }
  }
  return { exact: exact.join(' '), base: base.join(' ') };
}

/** Query words of a group: split at hyphens (one term per part), joined across apostrophes (geht's). */
function queryWords(segments: readonly Segment[]): string[] {
  const words: string[] = [];
  for (const segment of segments) {
    if (segment.joiner === 'apostrophe' && words.length > 0) words[words.length - 1] += segment.word;
    else words.push(segment.word);
  }
  return words;
}

/**
 * Alternative base keys of one whole query word: its stem; the stem of its
 * umlaut reading when written with ae/oe/ue (Mueller → Müller); and the stems
 * of its neighbouring inflected forms, because Snowball stems some pairs
 * apart (Fenster → fen but Fensters → fenst; Beamtin/Beamtinnen;
 * Nachbar/Nachbarn), and of the forms word-forms.ts finds with the noun
 * lexicon (Zentren/Zentrum, Kurse/Kurs). Each extra key is the stem of a real
 * form of the same word, so it can only meet the same word in a text.
 */
function queryBases(lower: string): string[] {
  // Query words repeat: the forms of a word are looked up in the lexicon once, then served from a
  // bounded cache, the oldest dropped first (the look-ups of word-forms.ts and the compound
  // splitter were about 5 % of a search's CPU at 100k documents).
  return [...queryCache.get(lower, computeQueryBases)];
}

const QUERY_CACHE_LIMIT = 20_000;
const queryCache = new BoundedCache<readonly string[]>(QUERY_CACHE_LIMIT);

function computeQueryBases(lower: string): string[] {
  const forms = [lower];
  // A token longer than any word (hostile input) gets its own stem only.
  if (lower.length > MAX_SPLIT_LENGTH) return [baseForm(lower)];
  // Short words (E in E-Mail, "es") would reach unrelated short stems.
  if (lower.length >= 4) forms.push(lower + 's', lower + 'e', lower + 'es');
  if (lower.length >= 4 && !lower.endsWith('n')) forms.push(lower + 'n');
  if (lower.endsWith('in')) forms.push(lower + 'nen');
  if (lower.endsWith('innen')) forms.push(lower.slice(0, -3));
  if (/[^s]s$/.test(lower) && lower.length >= 5) forms.push(lower.slice(0, -1));
  if (/[lr]n$/.test(lower) && lower.length >= 5) forms.push(lower.slice(0, -1));
  // Forms the stemmer cannot reach: loan-word plurals (Zentren/Zentrum), over-stemmed singulars (Kurse/Kurs).
  forms.push(...otherNounForms(lower));
  const bases = new Set(forms.map(baseForm));
  const umlautReading = restoreUmlauts(lower);
  if (umlautReading !== lower) bases.add(baseForm(umlautReading));
  return [...bases];
}

/**
 * One term per query word, with the alternative bases of the whole word (see
 * queryBases). No compound parts here: a query for "Bundestagswahl" must not
 * match a text that only says "Wahl". Repeated words give one term.
 */
export function analyzeQuery(q: string): QueryTerm[] {
  const terms: QueryTerm[] = [];
  const seen = new Set<string>();
  const groups: number[] = [];
  scanGroups(q, (start, end) => groups.push(start, end));
  for (let i = 0; i < groups.length; i += 2) {
    const raw = q.slice(groups[i], groups[i + 1]);
    const words = isComplexGroup(raw) ? queryWords(splitGroup(raw, groups[i])) : [cleanWord(raw)];
    for (const text of words) {
      const exact = foldExact(text);
      if (!exact || seen.has(exact)) continue;
      seen.add(exact);
      terms.push({ text, exact, bases: queryBases(foldForStemming(text)) });
    }
  }
  return terms;
}

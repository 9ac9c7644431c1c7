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
import { baseForm } from './base-form.ts';
import { BoundedCache } from './bounded-cache.ts';
import { compoundParts, MAX_SPLIT_LENGTH, splitCompound } from './compounds.ts';
import { foldExact, foldForStemming, restoreUmlauts } from './fold.ts';
import { cleanWord, isComplexGroup, joinedForms, scanGroups, splitGroup, tokenize } from './tokenize.ts';
import { otherNounForms } from './word-forms.ts';
import type { Segment } from './tokenize.ts';

export type { Token } from './tokenize.ts';
export { foldExact, tokenize };

export interface AnalyzedWord { exact: string; bases: string[] }
export interface AnalyzedText { exact: string; base: string }
export interface QueryTerm { text: string; exact: string; bases: string[] }

interface CachedWord { exact: string; bases: readonly string[]; basesText: string }

// Word analyses are pure functions of the surface word; running text repeats
// words heavily, so a bounded cache keeps ingestion fast.
const CACHE_LIMIT = 200_000;
const cache = new BoundedCache<CachedWord>(CACHE_LIMIT);
const EMPTY: CachedWord = { exact: '', bases: [], basesText: '' };

function analyzeCached(word: string): CachedWord {
  return cache.get(word, computeWord);
}

function computeWord(word: string): CachedWord {
  const clean = cleanWord(word);
  const exact = foldExact(clean);
  if (!exact) return EMPTY;
  const lower = foldForStemming(clean);
  const bases = new Set([baseForm(lower)]);
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
  return { exact, bases: list, basesText: list.join(' ') };
}

/** Index-side analysis of one surface word: exact form, base form and compound-part bases. */
export function analyzeWord(word: string): AnalyzedWord {
  const { exact, bases } = analyzeCached(word);
  return { exact, bases: [...bases] };
}

/** The two token streams of a text, space-separated, for the exact and the base column (compound parts once). */
export function analyzeForIndex(text: string): AnalyzedText {
  let exact = '';
  let base = '';
  // A word's own base counts at every occurrence, the bases of its compound parts once per text: a
  // page that repeats "Verwaltungsgericht" thirty times is about that court, not thirty times about
  // "Verwaltung", and must not bury the pages that use the word itself (word forms found in the top
  // 50 on the shared corpus: 93.8 → 94.5 %, compound parts and key terms unchanged).
  const seenParts = new Set<string>();
  const add = (word: string): void => {
    const analysis = analyzeCached(word);
    if (!analysis.exact) return;
    if (exact) {
      exact += ' ';
      base += ' ';
    }
    exact += analysis.exact;
    if (analysis.bases.length === 1) {
      base += analysis.basesText;
      return;
    }
    base += analysis.bases[0];
    for (let i = 1; i < analysis.bases.length; i++) {
      const part = analysis.bases[i];
      if (seenParts.has(part)) continue;
      seenParts.add(part);
      base += ' ' + part;
    }
  };
  scanGroups(text, (start, end, maybeComplex) => {
    const raw = text.slice(start, end);
    if (!maybeComplex || !isComplexGroup(raw)) {
      add(raw);
      return;
    }
    const segments = splitGroup(raw, start);
    for (const segment of segments) add(segment.word);
    for (const join of joinedForms(segments)) add(join.word);
  });
  return { exact, base };
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

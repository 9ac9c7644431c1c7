import { analyzeWord, tokenize, type QueryTerm } from './analysis/index.ts';
import { LruCache } from './lru-cache.ts';

// Snippets are plain text around the matched words (spec 2, SearchHit.snippet). Matching uses the
// same analysis as the index, so "Häuser" highlights "Hauses" and "Wahl" finds "Bundestagswahl".

export const SNIPPET_LENGTH = 240;
const SCAN_LIMIT = 500_000; // characters: a snippet never needs to read a whole book
const FALLBACK_SCAN = 50_000;
const MAX_MATCHES = 400;
/** Candidate words a query remembers the term of (a page's texts repeat them). */
const MAX_KNOWN_WORDS = 4096;

export interface TermMatch {
  start: number;
  end: number;
  term: number;
}

const WORD_CHAR = /[\p{L}\p{N}\p{M}]/u;

function termIndexOf(word: string, terms: QueryTerm[]): number {
  const analysis = analyzeWord(word);
  return terms.findIndex((t) => t.exact === analysis.exact || t.bases.some((b) => analysis.bases.includes(b)));
}

/** Per query (the hits of a page share its terms): the term index of each candidate word seen, -1 for none. */
const termIndexesOf = new WeakMap<QueryTerm[], Map<string, number>>();

function knownTermIndexes(terms: QueryTerm[]): Map<string, number> {
  let known = termIndexesOf.get(terms);
  if (!known) {
    known = new Map();
    termIndexesOf.set(terms, known);
  }
  return known;
}

function escapeRegExp(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A folded form as a pattern over raw text: "mueller" also matches "Müller", "strasse" "Straße". */
function foldedPattern(folded: string): string {
  return escapeRegExp(folded)
    .replace(/ae|oe|ue|ss|a|o|u/g, (m) => ({ ae: '(?:ae|ä)', oe: '(?:oe|ö)', ue: '(?:ue|ü)', ss: '(?:ss|ß)', a: '[aä]', o: '[oö]', u: '[uü]' })[m]!);
}

/** Looked up once per query (the hits of a page share its terms). */
const patterns = new WeakMap<QueryTerm[], RegExp>();
/**
 * Patterns by their forms, across queries: building and compiling one (case-insensitive, Unicode)
 * cost about as much as a snippet, and the same words come again in other searches.
 */
const patternsByForms = new LruCache<string, RegExp>(500);

function candidatePattern(terms: QueryTerm[]): RegExp {
  let pattern = patterns.get(terms);
  if (!pattern) {
    const forms = [...new Set(terms.flatMap((t) => [t.exact, ...t.bases]).filter((f) => f.length >= 2))].sort((a, b) => b.length - a.length);
    const key = forms.join('\u0000');
    pattern = patternsByForms.get(key);
    if (!pattern) {
      pattern = new RegExp(forms.map(foldedPattern).join('|'), 'giu');
      patternsByForms.set(key, pattern);
    }
    patterns.set(terms, pattern);
  }
  return pattern;
}

/** Math.min of the array without spreading it (spreading copied it once per candidate word). */
function earliest(values: number[]): number {
  let least = Infinity;
  for (const value of values) if (value < least) least = value;
  return least;
}

/**
 * Where the query terms occur in `text` (exact or word form), in text order. A regular expression
 * over the raw text finds candidate words (exact forms and stems, also inside compounds); only
 * those words are analysed, so long documents cost little.
 */
export function findTermMatches(text: string, terms: QueryTerm[], scanLimit = SCAN_LIMIT, stopWithin?: number): TermMatch[] {
  if (terms.length === 0) return [];
  const scanned = text.length > scanLimit ? text.slice(0, scanLimit) : text;
  const candidates = candidatePattern(terms);
  candidates.lastIndex = 0;
  const matches: TermMatch[] = [];
  // With `stopWithin`, scanning ends at the first stretch of that many characters holding every term.
  const lastSeen = new Array<number>(terms.length).fill(-Infinity);
  let lastStart = -1;
  const known = knownTermIndexes(terms);
  for (const candidate of scanned.matchAll(candidates)) {
    let start = candidate.index;
    let end = start + candidate[0].length;
    while (start > 0 && WORD_CHAR.test(scanned[start - 1])) start--;
    while (end < scanned.length && WORD_CHAR.test(scanned[end])) end++;
    if (start === lastStart) continue;
    lastStart = start;
    const word = scanned.slice(start, end);
    let term = known.get(word);
    if (term === undefined) {
      term = termIndexOf(word, terms);
      if (known.size < MAX_KNOWN_WORDS) known.set(word, term);
    }
    if (term < 0) continue;
    matches.push({ start, end, term });
    if (matches.length >= MAX_MATCHES) break;
    lastSeen[term] = start;
    if (stopWithin !== undefined && end - earliest(lastSeen) <= stopWithin) break;
  }
  if (matches.length > 0) return matches;
  // Irregular forms whose stem is not a substring of the word (rare): analyse word by word.
  for (const token of tokenize(scanned.length > FALLBACK_SCAN ? scanned.slice(0, FALLBACK_SCAN) : scanned)) {
    const term = termIndexOf(token.word, terms);
    if (term >= 0) matches.push({ start: token.start, end: token.end, term });
  }
  return matches;
}

const SPACE = /\s/;

/**
 * Every run of whitespace as one space, like `.replace(/\s+/g, ' ')`, but a lone space — most of
 * them in running text — is no match: a window of plain prose is returned as it is instead of
 * being rebuilt around each of its spaces (that was about a third of a search's allocation).
 */
const SPACE_TO_COLLAPSE = /\s\s+|[^\S ]/g;

function collapseSpaces(text: string): string {
  return text.replace(SPACE_TO_COLLAPSE, ' ');
}

/** Moves `index` back to the start of its word when that is near (else a long word is cut). */
function cutAtWordStart(text: string, index: number): number {
  if (index <= 0) return 0;
  for (let i = index; i >= 0 && index - i <= 30; i--) if (SPACE.test(text[i])) return i + 1;
  return index;
}

function cutAtWordEnd(text: string, index: number): number {
  if (index >= text.length) return text.length;
  const space = text.indexOf(' ', index);
  return space < 0 || space - index > 30 ? index : space;
}

/** The index `steps` characters before `index`, counting a run of whitespace as one character. */
function stepBack(text: string, index: number, steps: number): number {
  let i = index;
  for (; steps > 0 && i > 0; steps--) {
    i--;
    while (i > 0 && SPACE.test(text[i]) && SPACE.test(text[i - 1])) i--;
  }
  return i;
}

function hasTextBetween(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (!SPACE.test(text[i])) return true;
  return false;
}

/**
 * The window of `length` characters (whitespace collapsed) that covers the most distinct terms,
 * earliest first. Matches are found in the raw text and only the window is normalised: collapsing
 * the whitespace of the whole text cost more than finding the matches in it.
 */
export function makeSnippet(text: string, terms: QueryTerm[], length = SNIPPET_LENGTH): string {
  const matches = findTermMatches(text, terms, SCAN_LIMIT, length * 0.8);
  let best = { start: 0, covered: 0 };
  for (let i = 0; i < matches.length; i++) {
    const covered = new Set<number>();
    for (let j = i; j < matches.length && matches[j].end - matches[i].start <= length * 0.8; j++) covered.add(matches[j].term);
    if (covered.size > best.covered) best = { start: matches[i].start, covered: covered.size };
    if (covered.size === terms.length) break;
  }
  let start = cutAtWordStart(text, best.covered ? stepBack(text, best.start, 60) : 0);
  while (start < text.length && SPACE.test(text[start])) start++;
  // Raw text long enough to give `length` collapsed characters and the rest of the last word.
  let rawEnd = Math.min(text.length, start + 2 * length);
  let piece = collapseSpaces(text.slice(start, rawEnd));
  while (piece.length < length + 32 && rawEnd < text.length) {
    rawEnd = Math.min(text.length, rawEnd + 4 * length);
    piece = collapseSpaces(text.slice(start, rawEnd));
  }
  const end = cutAtWordEnd(piece, Math.min(piece.length, length));
  const before = hasTextBetween(text, 0, start);
  const after = hasTextBetween(piece, end, piece.length) || hasTextBetween(text, rawEnd, text.length);
  return `${before ? '…' : ''}${piece.slice(0, end).trim()}${after ? ' …' : ''}`;
}

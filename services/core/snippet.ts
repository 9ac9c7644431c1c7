import { analyzeWord, tokenize, type QueryTerm } from './analysis/index.ts';

// Snippets are plain text around the matched words (spec 2, SearchHit.snippet). Matching uses the
// same analysis as the index, so "Häuser" highlights "Hauses" and "Wahl" finds "Bundestagswahl".

export const SNIPPET_LENGTH = 240;
const SCAN_LIMIT = 500_000; // characters: a snippet never needs to read a whole book
const FALLBACK_SCAN = 50_000;
const MAX_MATCHES = 400;

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

function escapeRegExp(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A folded form as a pattern over raw text: "mueller" also matches "Müller", "strasse" "Straße". */
function foldedPattern(folded: string): string {
  return escapeRegExp(folded)
    .replace(/ae|oe|ue|ss|a|o|u/g, (m) => ({ ae: '(?:ae|ä)', oe: '(?:oe|ö)', ue: '(?:ue|ü)', ss: '(?:ss|ß)', a: '[aä]', o: '[oö]', u: '[uü]' })[m]!);
}

/**
 * Where the query terms occur in `text` (exact or word form), in text order. A regular expression
 * over the raw text finds candidate words (exact forms and stems, also inside compounds); only
 * those words are analysed, so long documents cost little.
 */
export function findTermMatches(text: string, terms: QueryTerm[], scanLimit = SCAN_LIMIT, stopWithin?: number): TermMatch[] {
  if (terms.length === 0) return [];
  const scanned = text.length > scanLimit ? text.slice(0, scanLimit) : text;
  const forms = [...new Set(terms.flatMap((t) => [t.exact, ...t.bases]).filter((f) => f.length >= 2))].sort((a, b) => b.length - a.length);
  const candidates = new RegExp(forms.map(foldedPattern).join('|'), 'giu');
  const matches: TermMatch[] = [];
  // With `stopWithin`, scanning ends at the first stretch of that many characters holding every term.
  const lastSeen = new Array<number>(terms.length).fill(-Infinity);
  let lastStart = -1;
  for (const candidate of scanned.matchAll(candidates)) {
    let start = candidate.index;
    let end = start + candidate[0].length;
    while (start > 0 && WORD_CHAR.test(scanned[start - 1])) start--;
    while (end < scanned.length && WORD_CHAR.test(scanned[end])) end++;
    if (start === lastStart) continue;
    lastStart = start;
    const term = termIndexOf(scanned.slice(start, end), terms);
    if (term < 0) continue;
    matches.push({ start, end, term });
    if (matches.length >= MAX_MATCHES) break;
    lastSeen[term] = start;
    if (stopWithin !== undefined && end - Math.min(...lastSeen) <= stopWithin) break;
  }
  if (matches.length > 0) return matches;
  // Irregular forms whose stem is not a substring of the word (rare): analyse word by word.
  for (const token of tokenize(scanned.length > FALLBACK_SCAN ? scanned.slice(0, FALLBACK_SCAN) : scanned)) {
    const term = termIndexOf(token.word, terms);
    if (term >= 0) matches.push({ start: token.start, end: token.end, term });
  }
  return matches;
}

function cutAtWordStart(text: string, index: number): number {
  if (index <= 0) return 0;
  const space = text.lastIndexOf(' ', index);
  return space < 0 || index - space > 30 ? index : space + 1;
}

function cutAtWordEnd(text: string, index: number): number {
  if (index >= text.length) return text.length;
  const space = text.indexOf(' ', index);
  return space < 0 || space - index > 30 ? index : space;
}

/** The window of `length` characters that covers the most distinct terms, earliest first. */
export function makeSnippet(rawText: string, terms: QueryTerm[], length = SNIPPET_LENGTH): string {
  const text = rawText.replace(/\s+/g, ' ').trim();
  if (!text) return '';
  const matches = findTermMatches(text, terms, SCAN_LIMIT, length * 0.8);
  let best = { start: 0, covered: 0 };
  for (let i = 0; i < matches.length; i++) {
    const covered = new Set<number>();
    for (let j = i; j < matches.length && matches[j].end - matches[i].start <= length * 0.8; j++) covered.add(matches[j].term);
    if (covered.size > best.covered) best = { start: matches[i].start, covered: covered.size };
    if (covered.size === terms.length) break;
  }
  const lead = best.covered ? Math.min(60, best.start) : 0;
  const start = cutAtWordStart(text, best.start - lead);
  const end = cutAtWordEnd(text, Math.min(text.length, start + length));
  return `${start > 0 ? '…' : ''}${text.slice(start, end).trim()}${end < text.length ? ' …' : ''}`;
}

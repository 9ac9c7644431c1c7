import { analyzeWord, tokenize, type QueryTerm } from './analysis/index.ts';

// Snippets are plain text around the matched words (spec 2, SearchHit.snippet). Matching uses the
// same analysis as the index, so "Häuser" highlights "Hauses" and "Wahl" finds "Bundestagswahl".

export const SNIPPET_LENGTH = 240;
const SCAN_LIMIT = 200_000; // characters: a snippet never needs to read a whole book

export interface TermMatch {
  start: number;
  end: number;
  term: number;
}

/** Where the query terms occur in `text` (exact or word form), in text order. */
export function findTermMatches(text: string, terms: QueryTerm[], scanLimit = SCAN_LIMIT): TermMatch[] {
  if (terms.length === 0) return [];
  const matches: TermMatch[] = [];
  const scanned = text.length > scanLimit ? text.slice(0, scanLimit) : text;
  for (const token of tokenize(scanned)) {
    const word = analyzeWord(token.word);
    const term = terms.findIndex((t) => t.exact === word.exact || t.bases.some((b) => word.bases.includes(b)));
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
  const matches = findTermMatches(text, terms);
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

// Unicode word scanning. A "group" is a run of word characters (letters,
// digits, combining marks, invisible format characters such as the soft
// hyphen: [\p{L}\p{N}\p{M}\p{Cf}]) whose pieces may be joined by hyphens
// or apostrophes (- ‐ ‑ ' ’ ʼ ´ `): "E-Mail-Adresse", "geht's", "ISO-8859-1".

export interface Token { word: string; start: number; end: number }

/** What stood before a piece of a group. */
export type Joiner = 'none' | 'hyphen' | 'apostrophe';
/** One hyphen/apostrophe-separated piece of a group, already cleaned. */
export interface Segment { word: string; start: number; end: number; joiner: Joiner }

const HAS_JOINER = /[\-\u2010\u2011'\u2019\u02BC\u00B4\u0060]/;
const IS_HYPHEN = /[\-\u2010\u2011]/;
const SPLIT_JOINERS = /[\-\u2010\u2011'\u2019\u02BC\u00B4\u0060]/;
const FORMAT_CHARS = /\p{Cf}/gu;
const HAS_FORMAT_CHAR = /\p{Cf}/u;
const NON_ASCII = /[^\x00-\x7f]/;
// Scripts written without spaces between words: each character is a token,
// so that a query in those scripts can still match inside running text.
const UNSPACED_CHAR = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
const UNSPACED_SPLIT = /([\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}])/u;
const ONLY_DIGITS = /^\p{N}+$/u;

/** Letters, digits, combining marks and invisible format characters. */
const WORD_CLASS = '[\\p{L}\\p{N}\\p{M}\\p{Cf}]';
const WORD_CHAR = new RegExp(`^${WORD_CLASS}$`, 'u');

/** Word character classes of BMP code units (see unitClasses), built once on first use. */
let bmpClasses: Uint8Array | undefined;

/** Not a word character (nor the start of one). */
export const NOT_WORD = 0;
/** A word character that needs nothing but itself: the group stays on the one-token fast path. */
export const PLAIN_WORD = 1;
/** A word character that sends its group to the careful path: a format character, a joiner, or one of a script written without spaces. */
export const SPECIAL_WORD = 2;
/** A high surrogate: the pair may be a word character (astralWordLength tells). */
export const HIGH_SURROGATE = 4;

/** Runs of word characters, and the word characters that make a group complex (SPECIAL_WORD). */
const WORD_RUN = new RegExp(`${WORD_CLASS}+`, 'gu');
const SPECIAL_CHAR = new RegExp(`${FORMAT_CHARS.source}|${UNSPACED_CHAR.source}|${HAS_JOINER.source}`, 'gu');

/**
 * The class of each BMP code unit: NOT_WORD, PLAIN_WORD, SPECIAL_WORD or HIGH_SURROGATE. Built by
 * two regular-expression passes over a string of all the code units that are not surrogates: a
 * test() per code unit took 11–30 ms at the start of every process that analyses.
 */
export function unitClasses(): Uint8Array {
  if (bmpClasses === undefined) {
    const table = new Uint8Array(0x10000);
    table.fill(HIGH_SURROGATE, 0xd800, 0xdc00);
    markWordUnits(table, 0, 0xd800);
    markWordUnits(table, 0xe000, 0x10000);
    bmpClasses = table;
  }
  return bmpClasses;
}

function markWordUnits(table: Uint8Array, from: number, to: number): void {
  const codes = new Uint16Array(to - from);
  for (let i = 0; i < codes.length; i++) codes[i] = from + i;
  // No surrogates among them: one code unit is one character, and a match's index is its code unit.
  const units = new TextDecoder('utf-16le', { ignoreBOM: true }).decode(codes);
  for (const run of units.matchAll(WORD_RUN)) table.fill(PLAIN_WORD, from + run.index, from + run.index + run[0].length);
  // ʼ (U+02BC) is a letter and a joiner: its group is split like one with an apostrophe.
  for (const special of units.matchAll(SPECIAL_CHAR)) if (table[from + special.index] === PLAIN_WORD) table[from + special.index] = SPECIAL_WORD;
}

/** 2 when the surrogate pair at i is a word character, else 0. */
export function astralWordLength(text: string, i: number): number {
  const cp = text.codePointAt(i) ?? 0;
  return cp > 0xffff && WORD_CHAR.test(String.fromCodePoint(cp)) ? 2 : 0;
}

export function isJoinerCode(c: number): boolean {
  return c === 0x2d || c === 0x27 || c === 0x2010 || c === 0x2011 || c === 0x2019 || c === 0x2bc || c === 0xb4 || c === 0x60;
}

/** Length (1 or 2 code units) of the word character at i, or 0. */
function wordCharLength(text: string, i: number, table: Uint8Array): number {
  const k = table[text.charCodeAt(i)];
  if (k === HIGH_SURROGATE) return astralWordLength(text, i);
  return k === NOT_WORD ? 0 : 1;
}

/**
 * Calls `onGroup` for every group of `text`, telling whether it may need more than the one-token fast
 * path. A hand-written scanner: the hot loop of ingestion, about twice as
 * fast as the equivalent Unicode regex.
 */
export function scanGroups(text: string, onGroup: (start: number, end: number, complex: boolean) => void): void {
  const table = unitClasses();
  const n = text.length;
  let i = 0;
  while (i < n) {
    let len = wordCharLength(text, i, table);
    if (len === 0) { i++; continue; }
    const start = i;
    let complex = false;
    for (;;) {
      if (len === 2 || text.charCodeAt(i) >= 0x80) complex = true;
      i += len;
      if (i >= n) break;
      len = wordCharLength(text, i, table);
      if (len > 0) continue;
      // A joiner belongs to the group only between two word characters.
      if (isJoinerCode(text.charCodeAt(i)) && i + 1 < n && (len = wordCharLength(text, i + 1, table)) > 0) {
        complex = true;
        i++;
        continue;
      }
      break;
    }
    onGroup(start, i, complex);
  }
}

/** Removes invisible format characters (soft hyphen, zero-width joiners) and normalises to NFC. */
export function cleanWord(raw: string): string {
  if (!NON_ASCII.test(raw)) return raw;
  const stripped = HAS_FORMAT_CHAR.test(raw) ? raw.replace(FORMAT_CHARS, '') : raw;
  return stripped.normalize('NFC');
}

/** True when a raw group needs more than the one-token fast path. */
export function isComplexGroup(raw: string): boolean {
  return HAS_JOINER.test(raw) || (NON_ASCII.test(raw) && (UNSPACED_CHAR.test(raw) || HAS_FORMAT_CHAR.test(raw)));
}

/** Splits a group at its joiners; each piece knows which joiner precedes it. */
export function splitGroup(raw: string, offset: number): Segment[] {
  const segments: Segment[] = [];
  let start = 0;
  let joiner: Joiner = 'none';
  for (let i = 0; i <= raw.length; i++) {
    if (i < raw.length && !SPLIT_JOINERS.test(raw[i])) continue;
    const word = cleanWord(raw.slice(start, i));
    if (word) segments.push({ word, start: offset + start, end: offset + i, joiner: segments.length ? joiner : 'none' });
    if (i < raw.length) joiner = IS_HYPHEN.test(raw[i]) ? 'hyphen' : 'apostrophe';
    start = i + 1;
  }
  return segments.flatMap(splitUnspaced);
}

function splitUnspaced(segment: Segment): Segment[] {
  if (!UNSPACED_CHAR.test(segment.word)) return [segment];
  // Offsets inside such a segment are approximate when format characters were removed.
  const out: Segment[] = [];
  let pos = segment.start;
  for (const piece of segment.word.split(UNSPACED_SPLIT)) {
    if (!piece) continue;
    out.push({ word: piece, start: pos, end: pos + piece.length, joiner: out.length ? 'none' : segment.joiner });
    pos += piece.length;
  }
  return out;
}

/**
 * The extra index tokens of a joined group: adjacent pairs (for three or
 * more pieces) and the whole, so that "E-Mail-Adresse" is also found as
 * "Email", "Mailadresse" and "Emailadresse". Joins of digits only ("1-5")
 * are skipped: "15" would be a false match.
 */
export function joinedForms(segments: readonly Segment[]): Token[] {
  const n = segments.length;
  // Pieces of an unspaced script (joiner 'none' after the first) are not joined.
  if (n < 2 || segments.some((s, i) => i > 0 && s.joiner === 'none')) return [];
  const joins: Token[] = [];
  const add = (from: number, to: number): void => {
    let word = '';
    for (let i = from; i <= to; i++) word += segments[i].word;
    if (!ONLY_DIGITS.test(word)) joins.push({ word, start: segments[from].start, end: segments[to].end });
  };
  if (n >= 3) for (let i = 0; i + 1 < n; i++) add(i, i + 1);
  add(0, n - 1);
  return joins;
}

/**
 * All index tokens of a text, in order: every piece of a joined group, then
 * the group's joined forms (whose offsets span the group). Words are NFC;
 * offsets are UTF-16 indices into the original string.
 */
export function* tokenize(text: string): Generator<Token> {
  const groups: number[] = [];
  scanGroups(text, (start, end) => groups.push(start, end));
  for (let i = 0; i < groups.length; i += 2) {
    const start = groups[i];
    const raw = text.slice(start, groups[i + 1]);
    if (!isComplexGroup(raw)) {
      const word = cleanWord(raw);
      if (word) yield { word, start, end: start + raw.length };
      continue;
    }
    const segments = splitGroup(raw, start);
    for (const s of segments) yield { word: s.word, start: s.start, end: s.end };
    yield* joinedForms(segments);
  }
}

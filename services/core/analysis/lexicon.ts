// The noun lexicon for compound splitting, parsed on first use (the
// generated module only holds one string, so importing it is cheap).
import { LEXICON_NOUNS } from './data/lexicon-words.ts';

/** Prefixes up to this length are kept, so the splitter can stop a hopeless scan early. */
const PREFIX_LENGTH = 6;

/** What a string is, as flags: one lookup answers all the splitter's questions about a stem. */
export const IS_NOUN = 1;
/** The string + "e" is a noun (Schul → Schule). */
export const PLUS_E = 2;
/** The string + "en" is a noun (Schreib → Schreiben, Finanz → Finanzen). */
export const PLUS_EN = 4;
/** The string + "n" is a noun (Melde → Melden). */
export const PLUS_N = 8;

export interface Lexicon {
  /** Lowercase German nouns, ß written ss, umlauts kept. */
  has(word: string): boolean;
  /** IS_NOUN | PLUS_E | PLUS_EN | PLUS_N flags of a string, 0 if none. */
  flags(stem: string): number;
  /** False when certainly no noun starts with `prefix` (true for prefixes longer than PREFIX_LENGTH). */
  mayStart(prefix: string): boolean;
}

let loaded: Lexicon | undefined;

function createLexicon(list: readonly string[]): Lexicon {
  const flags = new Map<string, number>();
  const mark = (key: string, flag: number): void => {
    flags.set(key, (flags.get(key) ?? 0) | flag);
  };
  const prefixes = new Set<string>();
  for (const word of list) {
    mark(word, IS_NOUN);
    if (word.endsWith('en')) mark(word.slice(0, -2), PLUS_EN);
    if (word.endsWith('n')) mark(word.slice(0, -1), PLUS_N);
    if (word.endsWith('e')) mark(word.slice(0, -1), PLUS_E);
    for (let len = 3; len <= Math.min(PREFIX_LENGTH, word.length); len++) prefixes.add(word.slice(0, len));
  }
  return {
    has: (word) => ((flags.get(word) ?? 0) & IS_NOUN) !== 0,
    flags: (stem) => flags.get(stem) ?? 0,
    mayStart: (prefix) => prefix.length > PREFIX_LENGTH || prefixes.has(prefix),
  };
}

export function lexicon(): Lexicon {
  loaded ??= createLexicon(LEXICON_NOUNS.split('\n'));
  return loaded;
}

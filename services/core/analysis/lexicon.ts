// The noun lexicon for compound splitting: a gzip-compressed word list
// (data/lexicon-nouns.txt.gz, built by scripts/dev/build-lexicon.ts), read
// and parsed on first use. tsc does not copy data files to dist/, so the file
// is found from the project folder whether this module runs from source or compiled.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

export const LEXICON_FILE = 'lexicon-nouns.txt.gz';

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
  /** Letters of the longest noun: no part of a compound is longer (bounds the splitter's work). */
  readonly longest: number;
}

let loaded: Lexicon | undefined;

export function createLexicon(list: Iterable<string>): Lexicon {
  const flags = new Map<string, number>();
  const mark = (key: string, flag: number): void => {
    flags.set(key, (flags.get(key) ?? 0) | flag);
  };
  const prefixes = new Set<string>();
  let longest = 0;
  for (const word of list) {
    if (!word) continue;
    longest = Math.max(longest, word.length);
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
    longest,
  };
}

/** services/core/analysis/data/ of this project, found by walking up from this module. */
export function lexiconDataDir(from: string = dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; dir !== dirname(dir); dir = dirname(dir)) {
    const candidate = join(dir, 'services', 'core', 'analysis', 'data');
    if (existsSync(join(candidate, LEXICON_FILE))) return candidate;
  }
  throw new Error(`cannot find services/core/analysis/data/${LEXICON_FILE} above ${from}`);
}

/** The words of the committed list, one per line. */
export function readLexiconWords(dir: string = lexiconDataDir()): string[] {
  return gunzipSync(readFileSync(join(dir, LEXICON_FILE))).toString('utf8').split('\n');
}

export function lexicon(): Lexicon {
  loaded ??= createLexicon(readLexiconWords());
  return loaded;
}

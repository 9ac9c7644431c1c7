// The noun lexicon for compound splitting: a gzip-compressed word list
// (data/lexicon-nouns.txt.gz, built by scripts/dev/build-lexicon.ts), read
// and parsed on first use. tsc does not copy data files to dist/, so the file
// is found from the project folder whether this module runs from source or compiled.
//
// Its gaps (OpenThesaurus lacks Orchester, Audio, Tablett, and verbs) are filled
// at start-up from Debian's German hunspell dictionary when it is installed
// (hunspell-de-de, igerman98, GPL-2+: read from the system, never copied into the
// project; see data/LICENSE-lexicon.md): its capitalised entries as nouns, its
// compound-opening forms and verbs' stems as possible modifiers (Trenn|zeichen, Prüf|summe).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { foldForStemming } from './fold.ts';
import { NEVER_PARTS } from './never-parts.ts';

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
/** The string opens compounds but is no word alone (trenn from trennen, Audio-): a modifier, never a head. */
export const MODIFIER_ONLY = 16;
/** Some noun or modifier starts with the string (kept for strings of 3 to PREFIX_LENGTH letters). */
export const MAY_START = 32;

/** Debian's hunspell-de-de; FUNDUS_HUNSPELL_DIC names another .dic file, or "" for none. */
export const HUNSPELL_DIC = process.env.FUNDUS_HUNSPELL_DIC ?? '/usr/share/hunspell/de_DE.dic';

export interface Lexicon {
  /** Lowercase German nouns, ß written ss, umlauts kept. */
  has(word: string): boolean;
  /** IS_NOUN | PLUS_E | PLUS_EN | PLUS_N flags of a string, 0 if none. */
  flags(stem: string): number;
  /** False when certainly no noun starts with `prefix` (true for prefixes longer than PREFIX_LENGTH). */
  mayStart(prefix: string): boolean;
  /**
   * flags() and mayStart() of a string in one look-up (the splitter asks both of every stem):
   * the flags, with MAY_START set when mayStart(stem) is true.
   */
  stemFlags(stem: string): number;
  /** Letters of the longest noun: no part of a compound is longer (bounds the splitter's work). */
  readonly longest: number;
}

let loaded: Lexicon | undefined;

export function createLexicon(list: Iterable<string>, modifiers: Iterable<string> = []): Lexicon {
  const flags = new Map<string, number>();
  const mark = (key: string, flag: number): void => {
    flags.set(key, (flags.get(key) ?? 0) | flag);
  };
  let longest = 0;
  for (const word of list) {
    if (!word) continue;
    longest = Math.max(longest, word.length);
    mark(word, IS_NOUN);
    if (word.endsWith('en')) mark(word.slice(0, -2), PLUS_EN);
    if (word.endsWith('n')) mark(word.slice(0, -1), PLUS_N);
    if (word.endsWith('e')) mark(word.slice(0, -1), PLUS_E);
    for (let len = 3; len <= Math.min(PREFIX_LENGTH, word.length); len++) mark(word.slice(0, len), MAY_START);
  }
  for (const stem of modifiers) {
    mark(stem, MODIFIER_ONLY);
    for (let len = 3; len <= Math.min(PREFIX_LENGTH, stem.length); len++) mark(stem.slice(0, len), MAY_START);
  }
  // The prefixes share the flags' map: one look-up answers both questions (the look-ups are most of a
  // new word's analysis).
  return {
    has: (word) => ((flags.get(word) ?? 0) & IS_NOUN) !== 0,
    flags: (stem) => (flags.get(stem) ?? 0) & ~MAY_START,
    mayStart: (prefix) => prefix.length > PREFIX_LENGTH || ((flags.get(prefix) ?? 0) & MAY_START) !== 0,
    stemFlags: (stem) => (flags.get(stem) ?? 0) | (stem.length > PREFIX_LENGTH ? MAY_START : 0),
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

const HUNSPELL_NOUN = /^[A-ZÄÖÜ][a-zäöüß]{3,}$/;
const HUNSPELL_VERB = /^[a-zäöüß]{3,}(?:en|ern|eln)$/;
/** Flags that igerman98 gives verbs (its affix classes for conjugation): trennen/BDIXY, fließen/DIVX. */
const VERB_FLAGS = /[XVW]/;

/**
 * Nouns (capitalised entries of at least four letters; shorter ones are mostly
 * junk inside longer words) and verb stems of a hunspell .dic file, folded as
 * the lexicon is (lowercase, ß as ss). Empty when the file is absent.
 */
export function readHunspellWords(file: string = HUNSPELL_DIC): { nouns: string[]; modifiers: string[] } {
  const nouns: string[] = [];
  const modifiers: string[] = [];
  if (!file || !existsSync(file)) return { nouns, modifiers };
  const capitalised = new Set<string>();
  const nounEntries: [string, boolean][] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const slash = line.indexOf('/');
    const word = slash < 0 ? line.trim() : line.slice(0, slash);
    if (word.length < 4) continue;
    // Capitalised entries are nouns (and names); lowercase ones are verbs among other words.
    const upper = word[0] !== word[0].toLowerCase();
    if (upper) {
      capitalised.add(word);
      if (HUNSPELL_NOUN.test(word)) nounEntries.push([word, slash >= 0 && line.includes('h', slash)]);
    } else if (slash >= 0 && VERB_FLAGS.test(line.slice(slash + 1)) && HUNSPELL_VERB.test(word)) {
      const folded = foldForStemming(word);
      const stem = folded.endsWith('en') ? folded.slice(0, -2) : folded.slice(0, -1);
      if (stem.length >= 4 && !NEVER_PARTS.has(stem)) modifiers.push(stem);
    }
  }
  for (const [word, needsAffix] of nounEntries) {
    // NEEDAFFIX (h) marks forms that only open compounds: Audio-, Trenn- are modifiers worth
    // knowing; Betriebs- is Betrieb with its linking s, which the splitter finds itself.
    const folded = foldForStemming(word);
    if (NEVER_PARTS.has(folded)) continue;
    if (!needsAffix) nouns.push(folded);
    else if (!(word.endsWith('s') && capitalised.has(word.slice(0, -1)))) modifiers.push(folded);
  }
  return { nouns, modifiers };
}

export function lexicon(): Lexicon {
  if (loaded === undefined) {
    const hunspell = readHunspellWords();
    loaded = createLexicon([...readLexiconWords(), ...hunspell.nouns], hunspell.modifiers);
  }
  return loaded;
}

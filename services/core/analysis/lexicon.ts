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
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { foldForStemming } from './fold.ts';
import { NEVER_PARTS } from './never-parts.ts';
import { hashOf } from './word-table.ts';

export const LEXICON_FILE = 'lexicon-nouns.txt.gz';

/** Prefixes up to this length are kept, so the splitter can stop a hopeless scan early. */
export const PREFIX_LENGTH = 6;

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
  /**
   * The flags of text[start, end) as stored (MAY_START only for prefixes of up to PREFIX_LENGTH
   * letters), found by its code units without cutting it out; `hash` is its hashOf (word-table.ts),
   * which the splitter extends letter by letter.
   */
  flagsAt(text: string, start: number, end: number, hash: number): number;
  /** Letters of the longest noun: no part of a compound is longer (bounds the splitter's work). */
  readonly longest: number;
}

let loaded: Lexicon | undefined;

/** Each string the lexicon knows and its flags, as built from the word lists: what the packed table answers. */
export function lexiconFlags(list: Iterable<string>, modifiers: Iterable<string> = []): { flags: Map<string, number>; longest: number } {
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
  return { flags, longest };
}

export function createLexicon(list: Iterable<string>, modifiers: Iterable<string> = []): Lexicon {
  const { flags, longest } = lexiconFlags(list, modifiers);
  // The prefixes share the flags: one look-up answers both questions (the look-ups are most of a
  // new word's analysis). Hashed by code units, so that the splitter looks up the pieces of a word
  // without cutting each out as a string.
  return lexiconOver(PackedFlags.of(flags), longest);
}

function lexiconOver(table: PackedFlags, longest: number): Lexicon {
  const of = (word: string): number => table.flagsAt(word, 0, word.length, hashOf(word));
  return {
    has: (word) => (of(word) & IS_NOUN) !== 0,
    flags: (stem) => of(stem) & ~MAY_START,
    mayStart: (prefix) => prefix.length > PREFIX_LENGTH || (of(prefix) & MAY_START) !== 0,
    stemFlags: (stem) => of(stem) | (stem.length > PREFIX_LENGTH ? MAY_START : 0),
    flagsAt: (text, start, end, hash) => table.flagsAt(text, start, end, hash),
    longest,
    [PACKED]: table,
  } as Lexicon;
}

/** The packed table behind a lexicon made here (for writing it to a file). */
const PACKED = Symbol('packed flags');

/** A second hash of text[start, end), independent of hashOf (murmur-style mixing, another seed): its top 24 bits sign a key. */
function signatureOf(text: string, start: number, end: number): number {
  let h = 0x2545_f491;
  for (let i = start; i < end; i++) {
    h = Math.imul(h ^ text.charCodeAt(i), 0x5bd1_e995);
    h ^= h >>> 13;
  }
  return Math.imul(h ^ (h >>> 15), 0x27d4_eb2d) >>> 8;
}

/**
 * String → flags in one typed array: an open-addressing table of (hash, signature << 8 | flags).
 * The keys themselves are not kept. A look-up takes the slot whose 32-bit hashOf and 24-bit
 * signature both match as the key: a string that is no key matches one with a chance of about
 * 2^-56 per look-up, and the build refuses a table in which two keys agree on both. Comparing the
 * keys' code units cost two more cache misses per hit (keys and their offsets, 3.4 MB), a quarter
 * of a compound split's time; the table is also filled to about 0.6, not 0.3, so that less of it
 * falls out of the cache (2 MB).
 */
class PackedFlags {
  private readonly slots: Int32Array;
  private readonly mask: number;

  constructor(slots: Int32Array) {
    this.slots = slots;
    this.mask = slots.length / 2 - 1;
  }

  static of(map: ReadonlyMap<string, number>): PackedFlags {
    let size = 1024;
    while (size < 1.25 * map.size) size *= 2;
    const mask = size - 1;
    const slots = new Int32Array(2 * size);
    for (const [key, flags] of map) {
      // Flags are never 0 (every key was marked), so a used slot's second word never is.
      if (flags <= 0 || flags > 0xff) throw new Error(`lexicon: flags ${flags} of "${key}" do not fit the table`);
      const hash = hashOf(key);
      const signed = (signatureOf(key, 0, key.length) << 8) | flags;
      let slot = (hash ^ (hash >>> 15)) & mask;
      for (; slots[2 * slot + 1] !== 0; slot = (slot + 1) & mask) {
        if (slots[2 * slot] === hash && slots[2 * slot + 1] >>> 8 === signed >>> 8) throw new Error(`lexicon: "${key}" has the hash and signature of another key`);
      }
      slots[2 * slot] = hash;
      slots[2 * slot + 1] = signed;
    }
    return new PackedFlags(slots);
  }

  /** The arrays as stored in a packed file, after its header. */
  parts(): ArrayBufferView[] {
    return [this.slots];
  }

  flagsAt(text: string, start: number, end: number, hash: number): number {
    const slots = this.slots;
    let signature = -1;
    for (let slot = (hash ^ (hash >>> 15)) & this.mask; ; slot = (slot + 1) & this.mask) {
      const signed = slots[2 * slot + 1];
      if (signed === 0) return 0;
      if (slots[2 * slot] !== hash) continue;
      if (signature < 0) signature = signatureOf(text, start, end);
      if (signed >>> 8 === signature) return signed & 0xff;
    }
  }
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

/** The lexicon built from the word lists, as `lexicon()` would without a packed file. */
export function buildLexicon(): Lexicon {
  const hunspell = readHunspellWords();
  return createLexicon([...readLexiconWords(), ...hunspell.nouns], hunspell.modifiers);
}

export function lexicon(): Lexicon {
  loaded ??= readPackedLexicon() ?? buildLexicon();
  return loaded;
}

// A packed lexicon: the table above as written by `npm run build` (scripts/dev/pack-lexicon.ts), so
// that each process reads its arrays in a few milliseconds instead of parsing both word lists and
// building the table (0.2–0.3 s of CPU in each extraction process and in the ingesting one). It
// lives in dist/lexicon/, named by a SHA-256 over everything the table is made from: the committed
// list, the hunspell file (FUNDUS_HUNSPELL_DIC; the derived table stays on this machine, like the
// file it comes from), and the code of this module and the modules it builds the table with. Any
// change there names another file, which is then absent: the lexicon is built as before.
const PACKED_MAGIC = 0x4c46_5802; // "\x02XFL": format 2 (format 1 kept the keys)
const HEADER_WORDS = 4;
/** Modules whose code decides the table (besides the word lists): this one and what it imports for it. */
const TABLE_MODULES = ['lexicon', 'fold', 'never-parts', 'word-table'];

/** Where the packed lexicon for the current inputs and code is (or would be); null where that cannot be told. */
export function packedLexiconFile(): string | null {
  try {
    const dataDir = lexiconDataDir();
    const hash = createHash('sha256').update(String(PACKED_MAGIC));
    const ownFile = fileURLToPath(import.meta.url);
    const extension = ownFile.slice(ownFile.lastIndexOf('.'));
    for (const name of TABLE_MODULES) hash.update(readFileSync(join(dirname(ownFile), name + extension)));
    hash.update(readFileSync(join(dataDir, LEXICON_FILE)));
    hash.update(`\0${HUNSPELL_DIC}\0`);
    if (HUNSPELL_DIC && existsSync(HUNSPELL_DIC)) hash.update(readFileSync(HUNSPELL_DIC));
    const root = resolve(dataDir, '../../../..');
    return join(root, 'dist', 'lexicon', `lexicon-${hash.digest('hex').slice(0, 32)}.bin`);
  } catch {
    return null;
  }
}

/** The packed lexicon, or undefined when there is none for the current inputs (or it is damaged). */
export function readPackedLexicon(file = packedLexiconFile()): Lexicon | undefined {
  if (!file || !existsSync(file)) return undefined;
  try {
    const bytes = readFileSync(file);
    // Typed-array views need aligned offsets: a copy when the Buffer starts mid-ArrayBuffer.
    const buffer = bytes.byteOffset % 4 === 0 ? bytes : Buffer.from(bytes);
    const header = new Int32Array(buffer.buffer, buffer.byteOffset, HEADER_WORDS);
    const [magic, longest, slotCount, length] = header;
    if (magic !== PACKED_MAGIC || length !== buffer.length || length !== (HEADER_WORDS + slotCount) * 4) return undefined;
    const slots = new Int32Array(buffer.buffer, buffer.byteOffset + HEADER_WORDS * 4, slotCount);
    return lexiconOver(new PackedFlags(slots), longest);
  } catch {
    return undefined;
  }
}

/** Builds the lexicon from the word lists and writes its packed form (atomically); returns the file, or null. */
export function writePackedLexicon(file = packedLexiconFile()): string | null {
  if (!file) return null;
  const built = buildLexicon() as Lexicon & { [PACKED]: PackedFlags };
  const parts = built[PACKED].parts();
  const [slots] = parts as [Int32Array];
  const length = HEADER_WORDS * 4 + slots.byteLength;
  const header = Int32Array.of(PACKED_MAGIC, built.longest, slots.length, length);
  mkdirSync(dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, Buffer.concat([header, ...parts].map((part) => new Uint8Array(part.buffer, part.byteOffset, part.byteLength))));
  renameSync(temporary, file);
  return file;
}

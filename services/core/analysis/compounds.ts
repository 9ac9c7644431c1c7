// Splits German compound nouns into their parts with the noun lexicon, so
// that a search for "Wahl" finds "Bundestagswahl" and "Aufwendung" finds
// "Entschädigungsaufwendungen".
//
// Rules, chosen to split the way a reader would and to stay precise:
// - a decomposition is modifiers + linking element + ... + head; every part is
//   a lexicon noun of at least MIN_PART letters (modifiers in their base form,
//   also with the final -e dropped: Schul-buch; the head may be inflected);
// - fewest parts wins (Bundestags|wahl, not Bund|es|tag|s|wahl); ties go to a
//   linking s over an s-initial part (Arbeit|s|amt, not Arbeit|samt) and
//   away from three-letter parts;
// - three-letter parts are the usual source of junk splits, so in a word the
//   lexicon knows whole (where a split competes with a simple reading),
//   three-letter parts need a linking element: Bund|es|amt, but Tabelle is not
//   Tab|Elle and Feiertag stays whole; Bau|gruppe is split as it is not listed;
// - a few common adjectives may be modifiers (Groß|buchstabe, Neu|bau), and
//   verb stems known by their nominalised infinitive (Schreib|tisch);
// - only the head is split further (Oberlandesgericht → Landesgericht →
//   Gericht); modifiers are not (Bundestagswahl does not yield "Tag").
import { IRREGULAR_PLURALS } from './base-form.ts';
import { IS_NOUN, lexicon, MAY_START, PLUS_E, PLUS_EN, PLUS_N, MODIFIER_ONLY, PREFIX_LENGTH } from './lexicon.ts';
import { HASH_START, hashStep } from './word-table.ts';
import type { Lexicon } from './lexicon.ts';
import { BoundedCache } from './bounded-cache.ts';

const MIN_PART = 3;
const MIN_WORD = 2 * MIN_PART;
const MAX_HEAD_DEPTH = 3;
/**
 * Longer tokens are not split: German's longest real compounds have about 60
 * letters, and a cap keeps the splitter's work per token bounded (a hostile
 * 1 MB token costs no more than a long word). Parts are also no longer than
 * the lexicon's longest noun, so the work is at most MAX_SPLIT_LENGTH × that.
 */
export const MAX_SPLIT_LENGTH = 64;
/** Inflection endings a head may carry beyond its lexicon length. */
const LONGEST_HEAD_ENDING = 3;

/** Counts inner-loop steps of the splitter, so tests can bound its work without a clock. */
export const splitterWork = { steps: 0 };

/** Linking elements (Fugenelemente) between a modifier and the next part. */
const LINKS = ['', 's', 'es', 'n', 'en', 'er', 'e', 'ens', 'ns'];
/** Inflection endings of a head noun. */
const HEAD_ENDINGS = ['', 'e', 'en', 'n', 's', 'es', 'er', 'ern', 'ens', 'ns', 'nen', 'se', 'sen', 'ses'];
/** Endings that come with an umlauted plural (Stadt/Städte, Haus/Häuser, Mutter/Mütter). */
const UMLAUT_ENDINGS = new Set(['', 'e', 'en', 'n', 'er', 'ern']);
const UMLAUT = /[äöü]/;

/** Adjectives that often open a compound noun (written as the lexicon writes nouns: ß as ss). */
const ADJECTIVE_MODIFIERS = new Set([
  'gross', 'klein', 'hoch', 'tief', 'neu', 'alt', 'jung', 'fein', 'grob', 'lang', 'kurz', 'breit', 'voll',
  'leer', 'frei', 'rot', 'blau', 'grün', 'gelb', 'schwarz', 'weiss', 'hell', 'dunkel', 'früh', 'spät',
  'gesamt', 'sonder', 'eigen', 'privat', 'fremd', 'nieder', 'ober', 'mittel', 'erst', 'zweit', 'letzt',
  'weiter',
]);

const LONGEST_ADJECTIVE_MODIFIER = Math.max(...[...ADJECTIVE_MODIFIERS].map((a) => a.length));

/** Verb particles and prepositions: never a part on their own, never a verb stem (Rück|lage is not Rücken). */
const PARTICLES = new Set([
  'ab', 'an', 'auf', 'aus', 'bei', 'dar', 'durch', 'ein', 'empor', 'entgegen', 'fort', 'gegen', 'her', 'heraus',
  'herein', 'hin', 'hinter', 'los', 'miss', 'mit', 'nach', 'neben', 'rück', 'über', 'um', 'unter', 'vor', 'voran',
  'voraus', 'vorbei', 'weg', 'weiter', 'wider', 'wieder', 'zu', 'zurück', 'zusammen', 'zwischen', 'ver', 'zer',
  'ent', 'emp', 'be', 'ge', 'er',
]);
/** Modifiers ending like this take a linking s whatever follows (Wohnung|s|bau, Arbeit|s|amt). */
const REQUIRES_LINKING_S = /(?:ung|heit|keit|schaft|ion|tät|ität|tum|ling|arbeit|sicht)$/;
/** Fallback heads (when the modifiers are unknown) must be this long: "Ware" in "Software" is not one. */
const MIN_FALLBACK_HEAD = 5;
const MIN_FALLBACK_PREFIX = 4;
/** A fallback head that is a derivational suffix with a consonant or two before it: Überset|zungen is Übersetzungen. */
const SUFFIX_HEAD = /^[^aeiouyäöü]{1,3}(?:ung|heit|keit|schaft)(?:en|s)?$/;

/** Words that are lexicalised as a whole; their parts would mislead ("Tag" in "Bundestag"). */
const KEEP_WHOLE = new Set([
  'buchstabe', 'bundestag', 'landtag', 'reichstag', 'kreistag', 'parteitag', 'kirchentag', 'städtetag', 'stadtetag',
  'haushalt', 'werkzeug', 'fruhstuck', 'frühstück', 'augenblick', 'handschuh', 'hochzeit', 'wirtschaft', 'gesellschaft',
]);

/**
 * Heads that are mostly a participle ending in disguise: "Reisende" is not
 * Reis|Ende, but Wochen|ende and Jahr|es|ende are real, so they need a link.
 */
const NEEDS_LINK_BEFORE = new Set(['ende', 'enden']);
/** Adjectives (-isch) and verbs (-ieren) are never noun compounds, even when capitalised. */
const NOT_A_COMPOUND = /(?:isch(?:e|en|er|es|em)?|ieren|ierens)$/;

/** A piece of a compound: `lemma` its lexicon form, `surface` as written (with its linking element). */
export interface Part { lemma: string; surface: string; head?: boolean }
/** `linked`: the last modifier ends in a linking element; `previous`: the path it extends (parts as back-pointers). */
interface Path { cost: number; part?: Part; previous?: Path; linked: boolean }

function partsOf(path: Path | undefined): Part[] {
  const parts: Part[] = [];
  for (let at = path; at?.part !== undefined; at = at.previous) parts.push(at.part);
  return parts.reverse();
}

/** The umlauted vowel of the last a/o/u/au turned back: städt → stadt, häus → haus. */
function withoutLastUmlaut(word: string): string | undefined {
  const i = Math.max(word.lastIndexOf('ä'), word.lastIndexOf('ö'), word.lastIndexOf('ü'));
  if (i < 0) return undefined;
  const plain = word[i] === 'ä' ? 'a' : word[i] === 'ö' ? 'o' : 'u';
  return word.slice(0, i) + plain + word.slice(i + 1);
}

const LONGEST_IRREGULAR = Math.max(...[...IRREGULAR_PLURALS.keys()].map((plural) => plural.length));
/** hashOf(head.slice(0, k)) at [k], for the head being looked at (grown for longer heads). */
let prefixHashes = new Int32Array(MAX_SPLIT_LENGTH + 1);

/** The lexicon noun that an inflected head stands for, if any. */
export function headLemma(head: string, nouns: Lexicon): string | undefined {
  // Every candidate base keeps at least all but the last three letters.
  // Konten → Konto, Themen → Thema: plurals that change more than an ending.
  const irregular = head.length <= LONGEST_IRREGULAR ? IRREGULAR_PLURALS.get(head) : undefined;
  if (irregular !== undefined && nouns.has(irregular)) return irregular;
  // The candidate bases are prefixes of the head: their hashes, and whether it has an umlaut, in one pass.
  const n = head.length;
  if (prefixHashes.length <= n) prefixHashes = new Int32Array(n + 1);
  const hashes = prefixHashes;
  let hasUmlaut = false;
  for (let i = 0; i < n && !hasUmlaut; i++) {
    const c = head.charCodeAt(i);
    hasUmlaut = c === 0xe4 || c === 0xf6 || c === 0xfc;
  }
  // nouns.has / mayStart of head.slice(0, length), without the slice. The hashes up to the shortest
  // candidate first: most heads end there.
  const flagsOfPrefix = (length: number): number => nouns.flagsAt(head, 0, length, hashes[length]);
  const shortest = Math.min(n, Math.min(6, Math.max(MIN_PART, n - 3)));
  let hash = HASH_START;
  hashes[0] = hash;
  for (let i = 0; i < shortest; i++) hashes[i + 1] = hash = hashStep(hash, head.charCodeAt(i));
  if (!hasUmlaut && (flagsOfPrefix(shortest) & MAY_START) === 0) return undefined;
  for (let i = shortest; i < n; i++) hashes[i + 1] = hash = hashStep(hash, head.charCodeAt(i));
  for (const ending of HEAD_ENDINGS) {
    if (!head.endsWith(ending)) continue;
    const length = n - ending.length;
    if (length < MIN_PART) continue;
    if (flagsOfPrefix(length) & IS_NOUN) return head.slice(0, length);
    if (hasUmlaut && UMLAUT_ENDINGS.has(ending)) {
      const plain = withoutLastUmlaut(head.slice(0, length));
      if (plain !== undefined && nouns.has(plain)) return plain;
    }
  }
  // Feminine forms in -in/-innen of a known noun (Ärztin, Antragstellerinnen): the lemma is the -in form.
  const feminine = head.endsWith('innen') ? 5 : head.endsWith('in') ? 2 : 0;
  if (feminine > 0 && head.length - feminine >= MIN_PART + 1) {
    const masculine = head.slice(0, head.length - feminine);
    const plain = hasUmlaut ? withoutLastUmlaut(masculine) : undefined;
    if (nouns.has(masculine) || (plain !== undefined && nouns.has(plain))) return masculine + 'in';
  }
  return undefined;
}

function partCost(part: Part, link: string, previous: Part | undefined): number {
  let cost = 1;
  if (part.lemma.length <= MIN_PART) cost += 0.2;
  // A linking s beats an s-initial short part (Arbeit|s|amt, not Arbeit|samt),
  // but not a long one (Antrag|steller, Daten|sätze, Ruhe|stand, not Antrag|s|teller,
  // Daten|s|ätze), unless the part before always takes a linking s (Wohnung|s|...).
  if (link === 's' || link === 'es') cost -= 0.3;
  else if (link !== '') cost += 0.05; // Papier|form, not Papi|er|form
  const surface = part.surface.slice(0, part.surface.length - link.length);
  if (surface.startsWith('s') && surface.length >= 5 && !(previous && REQUIRES_LINKING_S.test(previous.lemma))) cost -= 0.35;
  return cost;
}

/**
 * Best decomposition of a lowercase word (ß as ss) into lexicon parts, or
 * undefined when it is not a compound. Modifiers are given as lemmas, the
 * head as its inflected surface form.
 */
export function splitCompound(word: string): Part[] | undefined {
  const n = word.length;
  if (n < MIN_WORD || n > MAX_SPLIT_LENGTH || KEEP_WHOLE.has(word)) return undefined;
  const nouns = lexicon();
  const longestPart = nouns.longest + LONGEST_HEAD_ENDING;
  const wholeIsNoun = headLemma(word, nouns) !== undefined;
  // Verbs in -ieren and adjectives in -isch are not compounds, but a noun's plural may end so (Haustieren).
  if (NOT_A_COMPOUND.test(word) && !wholeIsNoun) return undefined;

  // reach[i]: cheapest chain of modifiers (with their links) covering word[0, i).
  const reach: (Path | undefined)[] = new Array(n + 1);
  reach[0] = { cost: 0, linked: false };
  const relax = (to: number, from: Path, part: Part, link: string): void => {
    const cost = from.cost + partCost(part, link, from.part);
    const current = reach[to];
    if (current === undefined || cost < current.cost) reach[to] = { cost, part, previous: from, linked: link !== '' };
  };

  const hasUmlaut = UMLAUT.test(word);
  const linkRoom = (link: string, end: number): boolean => word.startsWith(link, end) && end + link.length <= n - MIN_PART;
  // Evidence against a linking s: the stem with the s is a known noun of its own (Maus|zeiger, not
  // Mau|s|zeiger; Kurs|anmeldung, not Kur|s|anmeldung), unless the stem ends in a suffix that
  // always takes the s (Wohnung|s|bau, Arbeit|s|amt).
  const sLinkAllowed = (start: number, end: number, link: string): boolean =>
    (link !== 's' && link !== 'es') || REQUIRES_LINKING_S.test(word.slice(start, end)) || !nouns.has(word.slice(start, end + link.length));
  for (let start = 0; start <= n - 2 * MIN_PART; start++) {
    const from = reach[start];
    if (from === undefined) continue;
    const lastEnd = Math.min(n - MIN_PART, start + longestPart);
    // The piece's hash grows with it, letter by letter: the lexicon is asked by code units.
    let hash = HASH_START;
    for (let i = start; i < start + MIN_PART - 1; i++) hash = hashStep(hash, word.charCodeAt(i));
    for (let end = start + MIN_PART; end <= lastEnd; end++) {
      splitterWork.steps++;
      hash = hashStep(hash, word.charCodeAt(end - 1));
      // nouns.stemFlags(word.slice(start, end)), without the slice.
      const flags = nouns.flagsAt(word, start, end, hash) | (end - start > PREFIX_LENGTH ? MAY_START : 0);
      // Nearly every piece is no word of its own (at most the start of one): nothing below applies to
      // it, and it need not be cut out.
      if ((flags & ~MAY_START) === 0 && !hasUmlaut && (start !== 0 || end > LONGEST_ADJECTIVE_MODIFIER)) {
        if ((flags & MAY_START) === 0) break;
        continue;
      }
      const stem = word.slice(start, end);
      // No noun (nor umlaut-free plural stem, nor adjective) starts like this: nor will a longer one.
      const known = (flags & MAY_START) !== 0 || (hasUmlaut && nouns.mayStart(withoutLastUmlaut(stem) ?? stem));
      if (!known && !(start === 0 && end <= LONGEST_ADJECTIVE_MODIFIER)) break;
      // Short modifiers without a linking element only in words the lexicon does not know whole.
      const shortBare = stem.length <= MIN_PART && wholeIsNoun;
      if (flags & IS_NOUN) {
        for (const link of LINKS) {
          if (!linkRoom(link, end) || (shortBare && link === '') || !sLinkAllowed(start, end, link)) continue;
          relax(end + link.length, from, { lemma: stem, surface: word.slice(start, end + link.length) }, link);
        }
        continue;
      }
      if (start === 0 && ADJECTIVE_MODIFIERS.has(stem)) {
        relax(end, from, { lemma: stem, surface: stem }, '');
        continue;
      }
      if (stem.length <= MIN_PART) continue;
      if (flags & PLUS_E) {
        // Schul|buch, Hilf|s|mittel: the modifier drops its final -e.
        for (const link of ['', 's']) {
          if (linkRoom(link, end) && sLinkAllowed(start, end, link)) relax(end + link.length, from, { lemma: stem + 'e', surface: word.slice(start, end + link.length) }, link);
        }
      } else if (flags & (PLUS_EN | PLUS_N) && !PARTICLES.has(stem)) {
        // Verb stems and plural-only nouns, known by their noun in -(e)n:
        // Schreib|tisch (das Schreiben), Melde|pflicht, Finanz|amt (Finanzen).
        relax(end, from, { lemma: flags & PLUS_EN ? stem + 'en' : stem + 'n', surface: stem }, '');
      } else if (flags & MODIFIER_ONLY && !PARTICLES.has(stem)) {
        // Verb stems and compound-opening forms from the dictionary: Trenn|zeichen, Audio|gerät.
        relax(end, from, { lemma: stem, surface: stem }, '');
      }
      // Bücher|regal, Städte|bau, Länder|spiel: an umlauted plural as modifier.
      const plain = hasUmlaut ? withoutLastUmlaut(stem) : undefined;
      if (plain !== undefined && nouns.has(plain)) {
        for (const link of ['er', 'e']) {
          if (linkRoom(link, end)) relax(end + link.length, from, { lemma: plain, surface: word.slice(start, end + link.length) }, link);
        }
      }
    }
  }

  let best: Path | undefined;
  for (let start = Math.max(MIN_PART, n - longestPart); start <= n - MIN_PART; start++) {
    splitterWork.steps++;
    const from = reach[start];
    if (from === undefined) continue;
    const surface = word.slice(start);
    const lemma = headLemma(surface, nouns);
    if (lemma === undefined) continue;
    if (!from.linked && ((wholeIsNoun && lemma.length <= MIN_PART) || NEEDS_LINK_BEFORE.has(lemma))) continue;
    const cost = from.cost + partCost({ lemma, surface }, '', from.part);
    if (best === undefined || cost < best.cost) best = { cost, part: { lemma, surface, head: true }, previous: from, linked: false };
  }
  return best !== undefined ? partsOf(best) : wholeIsNoun ? undefined : fallbackHead(word, nouns);
}

/**
 * For a word the lexicon does not know and cannot fully split (an unknown
 * modifier: "Verbraucherschlichtungsstelle"), the longest known head still
 * says what the word is about. Only long heads after a long prefix that is
 * not a particle: "Einstellung" does not yield "Stellung".
 */
function fallbackHead(word: string, nouns: Lexicon): Part[] | undefined {
  const first = Math.max(MIN_FALLBACK_PREFIX, word.length - nouns.longest - LONGEST_HEAD_ENDING);
  for (let start = first; start <= word.length - MIN_FALLBACK_HEAD; start++) {
    splitterWork.steps++;
    const prefix = word.slice(0, start);
    if (PARTICLES.has(prefix) || !/[aeiouyäöü]/.test(prefix)) continue;
    const surface = word.slice(start);
    const lemma = headLemma(surface, nouns);
    if (SUFFIX_HEAD.test(surface)) continue;
    if (lemma !== undefined && lemma.length >= MIN_FALLBACK_HEAD && !NEEDS_LINK_BEFORE.has(lemma)) return [{ lemma, surface, head: true }];
  }
  return undefined;
}

/**
 * All parts worth indexing for a word: the parts of its best decomposition,
 * plus the parts of its head, recursively (Oberlandesgericht → ober,
 * landesgericht, land, gericht). Empty when the word is not a compound.
 * `first`: the word's own split, when the caller has it already ([] for none).
 */
export function compoundParts(word: string, first?: readonly Part[]): Part[] {
  const out: Part[] = [];
  let parts = first === undefined ? splitCompound(word) : first.length > 0 ? first : undefined;
  for (let depth = 0; parts !== undefined && depth < MAX_HEAD_DEPTH; depth++) {
    out.push(...parts);
    if (depth + 1 < MAX_HEAD_DEPTH) parts = splitHead(parts[parts.length - 1].surface);
  }
  return out;
}

// Heads recur across compounds (…gericht, …verwaltung): their splits are kept. Callers only read
// the parts.
const HEAD_CACHE_LIMIT = 20_000;
const headSplits = new BoundedCache<Part[] | null>(HEAD_CACHE_LIMIT);
const splitOrNull = (word: string): Part[] | null => splitCompound(word) ?? null;

function splitHead(head: string): Part[] | undefined {
  return headSplits.get(head, splitOrNull) ?? undefined;
}

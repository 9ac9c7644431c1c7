// Other forms of a query word that the stemmer cannot reach from it, checked against the noun
// lexicon (OpenThesaurus + hunspell de_DE), for the query side only: adding a query alternative can
// at worst widen that one query, while a wrong rule on the index side would change every text.
//
// 1. Loan-word plurals that change more than an ending (Zentrum/Zentren, Zyklus/Zyklen,
//    Firma/Firmen, Index/Indizes, Lexikon/Lexika, Schema/Schemata), also as compound heads
//    (Bildungszentren, Suchalgorithmus). A form counts only when the lexicon knows the singular as a
//    noun, not where a regular plural reads it (Kliniken: Klinik), and for endings German words
//    share (-um/-en, -us/-i, -a/-en) only when the rest is no word of its own (Hai is no plural of
//    Haus, Daten not of Datum, kommen not of Komma).
// 2. The singular of an inflected query word, where Snowball stems the singular apart: Kurs → kur
//    but Kurse → kurs, Problem → probl but Probleme → problem, Abendstern → abend. The ending is
//    stripped only when what is left is a known noun.
import { splitCompound } from './compounds.ts';
import { IS_NOUN, lexicon, MODIFIER_ONLY } from './lexicon.ts';

/** [singular ending, plural ending] of loan words that only loan words have. */
const LOAN_PLURALS: readonly (readonly [string, string])[] = [
  ['ismus', 'ismen'], ['ius', 'ien'], ['ium', 'ien'], ['eum', 'een'], ['ia', 'ien'], ['ma', 'mata'],
  ['ikum', 'ika'], ['imum', 'ima'], ['ikon', 'ika'], ['ex', 'izes'], ['ix', 'izes'], ['ix', 'izen'],
];
/**
 * Shorter endings that German words have too (Komma/kommen, Haus/Hai, Datum/Daten): taken only
 * when what the two forms share is at least MIN_STEM letters and neither a noun nor a verb stem.
 */
const SHORT_LOAN_PLURALS: readonly (readonly [string, string])[] = [
  ['um', 'en'], ['um', 'a'], ['us', 'en'], ['us', 'i'], ['a', 'en'], ['o', 'en'], ['o', 'i'],
];
/** Inflection endings stripped to find the singular (not -er: Snowball strips it, and Bauer is no plural of Bau). */
const ENDINGS = ['e', 'es', 'en', 'n', 's', 'se', 'ses', 'sen'];
const MIN_WORD = 5;
const MIN_STEM = 4;

/** A noun of the lexicon, or a compound whose head as written is one (Abendstern, not Bildungszentren). */
function isNounUncached(word: string): boolean {
  const nouns = lexicon();
  if (nouns.has(word)) return true;
  // The head must be a noun the word ends with: without one, no need to split (the costly part).
  if (!endsWithNoun(word)) return false;
  const parts = splitCompound(word);
  const head = parts?.[parts.length - 1];
  return head !== undefined && head.surface.length >= MIN_STEM && nouns.has(head.surface) && word.endsWith(head.surface);
}

/** Some noun of at least MIN_STEM letters, shorter than the word, is its ending. */
function endsWithNoun(word: string): boolean {
  const nouns = lexicon();
  const longest = Math.min(word.length - 1, nouns.longest);
  for (let length = MIN_STEM; length <= longest; length++) if (nouns.has(word.slice(word.length - length))) return true;
  return false;
}

/** A regular plural or inflected form of a known noun (Kliniken of Klinik, Maximen of Maxime). */
function isRegularForm(word: string, isNoun: (word: string) => boolean): boolean {
  for (const ending of ['en', 'n', 'e', 's']) {
    if (word.length - ending.length >= MIN_STEM && word.endsWith(ending) && isNoun(word.slice(0, -ending.length))) return true;
  }
  return false;
}

/** What a singular and a plural of a short ending share must be no word of its own (komm-, Mann-, Dat-). */
function isBareStem(stem: string): boolean {
  return stem.length >= MIN_STEM && (lexicon().flags(stem) & (IS_NOUN | MODIFIER_ONLY)) === 0;
}

/** Forms of the same noun, lowercase (ß as ss, umlauts kept), other than `lower` itself. */
export function otherNounForms(lower: string): string[] {
  if (lower.length < MIN_WORD) return [];
  // The rules below ask about the same few words many times (the query word itself once per rule):
  // each is split and looked up once per call.
  const answers = new Map<string, boolean>();
  const isNoun = (word: string): boolean => {
    let known = answers.get(word);
    if (known === undefined) answers.set(word, (known = isNounUncached(word)));
    return known;
  };
  const forms = new Set<string>();
  const pairs = (list: readonly (readonly [string, string])[], short: boolean): void => {
    for (const [singular, plural] of list) {
      // As a plural: Zentren → Zentrum.
      if (lower.endsWith(plural)) {
        const stem = lower.slice(0, -plural.length);
        const candidate = stem + singular;
        if (stem.length >= 2 && (!short || isBareStem(stem)) && isNoun(candidate) && !isRegularForm(lower, isNoun)) forms.add(candidate);
      }
      // As a singular: Zentrum → Zentren.
      if (lower.endsWith(singular)) {
        const stem = lower.slice(0, -singular.length);
        const candidate = stem + plural;
        if (stem.length >= 2 && (!short || isBareStem(stem)) && isNoun(lower) && !isRegularForm(candidate, isNoun)) forms.add(candidate);
      }
    }
  };
  pairs(LOAN_PLURALS, false);
  pairs(SHORT_LOAN_PLURALS, true);
  for (const ending of ENDINGS) {
    if (lower.length - ending.length < MIN_STEM || !lower.endsWith(ending)) continue;
    const singular = lower.slice(0, -ending.length);
    if (isNoun(singular)) forms.add(singular);
  }
  forms.delete(lower);
  return [...forms];
}

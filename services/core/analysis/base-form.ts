// Base forms: the Snowball stem, corrected for plurals the algorithm cannot
// conflate (Thema/Themen, Museum/Museen) because they change more than an
// ending. Input: lowercase, ß as ss, umlauts kept (foldForStemming).
import { BoundedCache } from './bounded-cache.ts';
import { stemGerman } from './snowball-german.ts';

/** Irregular (mostly Latin and Greek) plural → singular. Both sides then stem alike. */
export const IRREGULAR_PLURALS: ReadonlyMap<string, string> = new Map(Object.entries({
  themen: 'thema', firmen: 'firma', dramen: 'drama', schemata: 'schema', schemen: 'schema',
  museen: 'museum', zentren: 'zentrum', studien: 'studium', medien: 'medium', kriterien: 'kriterium',
  gymnasien: 'gymnasium', stadien: 'stadium', ministerien: 'ministerium', konsortien: 'konsortium',
  praktika: 'praktikum', visa: 'visum', alben: 'album', viren: 'virus', globen: 'globus', zyklen: 'zyklus',
  radien: 'radius', rhythmen: 'rhythmus', organismen: 'organismus', mechanismen: 'mechanismus',
  algorithmen: 'algorithmus', indices: 'index', matrizen: 'matrix', praxen: 'praxis',
  konten: 'konto', risiken: 'risiko', villen: 'villa', prinzipien: 'prinzip', materialien: 'material',
  fossilien: 'fossil', mineralien: 'mineral', individuen: 'individuum', modi: 'modus',
  atlanten: 'atlas', kakteen: 'kaktus', basen: 'basis',
  // Genitives in -s after a vowel, which Snowball keeps (a is no valid s-ending).
  themas: 'thema', dramas: 'drama', schemas: 'schema', firmas: 'firma', kontos: 'konto', risikos: 'risiko',
}));

export function baseForm(lower: string): string {
  return stems.get(lower, stemOf);
}

/**
 * baseForm without the cache: for a word met for the first time (its analysis is kept by the
 * caller), whose stem is rarely kept already; asking and filling the cache cost more than stemming.
 */
export function baseFormOfNewWord(lower: string): string {
  return stemOf(lower);
}

// A new word's parts and their runs are mostly words seen before (…gericht, verwaltung…): their stems are kept.
const stems = new BoundedCache<string>(50_000);
const stemOf = (lower: string): string => stemGerman(IRREGULAR_PLURALS.get(lower) ?? lower);

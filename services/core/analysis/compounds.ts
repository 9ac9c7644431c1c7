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
// - a word that is itself in the lexicon is only split when the split is
//   convincing (no three-letter modifier without a linking element), which
//   keeps simple words like "Tabelle" (Tab|Elle) or "Programm" whole;
// - only the head is split further (Oberlandesgericht → Landesgericht →
//   Gericht); modifiers are not (Bundestagswahl does not yield "Tag").
import { lexiconNouns } from './lexicon.ts';

const MIN_PART = 3;
const MIN_WORD = 2 * MIN_PART;
const MAX_HEAD_DEPTH = 3;

/** Linking elements (Fugenelemente) between a modifier and the next part. */
const LINKS = ['', 's', 'es', 'n', 'en', 'er', 'e', 'ens', 'ns'];
/** Inflection endings of a head noun. */
const HEAD_ENDINGS = ['', 'e', 'en', 'n', 's', 'es', 'er', 'ern', 'ens', 'ns', 'nen', 'se', 'sen', 'ses'];
/** Endings that come with an umlauted plural (Stadt/Städte, Haus/Häuser, Mutter/Mütter). */
const UMLAUT_ENDINGS = new Set(['', 'e', 'en', 'n', 'er', 'ern']);

/** Words that are lexicalised as a whole; their parts would mislead ("Tag" in "Bundestag"). */
const KEEP_WHOLE = new Set(['bundestag', 'landtag', 'reichstag', 'kreistag', 'parteitag', 'kirchentag', 'städtetag']);

interface Part { lemma: string; surface: string }
interface Path { cost: number; parts: Part[] }

/** The umlauted vowel of the last a/o/u/au turned back: städt → stadt, häus → haus. */
function withoutLastUmlaut(word: string): string | undefined {
  const i = Math.max(word.lastIndexOf('ä'), word.lastIndexOf('ö'), word.lastIndexOf('ü'));
  if (i < 0) return undefined;
  const plain = word[i] === 'ä' ? 'a' : word[i] === 'ö' ? 'o' : 'u';
  return word.slice(0, i) + plain + word.slice(i + 1);
}

/** The lexicon noun that an inflected head stands for, if any. */
export function headLemma(head: string, nouns: ReadonlySet<string>): string | undefined {
  for (const ending of HEAD_ENDINGS) {
    if (!head.endsWith(ending)) continue;
    const base = head.slice(0, head.length - ending.length);
    if (base.length < MIN_PART) continue;
    if (nouns.has(base)) return base;
    if (UMLAUT_ENDINGS.has(ending)) {
      const plain = withoutLastUmlaut(base);
      if (plain !== undefined && nouns.has(plain)) return plain;
    }
  }
  return undefined;
}

function partCost(lemma: string, link: string): number {
  let cost = 1;
  if (lemma.length <= MIN_PART) cost += 0.2;
  if (link === 's' || link === 'es') cost -= 0.3;
  return cost;
}

/**
 * Best decomposition of a lowercase word (ß as ss) into lexicon parts, or
 * undefined when it is not a compound. Modifiers are given as lemmas, the
 * head as its inflected surface form.
 */
export function splitCompound(word: string): Part[] | undefined {
  const n = word.length;
  if (n < MIN_WORD || KEEP_WHOLE.has(word)) return undefined;
  const nouns = lexiconNouns();
  const wholeIsNoun = headLemma(word, nouns) !== undefined;

  // reach[i]: cheapest chain of modifiers (with their links) covering word[0, i).
  const reach: (Path | undefined)[] = new Array(n + 1);
  reach[0] = { cost: 0, parts: [] };
  const relax = (to: number, from: Path, part: Part, link: string): void => {
    const cost = from.cost + partCost(part.lemma, link);
    const current = reach[to];
    if (current === undefined || cost < current.cost) reach[to] = { cost, parts: [...from.parts, part] };
  };

  for (let start = 0; start <= n - 2 * MIN_PART; start++) {
    const from = reach[start];
    if (from === undefined) continue;
    for (let end = start + MIN_PART; end <= n - MIN_PART; end++) {
      const stem = word.slice(start, end);
      if (nouns.has(stem)) {
        for (const link of LINKS) {
          if (!word.startsWith(link, end) || end + link.length > n - MIN_PART) continue;
          if (wholeIsNoun && stem.length <= MIN_PART && link === '') continue;
          relax(end + link.length, from, { lemma: stem, surface: word.slice(start, end + link.length) }, link);
        }
      } else if (nouns.has(stem + 'e') && !(wholeIsNoun && stem.length <= MIN_PART)) {
        // Schul|buch, Sprach|wissenschaft: the modifier drops its final -e.
        relax(end, from, { lemma: stem + 'e', surface: stem }, '');
      }
      // Bücher|regal, Städte|bau, Länder|spiel: an umlauted plural as modifier.
      const plain = withoutLastUmlaut(stem);
      if (plain !== undefined && nouns.has(plain)) {
        for (const link of ['er', 'e']) {
          if (word.startsWith(link, end) && end + link.length <= n - MIN_PART) {
            relax(end + link.length, from, { lemma: plain, surface: word.slice(start, end + link.length) }, link);
          }
        }
      }
    }
  }

  let best: Path | undefined;
  for (let start = MIN_PART; start <= n - MIN_PART; start++) {
    const from = reach[start];
    if (from === undefined) continue;
    const surface = word.slice(start);
    const lemma = headLemma(surface, nouns);
    if (lemma === undefined) continue;
    const cost = from.cost + partCost(lemma, '');
    if (best === undefined || cost < best.cost) best = { cost, parts: [...from.parts, { lemma, surface }] };
  }
  return best?.parts;
}

/**
 * All parts worth indexing for a word: the parts of its best decomposition,
 * plus the parts of its head, recursively (Oberlandesgericht → ober,
 * landesgericht, land, gericht). Empty when the word is not a compound.
 */
export function compoundParts(word: string): Part[] {
  const out: Part[] = [];
  let current: string | undefined = word;
  for (let depth = 0; current !== undefined && depth < MAX_HEAD_DEPTH; depth++) {
    const parts = splitCompound(current);
    if (parts === undefined) break;
    out.push(...parts);
    current = parts.at(-1)?.surface;
  }
  return out;
}

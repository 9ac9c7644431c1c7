// Character folding shared by index and query side. Every output contains only
// Unicode letters and digits, because the streams are joined by spaces for an
// FTS5 `ascii` tokenizer that would treat ASCII punctuation as a separator.

const GERMAN_EXACT: Record<string, string> = { ä: 'ae', ö: 'oe', ü: 'ue', ß: 'ss' };
// Latin letters that NFD does not decompose into base letter + mark.
const LATIN_SPECIAL: Record<string, string> = {
  æ: 'ae', œ: 'oe', ø: 'o', ł: 'l', đ: 'd', ð: 'd', þ: 'th', ı: 'i', ħ: 'h', ŧ: 't', ŋ: 'n', ſ: 's',
};
const NEEDS_WORK = /[^a-z0-9]/;
const COMBINING_MARK = /\p{M}/gu;
const NOT_LETTER_OR_DIGIT = /[^\p{L}\p{N}]/gu;
const LATIN_DECOMPOSABLE = /[\u00C0-\u024F\u1E00-\u1EFF]/u;

/**
 * The folded surface form used for exact matching: lowercase, ß→ss, ä→ae,
 * ö→oe, ü→ue, other Latin diacritics removed. "Müller", "MÜLLER" and
 * "Mueller" all give "mueller". Compatibility forms (ligatures such as "ﬁ",
 * full-width letters, superscripts) are unified with NFKC first.
 */
export function foldExact(word: string): string {
  let w = word.toLowerCase();
  if (!NEEDS_WORK.test(w)) return w;
  w = w.normalize('NFKC').toLowerCase();
  let out = '';
  for (const ch of w) {
    const german = GERMAN_EXACT[ch];
    if (german !== undefined) { out += german; continue; }
    const special = LATIN_SPECIAL[ch];
    if (special !== undefined) { out += special; continue; }
    // Strip diacritics from Latin letters only: in other scripts (Devanagari,
    // Thai) combining marks are vowels, and for those the marks are dropped
    // below on both sides alike, which keeps matching consistent.
    out += LATIN_DECOMPOSABLE.test(ch) ? ch.normalize('NFD').replace(COMBINING_MARK, '') : ch;
  }
  return out.replace(NOT_LETTER_OR_DIGIT, '');
}

/**
 * Lowercase form for stemming and compound splitting: like foldExact but keeps
 * ä/ö/ü (the stemmer needs them as vowels, the lexicon is written with them)
 * and maps ß to ss as the Snowball prelude does.
 */
export function foldForStemming(word: string): string {
  let w = word.toLowerCase();
  if (!NEEDS_WORK.test(w)) return w;
  w = w.normalize('NFKC').toLowerCase();
  let out = '';
  for (const ch of w) {
    if (ch === 'ä' || ch === 'ö' || ch === 'ü') { out += ch; continue; }
    if (ch === 'ß') { out += 'ss'; continue; }
    const special = LATIN_SPECIAL[ch];
    if (special !== undefined) { out += special; continue; }
    out += LATIN_DECOMPOSABLE.test(ch) ? ch.normalize('NFD').replace(COMBINING_MARK, '') : ch;
  }
  return out.replace(NOT_LETTER_OR_DIGIT, '');
}

/** ä→a, ö→o, ü→u: the base forms meet regardless of umlaut (Stadt/Städte). */
export function removeUmlauts(word: string): string {
  return word.replace(/[äöü]/g, (ch) => (ch === 'ä' ? 'a' : ch === 'ö' ? 'o' : 'u'));
}

/**
 * Reads ae/oe/ue as transliterated umlauts (Mueller → müller). Only used on
 * the query side as an extra alternative: in running text "ue" is usually
 * genuine (neue, Steuer, Quelle), so the index must not do this.
 */
export function restoreUmlauts(word: string): string {
  return word.replace(/(?<!q)ue|ae|oe/g, (pair) => (pair === 'ae' ? 'ä' : pair === 'oe' ? 'ö' : 'ü'));
}

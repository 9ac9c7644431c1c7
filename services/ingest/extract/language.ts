// A small stop-word language detector. Declared languages (`<html lang>`, dc:language, PDF /Lang) are
// often template defaults, so a confident reading of the text wins over them; the declaration decides
// when the text is too short or too mixed to tell.

const STOP_WORDS: Record<string, string> = {
  de: 'der die das und ist nicht ein eine einer eines einem einen zu den von mit sich des auf für im dem als auch es an werden wird aus er sie nach bei wie oder noch nur über so kann sind wenn ich wir ihr dass daß durch diese dieser dieses zum zur vom werden wurde hat haben können muss soll sowie bzw ob weil aber unter gegen ohne zwischen',
  en: 'the and of to is in that it for on with as are this be by was not or from at which an have has can will but all if their they there been were more also such these would should may other than its into only about when must',
  fr: 'le la les des est et un une du que qui dans pour pas sur au aux avec ce cette ces il elle sont par plus ou mais ne se leur nous vous être été avoir fait comme tout entre sans sous dont ont',
  es: 'el la los las de que y en un una es por con para del al lo como más pero sus se su le ya o este esta son entre cuando muy sin sobre también fue ha hay desde todo nos durante uno donde',
  it: 'il lo la gli le di che e è un una per non con del della delle dei degli al alla sono si da nel nella come più ma anche questo questa ha essere stato tra sul sulla ai loro',
  nl: 'de het een van en is dat niet op te zijn voor met die aan er als bij ook maar om uit worden wordt door naar dan nog wel geen heeft hebben deze dit zo kan kunnen tot onder over',
  pt: 'o a os as de que e do da dos das em um uma para com não por mais se na no nas nos ao aos como mas foi ele ela são está também pelo pela entre sua seu muito já ou quando',
};

// Each word counts 1/(number of languages that share it), so "de" or "in" decide little on their own.
// Word -> [language, weight] pairs, in the order of STOP_WORDS.
const WEIGHTS: Map<string, [string, number][]> = (() => {
  const owners = new Map<string, string[]>();
  for (const [lang, words] of Object.entries(STOP_WORDS)) {
    for (const w of new Set(words.split(' '))) owners.set(w, [...(owners.get(w) ?? []), lang]);
  }
  const weights = new Map<string, [string, number][]>();
  for (const [word, langs] of owners) weights.set(word, langs.map((l): [string, number] => [l, 1 / langs.length]));
  return weights;
})();
const LONGEST_STOP_WORD = Math.max(...[...WEIGHTS.keys()].map((w) => w.length));

export const DETECTABLE_LANGUAGES = Object.keys(STOP_WORDS);

export interface LanguageGuess {
  language: string | null;
  confident: boolean;
}

const SLICE_CHARS = 3_000;

/** Start, middle and end of a long text: pages that quote another language do so in stretches. */
function sampleOf(text: string): string {
  if (text.length <= SLICE_CHARS * 3) return text;
  const middle = Math.floor(text.length / 2 - SLICE_CHARS / 2);
  return `${text.slice(0, SLICE_CHARS)} ${text.slice(middle, middle + SLICE_CHARS)} ${text.slice(-SLICE_CHARS)}`;
}

// Whether a UTF-16 unit is a letter (\p{L}), learnt on first sight: 0 not yet known, 1 letter, 2 not.
const LETTER_UNITS = new Uint8Array(65536);
const LETTER = /^\p{L}$/u;

function isLetterUnit(c: number): boolean {
  let known = LETTER_UNITS[c];
  if (known === 0) known = LETTER_UNITS[c] = LETTER.test(String.fromCharCode(c)) ? 1 : 2;
  return known === 1;
}

/** Length of the letter (or surrogate pair coding one) at i, 0 if there is none. */
function letterAt(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c < 0xd800 || c > 0xdbff) return isLetterUnit(c) ? 1 : 0;
  return i + 1 < s.length && LETTER.test(s.slice(i, i + 2)) ? 2 : 0;
}

export function detectLanguage(text: string): LanguageGuess {
  const sample = sampleOf(text).toLowerCase();
  const scores = new Map<string, number>();
  // The words of the sample (runs of \p{L}), by hand: /\p{L}+/gu took two thirds of the time, and
  // only words as short as a stop word need a string and a look-up.
  let tokens = 0;
  for (let i = 0; i < sample.length; ) {
    let n = letterAt(sample, i);
    if (n === 0) {
      i++;
      continue;
    }
    const start = i;
    while (n > 0) {
      i += n;
      n = i < sample.length ? letterAt(sample, i) : 0;
    }
    tokens++;
    if (i - start > LONGEST_STOP_WORD) continue;
    const owners = WEIGHTS.get(sample.slice(start, i));
    if (!owners) continue;
    for (const [lang, w] of owners) scores.set(lang, (scores.get(lang) ?? 0) + w);
  }
  const ranked = [...scores.entries()].sort((a, b) => b[1] - a[1]);
  if (ranked.length === 0) return { language: null, confident: false };
  const [best, bestScore] = ranked[0];
  const second = ranked[1]?.[1] ?? 0;
  // Five weighted hits and a clear lead over the runner-up; stop words are 30-50 % of running text.
  const confident = bestScore >= 5 && bestScore >= second * 1.5 && bestScore / Math.max(tokens, 1) >= 0.05;
  return { language: bestScore >= 2 ? best : null, confident };
}

/** The primary subtag of a BCP 47 tag ("de-DE" -> "de"), or null for junk. */
export function primaryLanguage(tag: string | null | undefined): string | null {
  const m = tag?.trim().toLowerCase().match(/^([a-z]{2,3})(?:[-_][a-z0-9]+)*$/);
  return m && m[1] !== 'und' && m[1] !== 'mul' && m[1] !== 'zxx' ? m[1] : null;
}

export function decideLanguage(text: string, declared?: string | null): string | null {
  const guess = detectLanguage(text);
  const declaredPrimary = primaryLanguage(declared);
  if (guess.confident) return guess.language;
  return declaredPrimary ?? guess.language;
}

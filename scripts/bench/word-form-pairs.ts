// How often a query for one form of a noun misses a text holding another form, in Fundus's analysis:
//
//   node_modules/.bin/node scripts/bench/word-form-pairs.ts
//
// Pairs come from scripts/bench/word_form_pairs.py (the noun lexicon, forms accepted by Debian's
// hunspell de_DE; needs python3-hunspell and hunspell-de-de). A pair fails in a direction when the
// query word's exact form and bases share nothing with the text word's (analyzeQuery/analyzeWord,
// as the index matches). Prints failures per kind of ending, with examples. hunspell accepts some
// non-words (Augenglaser, Hausse as a plural of Haus), so not every failure is a defect, and some
// are refused on purpose (Haus/Hai, Komma/Kommen, Datum/Daten).
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { analyzeQuery, analyzeWord } from '../../services/core/analysis/index.ts';
import { LEXICON_FILE, lexiconDataDir } from '../../services/core/analysis/lexicon.ts';

const here = fileURLToPath(new URL('.', import.meta.url));
const tsv = execFileSync('/usr/bin/python3', [join(here, 'word_form_pairs.py'), join(lexiconDataDir(), LEXICON_FILE)], { encoding: 'utf8', maxBuffer: 1 << 28 });
const meets = (query: string, text: string): boolean => {
  const term = analyzeQuery(query)[0];
  const word = analyzeWord(text);
  return term !== undefined && (term.exact === word.exact || term.bases.some((base) => word.bases.includes(base)));
};
const kinds = new Map<string, { pairs: number; failed: number; examples: string[] }>();
for (const line of tsv.split('\n')) {
  if (!line) continue;
  const [kind, singular, form] = line.split('\t');
  const entry = kinds.get(kind) ?? { pairs: 0, failed: 0, examples: [] };
  kinds.set(kind, entry);
  entry.pairs++;
  const directions = [meets(singular, form) ? '' : '→', meets(form, singular) ? '' : '←'].join('');
  if (directions) {
    entry.failed++;
    if (entry.examples.length < 8) entry.examples.push(`${singular}/${form} ${directions}`);
  }
}
let pairs = 0;
let failed = 0;
for (const [kind, entry] of [...kinds].sort((a, b) => b[1].pairs - a[1].pairs)) {
  pairs += entry.pairs;
  failed += entry.failed;
  console.log(`${kind.padEnd(8)} ${String(entry.pairs).padStart(6)} pairs, ${String(entry.failed).padStart(4)} missed   ${entry.examples.join(', ')}`);
}
console.log(`all      ${pairs} pairs, ${failed} missed in at least one direction (→ singular query, ← form query)`);

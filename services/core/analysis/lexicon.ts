// The noun lexicon for compound splitting, parsed into a Set on first use
// (the generated module only holds one string, so importing it is cheap).
import { LEXICON_NOUNS } from './data/lexicon-words.ts';

let nouns: ReadonlySet<string> | undefined;

/** Lowercase German nouns, ß written ss, umlauts kept. */
export function lexiconNouns(): ReadonlySet<string> {
  nouns ??= new Set(LEXICON_NOUNS.split('\n'));
  return nouns;
}

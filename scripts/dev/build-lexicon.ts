// Builds services/core/analysis/data/lexicon-nouns.txt.gz, the German noun
// list used to split compounds (one word a line, gzip), from OpenThesaurus (Debian package
// openthesaurus-de-text, LGPL-2.1-or-later; see data/LICENSE-lexicon.md for
// why not igerman98/hunspell).
//
//   apt-get install -y openthesaurus-de-text
//   node_modules/.bin/node scripts/dev/build-lexicon.ts [path/to/openthesaurus.txt]
import { readFileSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { foldForStemming } from '../../services/core/analysis/fold.ts';
import { NEVER_PARTS } from '../../services/core/analysis/never-parts.ts';

const SOURCE = process.argv[2] ?? '/usr/share/openthesaurus-de/openthesaurus.txt';
const TARGET = new URL('../../services/core/analysis/data/lexicon-nouns.txt.gz', import.meta.url);

// Common nouns that this OpenThesaurus release lacks as single entries
// (it has "Hauptstadt" but not "Stadt"). Our own addition, MIT like the project.
const SUPPLEMENT_NOUNS = [
  'Stadt', 'Zeile', 'Offizier', 'Spalte', 'Lasten', 'Gehälter', 'Eintrag', 'Pfad', 'Ordner', 'Knoten', 'Steller',
];


const LETTERS_ONLY = /^[a-zäöü]+$/;
const CAPITALISED = /^[A-ZÄÖÜ][a-zäöüß]+$/;

function addNoun(target: Set<string>, word: string): void {
  const folded = foldForStemming(word);
  if (folded.length >= 3 && LETTERS_ONLY.test(folded) && !NEVER_PARTS.has(folded)) target.add(folded);
}

const PHRASE_LINKS = new Set(['der', 'des', 'die', 'das', 'dem', 'den', 'von', 'vom', 'im', 'am', 'zum', 'zur', 'für', 'mit', 'aus', 'ohne', 'in', 'an', 'auf', 'und']);
const ADJECTIVE_ENDING = /(e|es|er|en|em)$/;

/** Nouns of one synonym-set entry such as "Stadt der Liebe (ugs.)" or "E-Mail". */
function collectNouns(entry: string, nouns: Set<string>, lowercaseWords: ReadonlySet<string>): void {
  const words = entry.replace(/\([^)]*\)/g, ' ').trim().split(/\s+/).filter(Boolean);
  if (words.length === 1) {
    const [word] = words;
    if (CAPITALISED.test(word)) addNoun(nouns, word);
    // "E-Mail", "Vier-Augen-Prinzip": the joined form and the head are nouns.
    const pieces = word.split('-');
    const head = pieces.at(-1) ?? '';
    if (pieces.length > 1 && pieces.length <= 3 && CAPITALISED.test(head)) {
      addNoun(nouns, head);
      addNoun(nouns, pieces.join(''));
    }
    return;
  }
  // Sayings and foreign phrases ("Man muss …", "Top Ten (engl.)") name no nouns we want.
  if (words.length > 4 || /engl\./.test(entry)) return;
  for (let i = 0; i < words.length; i++) {
    const word = words[i].replace(/^[^\p{L}]+|[^\p{L}]+$/gu, '');
    const next = words[i + 1]?.replace(/^[^\p{L}]+/u, '') ?? '';
    if (!CAPITALISED.test(word)) continue;
    // A phrase's first word is capitalised anyway ("Erst einmal", "Ewige
    // Stadt"); it is a noun when an article or preposition follows ("Stadt der Liebe").
    if (i === 0 && !PHRASE_LINKS.has(next)) continue;
    // "Der Ewige", "Kleines Schwarzes": a capitalised adjective, not a noun stem.
    const lower = word.toLowerCase();
    if (ADJECTIVE_ENDING.test(lower) && lowercaseWords.has(lower.replace(ADJECTIVE_ENDING, ''))) continue;
    addNoun(nouns, word);
  }
}

function build(): void {
  const lines = readFileSync(SOURCE, 'utf8').split('\n').filter((line) => line && !line.startsWith('#'));
  const lowercaseWords = new Set<string>();
  for (const line of lines) for (const entry of line.split(';')) if (/^[a-zäöüß]+$/.test(entry)) lowercaseWords.add(entry);
  const nouns = new Set<string>();
  for (const line of lines) for (const entry of line.split(';')) collectNouns(entry, nouns, lowercaseWords);
  for (const word of SUPPLEMENT_NOUNS) addNoun(nouns, word);

  const sorted = [...nouns].sort();
  // Level 9 and no timestamp in the header (mtime 0): the same list gives the same bytes.
  const body = gzipSync(Buffer.from(sorted.join('\n') + '\n'), { level: 9 });
  writeFileSync(TARGET, body);
  console.log(`${sorted.length} nouns, ${(body.length / 1024).toFixed(0)} KiB gzip → ${TARGET.pathname}`);
}

build();

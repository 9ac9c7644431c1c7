// Quality of the German analysis on the corpus ground truth:
//   node_modules/.bin/node scripts/bench/analysis-recall.ts
// 1. word-form recall: each `word_form_queries` entry must meet the form that
//    is in the text (`word_form_matches`) through a shared base;
// 2. every `key_terms` entry must match itself exactly;
// 3. over-stemming spot check: how many distinct words share a base;
// 4. compound splits: share of words split, and a sample to read.
import { analyzeForIndex, analyzeQuery, analyzeWord } from '../../services/core/analysis/index.ts';
import { corpusHtmlTexts, corpusTruth } from './analysis-corpus.ts';

function queryMatches(query: string, textWord: string): boolean {
  const indexed = analyzeForIndex(textWord);
  const exact = new Set(indexed.exact.split(' '));
  const bases = new Set(indexed.base.split(' '));
  return analyzeQuery(query).every((term) => exact.has(term.exact) || term.bases.some((b) => bases.has(b)));
}

const truth = corpusTruth();

// 1. Word-form recall
let pairs = 0;
const misses: string[] = [];
for (const entry of truth) {
  for (const query of entry.word_form_queries) {
    const form = entry.word_form_matches[query];
    if (form === undefined) continue;
    pairs++;
    if (!queryMatches(query, form)) misses.push(`${query} → ${form} (query ${analyzeQuery(query).map((t) => t.bases.join('/')).join(' ')}; text ${analyzeWord(form).bases.join('/')})`);
  }
}
console.log(`word-form recall: ${pairs - misses.length}/${pairs} = ${((100 * (pairs - misses.length)) / pairs).toFixed(1)}%`);
for (const miss of misses) console.log(`  miss: ${miss}`);

// 2. Key terms match themselves exactly
let keyTerms = 0;
const keyMisses: string[] = [];
for (const entry of truth) {
  for (const term of entry.key_terms) {
    keyTerms++;
    const exact = new Set(analyzeForIndex(term).exact.split(' '));
    if (!analyzeQuery(term).every((t) => exact.has(t.exact))) keyMisses.push(term);
  }
}
console.log(`key terms matching themselves exactly: ${keyTerms - keyMisses.length}/${keyTerms}`);
for (const miss of keyMisses) console.log(`  miss: ${miss}`);

// 3. Over-stemming: distinct (folded) words per base form of the whole word
const texts = corpusHtmlTexts();
const wordsByBase = new Map<string, Set<string>>();
const distinct = new Set<string>();
for (const text of texts) {
  for (const word of text.match(/\p{L}{3,}/gu) ?? []) {
    if (distinct.has(word)) continue;
    distinct.add(word);
    const { exact, bases } = analyzeWord(word);
    const group = wordsByBase.get(bases[0]) ?? new Set<string>();
    group.add(exact);
    wordsByBase.set(bases[0], group);
  }
}
const sizes = [...wordsByBase.values()].map((g) => g.size);
const exactForms = sizes.reduce((a, b) => a + b, 0);
console.log(`\nover-stemming: ${exactForms} distinct folded words → ${wordsByBase.size} bases (${(exactForms / wordsByBase.size).toFixed(2)} words per base); bases with ≥ 8 words: ${sizes.filter((s) => s >= 8).length}`);
const largest = [...wordsByBase].sort((a, b) => b[1].size - a[1].size).slice(0, 12);
for (const [base, group] of largest) console.log(`  ${base}: ${group.size} — ${[...group].slice(0, 10).join(', ')}`);
// A deterministic sample of merged groups to read for wrong conflations.
const merged = [...wordsByBase].filter(([, g]) => g.size >= 3).sort(([a], [b]) => a.localeCompare(b));
const sample = merged.filter((_, i) => i % Math.max(1, Math.floor(merged.length / 15)) === 0).slice(0, 15);
console.log('  sample of merged groups:');
for (const [base, group] of sample) console.log(`    ${base}: ${[...group].join(', ')}`);

// 4. Compound splits
const capitalised = [...distinct].filter((w) => /^\p{Lu}\p{Ll}{7,}$/u.test(w));
const split = capitalised.filter((w) => analyzeWord(w).bases.length > 1);
console.log(`\ncompounds: ${split.length}/${capitalised.length} capitalised words of 8+ letters get part bases`);
const every = Math.max(1, Math.floor(split.length / 25));
console.log(`  sample: ${split.filter((_, i) => i % every === 0).slice(0, 25).map((w) => `${w} → ${analyzeWord(w).bases.join('+')}`).join('; ')}`);

// PLACEHOLDER — replaced by the German analysis module (owner: analysis helper).
export interface Token { word: string; start: number; end: number }
export interface AnalyzedWord { exact: string; bases: string[] }
export interface AnalyzedText { exact: string; base: string }
export interface QueryTerm { text: string; exact: string; bases: string[] }

export function* tokenize(text: string): Generator<Token> {
  for (const m of text.matchAll(/[\p{L}\p{N}]+/gu)) yield { word: m[0], start: m.index!, end: m.index! + m[0].length };
}
export function foldExact(word: string): string {
  return word.toLowerCase().replace(/ß/g, 'ss').replace(/ä/g, 'ae').replace(/ö/g, 'oe').replace(/ü/g, 'ue');
}
export function analyzeWord(word: string): AnalyzedWord {
  const exact = foldExact(word);
  return { exact, bases: [exact.replace(/(en|er|e|es|s|n)$/, '')] };
}
export function analyzeForIndex(text: string): AnalyzedText {
  const exact: string[] = [];
  const base: string[] = [];
  for (const t of tokenize(text)) { const a = analyzeWord(t.word); exact.push(a.exact); base.push(...a.bases); }
  return { exact: exact.join(' '), base: base.join(' ') };
}
export function analyzeQuery(q: string): QueryTerm[] {
  return [...tokenize(q)].map((t) => ({ text: t.word, ...analyzeWord(t.word) }));
}

import { describe, expect, it } from 'vitest';
import { analyzeForIndex, analyzeWord, tokenize } from '../../services/core/analysis/index.ts';
import { HIGH_SURROGATE, isComplexGroup, NOT_WORD, PLAIN_WORD, SPECIAL_WORD, unitClasses } from '../../services/core/analysis/tokenize.ts';
import { hashOf, WordTable } from '../../services/core/analysis/word-table.ts';

// analyzeForIndex scans a text by code units and looks words up where they stand (word-table.ts).
// It must give exactly what the plain definition gives: the tokens of tokenize(), each analysed by
// analyzeWord, the exact forms joined by spaces, the bases too with each compound part once a text.

function reference(text: string): { exact: string; base: string } {
  const exact: string[] = [];
  const base: string[] = [];
  const seen = new Set<string>();
  for (const token of tokenize(text)) {
    const word = analyzeWord(token.word);
    if (!word.exact) continue;
    exact.push(word.exact);
    base.push(word.bases[0]);
    for (const part of word.bases.slice(1)) {
      if (seen.has(part)) continue;
      seen.add(part);
      base.push(part);
    }
  }
  return { exact: exact.join(' '), base: base.join(' ') };
}

/** Seeded strings of letters, umlauts, joiners, format characters, marks, other scripts, astral and lone surrogates. */
function fuzzTexts(count: number): string[] {
  const alphabet = [
    'a', 'e', 'n', 's', 'r', 't', 'i', 'u', 'h', 'A', 'B', 'ä', 'ö', 'ü', 'Ü', 'ß', 'ẞ', '-', '\u2010', '\u2011', "'", '\u2019',
    '\u02BC', '\u00B4', '`', ' ', ' ', '\n', '.', '\u00AD', '\u200D', '\u0301', '漢', 'か', 'カ', '😀', '𝔘', '\ud800', '\udc00',
    '1', '9', '٣', 'İ', 'ı', 'ﬁ', 'Σ', 'ǅ', 'é', 'ø', 'æ', 'þ', '_', '²', 'Œ', 'ſ', '\u00A0', 'Ａ', 'Haus', 'Gericht', 'Bundes',
  ];
  let seed = 2024;
  const random = (): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const texts: string[] = [];
  for (let t = 0; t < count; t++) {
    let text = '';
    const length = 1 + Math.floor(random() * 60);
    for (let k = 0; k < length; k++) text += alphabet[Math.floor(random() * alphabet.length)];
    texts.push(text);
  }
  return texts;
}

describe('analyzeForIndex by code units', () => {
  it('classes every BMP code unit as the regular expressions of tokenize.ts do', () => {
    const classes = unitClasses();
    const wordChar = /^[\p{L}\p{N}\p{M}\p{Cf}]$/u;
    const mismatches: string[] = [];
    for (let c = 0; c < 0x10000; c++) {
      const ch = String.fromCharCode(c);
      let expected: number;
      if (c >= 0xd800 && c <= 0xdbff) expected = HIGH_SURROGATE;
      else if (c >= 0xdc00 && c <= 0xdfff || !wordChar.test(ch)) expected = NOT_WORD;
      // A plain word character never makes its group complex, alone or among plain letters.
      else expected = isComplexGroup(ch) || isComplexGroup(`a${ch}b`) ? SPECIAL_WORD : PLAIN_WORD;
      if (classes[c] !== expected) mismatches.push(c.toString(16));
    }
    expect(mismatches).toEqual([]);
  });

  it('gives the plain definition on German text, joined words, other scripts and seeded noise', () => {
    const texts = [
      'Die Bundestagswahl und die Landtagswahl: Wahlen, Wahl-Ergebnisse, E-Mail-Adresse, geht\u2019s, ISO-8859-1.',
      'Verwaltungsgericht Verwaltungsgerichte Verwaltungsgericht Oberlandesgericht Gerichtsbezirk Ge\u00ADricht',
      'Straße STRASSE Müller Mueller Städte ﬁnden Ａｍｔ',
      'Ελληνικά und Deutsch; 漢字かな; 😀 𝔘𝔫𝔦 x\u0301y; Ωmega-Bereich', // output beyond Latin-1: the string path
      '',
      '   ',
      'a',
      // Words too long to be kept in the table: plain, folded, wide, and whose folded form is a compound (each alone: any
      // of the last two sends its whole text to the string path).
      `vorher ${'a'.repeat(300)} ${'Ä'.repeat(300)}x Bundestagswahl nachher ${'a'.repeat(300)} ${'1'.repeat(1000)}`,
      `vorher ${'λ'.repeat(300)} nachher`,
      `Bundestagswahl ${'\u0301'.repeat(300)}Bundes${'\u0301'.repeat(3)}tagswahl ${'\u0301'.repeat(300)}Landtagswahlen`,
      ...fuzzTexts(3000),
    ];
    for (const text of texts) expect(analyzeForIndex(text), JSON.stringify(text)).toEqual(reference(text));
    // One long text of everything: parts repeat across its words.
    const all = texts.join(' ');
    expect(analyzeForIndex(all)).toEqual(reference(all));
  });

  it('stays right while the word table turns over in the middle of a text', () => {
    // More new words than a generation holds (100,000), compounds among them before and after. The
    // first text turns the table over (whatever came before); the second does so again, with a
    // generation before it of known plain words.
    const compounds = 'Bundestagswahl Landtagswahl Wahlkreis Schulwegplan Bundestagswahlen';
    for (const prefix of ['w', 'v']) {
      const numbers = Array.from({ length: 110_000 }, (_, i) => `${prefix}${i.toString(36)}`);
      const text = `${compounds} ${numbers.slice(0, 55_000).join(' ')} ${compounds} ${numbers.slice(55_000).join(' ')} ${compounds}`;
      expect(analyzeForIndex(text)).toEqual(reference(text));
    }
    expect(analyzeForIndex(compounds)).toEqual(reference(compounds));
  });
});

describe('the word table', () => {
  it('finds words by their code units inside a text, computes each once per generation, and carries used ones over', () => {
    const computed: string[] = [];
    const table = new WordTable(4, (word) => (computed.push(word), { exact: word.toUpperCase(), bases: [word] }));
    const text = 'haus baum haus';
    const at = (start: number, end: number): string => table.current.values[table.get(text, start, end, hashOf(text, start, end))].exact;
    expect([at(0, 4), at(5, 9), at(10, 14)]).toEqual(['HAUS', 'BAUM', 'HAUS']);
    expect(computed).toEqual(['haus', 'baum']);
    // A generation of two is full: "maus" starts a new one; "haus" is carried over, not computed again.
    expect(table.value('maus').exact).toBe('MAUS');
    expect(table.value('haus').exact).toBe('HAUS');
    expect(computed).toEqual(['haus', 'baum', 'maus']);
    // "baum" was dropped with the generation before.
    table.value('laus');
    table.value('baum');
    expect(computed).toEqual(['haus', 'baum', 'maus', 'laus', 'baum']);
  });

  it('tells words with the same hash apart by their code units', () => {
    // "w4pvu" and "wb3ea" have the same FNV-1a hash (found by a search over w + base-36 numbers).
    expect(hashOf('w4pvu')).toBe(hashOf('wb3ea'));
    const table = new WordTable(1000, (word) => ({ exact: `<${word}>`, bases: [word] }));
    expect(table.value('w4pvu').exact).toBe('<w4pvu>');
    expect(table.value('wb3ea').exact).toBe('<wb3ea>');
    expect(table.value('w4pvu').exact).toBe('<w4pvu>');
    // Thousands of words: the table grows and still finds each.
    const words = Array.from({ length: 5000 }, (_, i) => `${i}`);
    for (const word of words) table.value(word);
    expect(words.filter((word) => table.value(word).exact !== `<${word}>`)).toEqual([]);
    expect(analyzeForIndex('w4pvu wb3ea w4pvu')).toEqual(reference('w4pvu wb3ea w4pvu'));
  });
});

import { describe, expect, it } from 'vitest';
import { analyzeForIndex, analyzeQuery, analyzeWord, foldExact, tokenize } from '../../services/core/analysis/index.ts';
import type { QueryTerm } from '../../services/core/analysis/index.ts';

/** Whether a query (all terms, AND) matches a text the way the index will. */
function matches(query: string, text: string): 'exact' | 'word_form' | false {
  const indexed = analyzeForIndex(text);
  const exact = new Set(indexed.exact.split(' '));
  const bases = new Set(indexed.base.split(' '));
  const terms = analyzeQuery(query);
  if (terms.length === 0) return false;
  const termMatches = (t: QueryTerm): boolean => exact.has(t.exact) || t.bases.some((b) => bases.has(b));
  if (!terms.every(termMatches)) return false;
  return terms.every((t) => exact.has(t.exact)) ? 'exact' : 'word_form';
}

const ONLY_LETTERS_AND_DIGITS = /^[\p{L}\p{N}]+$/u;

describe('foldExact', () => {
  it('folds case, umlauts and ß so that spellings meet', () => {
    expect(foldExact('Müller')).toBe('mueller');
    expect(foldExact('MÜLLER')).toBe('mueller');
    expect(foldExact('Mueller')).toBe('mueller');
    expect(foldExact('Straße')).toBe('strasse');
    expect(foldExact('STRASSE')).toBe('strasse');
    expect(foldExact('Größe')).toBe('groesse');
  });

  it('removes other Latin diacritics and unifies compatibility forms', () => {
    expect(foldExact('Café')).toBe('cafe');
    expect(foldExact('Ångström')).toBe('angstroem');
    expect(foldExact('naïve')).toBe('naive');
    expect(foldExact('ﬁnden')).toBe('finden'); // ligature from PDF text
    expect(foldExact('Œuvre')).toBe('oeuvre');
  });

  it('keeps other scripts as letters', () => {
    expect(foldExact('Москва')).toBe('москва');
    expect(foldExact('Αθήνα')).toMatch(ONLY_LETTERS_AND_DIGITS);
  });
});

describe('tokenize', () => {
  it('gives words with offsets into the original string', () => {
    const text = 'Der Bundestag tagt.';
    const tokens = [...tokenize(text)];
    expect(tokens.map((t) => t.word)).toEqual(['Der', 'Bundestag', 'tagt']);
    for (const t of tokens) expect(text.slice(t.start, t.end)).toBe(t.word);
  });

  it('indexes the parts and the joined form of hyphenated words', () => {
    const words = [...tokenize('Die E-Mail-Adresse zur Bundestags-Wahl')].map((t) => t.word);
    expect(words).toEqual(['Die', 'E', 'Mail', 'Adresse', 'EMail', 'MailAdresse', 'EMailAdresse', 'zur', 'Bundestags', 'Wahl', 'BundestagsWahl']);
  });

  it('joins apostrophes and keeps numbers, but not digit-only joins', () => {
    const words = [...tokenize("Wie geht's? Nach § 5 Abs. 2 im Jahr 2016, Seiten 1-5")].map((t) => t.word);
    expect(words).toEqual(['Wie', 'geht', 's', 'gehts', 'Nach', '5', 'Abs', '2', 'im', 'Jahr', '2016', 'Seiten', '1', '5']);
  });

  it('never puts punctuation into a token', () => {
    const text = 'a.b,c;d:e!f?g"h(i)j[k]l{m}n<o>p/q\\r|s*t^u~v=w+x&y%z#1@2$3 «Zitat» „Anführung“ ‚einfach‘ —Strich—';
    for (const t of tokenize(text)) expect(t.word).toMatch(ONLY_LETTERS_AND_DIGITS);
    const { exact, base } = analyzeForIndex(text);
    for (const token of `${exact} ${base}`.split(' ')) expect(token).toMatch(ONLY_LETTERS_AND_DIGITS);
  });

  it('removes soft hyphens and normalises to NFC, with offsets into the input', () => {
    const text = 'Bundes\u00ADtag und Mu\u0308ller';
    const tokens = [...tokenize(text)];
    expect(tokens.map((t) => t.word)).toEqual(['Bundestag', 'und', 'Müller']);
    expect(text.slice(tokens[2].start, tokens[2].end)).toBe('Mu\u0308ller');
    expect(analyzeWord('Mu\u0308ller').exact).toBe('mueller');
  });

  it('handles other scripts: words in spaced scripts, characters in Chinese and Japanese', () => {
    expect([...tokenize('Привет мир')].map((t) => t.word)).toEqual(['Привет', 'мир']);
    expect([...tokenize('東京タワー')].map((t) => t.word)).toEqual(['東', '京', 'タ', 'ワ', 'ー']);
    expect([...tokenize('नमस्ते दुनिया')].length).toBe(2);
  });

  it('yields nothing for empty or punctuation-only input', () => {
    expect([...tokenize('')]).toEqual([]);
    expect([...tokenize(' .,;!? -- ... ')]).toEqual([]);
    expect(analyzeForIndex('')).toEqual({ exact: '', base: '' });
  });
});

describe('analyzeWord: base forms meet across inflection', () => {
  const families = [
    ['Haus', 'Häuser', 'Hauses', 'Häusern'],
    ['Gesetz', 'Gesetze', 'Gesetzes'],
    ['Kind', 'Kinder', 'Kindern'],
    ['Stadt', 'Städte'],
    ['Offizier', 'Offiziere'],
    ['Dienst', 'Dienstes'],
    ['Entschädigungsaufwendung', 'Entschädigungsaufwendungen'],
    ['Regelung', 'Regelungen'],
    ['Möglichkeit', 'Möglichkeiten'],
    ['Verhältnis', 'Verhältnisse'],
    ['Buch', 'Bücher'],
    ['System', 'Systeme', 'Systemen', 'Systems'],
    ['Formel', 'Formeln'],
    ['Makro', 'Makros'],
    ['Thema', 'Themen'],
    ['Museum', 'Museen'],
  ];
  for (const family of families) {
    it(family.join('/'), () => {
      const [first, ...rest] = family.map((w) => analyzeWord(w).bases[0]);
      for (const base of rest) expect(base).toBe(first);
    });
  }

  it('keeps the base free of umlauts and ß', () => {
    expect(analyzeWord('Größe').bases[0]).toBe('gross');
    expect(analyzeWord('Straße').bases[0]).toBe(analyzeWord('Strasse').bases[0]);
  });
});

describe('compound parts', () => {
  it('finds the head and modifiers of compounds', () => {
    expect(matches('Wahl', 'Die Bundestagswahl findet statt.')).toBe('word_form');
    expect(matches('Gesetz', 'Der Gesetzentwurf liegt vor.')).toBe('word_form');
    expect(matches('Gesetz', 'ein Bundesgesetz')).toBe('word_form');
    expect(matches('Aufwendung', 'Entschädigungsaufwendungen des Bundes')).toBe('word_form');
    expect(matches('Entschädigung', 'Entschädigungsaufwendungen des Bundes')).toBe('word_form');
    expect(matches('Gericht', 'beim Oberlandesgericht')).toBe('word_form');
    expect(matches('Datei', 'die Konfigurationsdatei')).toBe('word_form');
    expect(matches('Buch', 'Bücherregal')).toBe('word_form');
    // A plural in -ieren is a noun, not a verb in -ieren: Haus|tieren.
    expect(matches('Haus', 'mit Haustieren')).toBe('word_form');
    expect(matches('Tier', 'mit Haustieren')).toBe('word_form');
    expect(analyzeWord('informieren').bases).toHaveLength(1);
  });

  it('splits into few long parts, not short junk', () => {
    const parts = analyzeWord('Bundestagswahl').bases;
    expect(parts).toContain('wahl');
    expect(parts).toContain('bundestag');
    expect(parts).not.toContain('tag');
    expect(analyzeWord('Tages').bases).toEqual(['tag']);
    expect(analyzeWord('Tabelle').bases).toEqual(['tabell']);
    expect(analyzeWord('Arbeitsamt').bases).toContain('amt');
    expect(analyzeWord('Arbeitsamt').bases).not.toContain('samt');
    expect(analyzeWord('Reisende').bases).not.toContain('end');
    // A derivation is no compound with an unknown modifier: Übersetzungen is not Überset|zungen.
    expect(analyzeWord('Übersetzungen').bases).toEqual(['ubersetzung']);
    expect(matches('Zunge', 'die Übersetzungen')).toBe(false);
  });

  it('indexes the parts of a compound once per text, the word itself at every occurrence', () => {
    const count = (stream: string, token: string) => stream.split(' ').filter((t) => t === token).length;
    const [own, ...parts] = analyzeWord('Verwaltungsgericht').bases;
    const { base } = analyzeForIndex('Das Verwaltungsgericht. Vor dem Verwaltungsgericht klagt, wen das Verwaltungsgericht lädt.');
    expect(count(base, own)).toBe(3);
    expect(parts.length).toBeGreaterThan(0);
    for (const part of parts) expect(count(base, part)).toBe(1);
    // A part that also stands alone counts at each of its own occurrences, and once as a part.
    expect(count(analyzeForIndex('Gericht, Verwaltungsgericht, Gericht, Verwaltungsgericht').base, 'gericht')).toBe(3);
    expect(matches('Gericht', 'Das Verwaltungsgericht')).toBe('word_form');
  });

  it('does not give "Tag" a match in Bundestag words', () => {
    expect(matches('Tag', 'Die Bundestagswahl und der Bundestag')).toBe(false);
  });

  it('leaves simple words and verbs whole', () => {
    for (const word of ['Verordnung', 'Abschnitt', 'Unternehmen', 'informieren', 'Eigenschaften']) {
      expect(analyzeWord(word).bases).toHaveLength(1);
    }
  });
});

describe('analyzeQuery', () => {
  it('gives one term per word with the exact form and whole-word bases', () => {
    expect(analyzeQuery('Häuser der Stadt')).toEqual([
      { text: 'Häuser', exact: 'haeuser', bases: expect.arrayContaining(['haus']) },
      { text: 'der', exact: 'der', bases: ['der'] },
      { text: 'Stadt', exact: 'stadt', bases: expect.arrayContaining(['stadt']) },
    ]);
  });

  it('does not add compound parts: a compound query needs the compound', () => {
    expect(matches('Bundestagswahl', 'Die Wahl zum Bundestag')).toBe(false);
    expect(matches('Bundestagswahl', 'nach der Bundestagswahl')).toBe('exact');
    expect(analyzeQuery('Bundestagswahl')[0].bases).not.toContain('wahl');
  });

  it('reads ae/oe/ue as umlauts as an alternative', () => {
    expect(matches('Mueller', 'Frau Müller')).toBe('exact'); // same folded surface
    expect(matches('Muellers', 'Frau Müller')).toBe('word_form'); // only through the umlaut reading
    expect(analyzeQuery('Muellers')[0].bases).toContain(analyzeWord('Müller').bases[0]);
    expect(matches('Haeuser', 'die Häuser')).toBe('exact');
    expect(matches('Haeusern', 'die Häuser')).toBe('word_form');
    expect(analyzeQuery('Quelle')[0].bases).toEqual(analyzeQuery('Quelle')[0].bases.filter((b) => !b.includes('ü')));
  });

  it('keeps nouns in -ung, -heit, -keit apart from the words they are made of', () => {
    expect(matches('Abbildungen', 'siehe Abbildung 3')).toBe('word_form');
    expect(matches('Abbildungen', 'ein Abbild der Welt')).toBe(false);
    expect(matches('Übersetzungen', 'die Übersetzung')).toBe('word_form');
    expect(matches('Übersetzung', 'wurde übersetzt')).toBe(false);
    expect(matches('Übersetzung', 'der Übersetzer')).toBe(false);
    expect(matches('Freiheit', 'frei verfügbar')).toBe(false);
    expect(matches('Möglichkeiten', 'eine Möglichkeit')).toBe('word_form');
  });

  it('matches word forms in both directions', () => {
    expect(matches('Offizier', 'die Offiziere')).toBe('word_form');
    expect(matches('Dienst', 'des Dienstes')).toBe('word_form');
    expect(matches('Fenster', 'des Bildfensters')).toBe('word_form');
    expect(matches('Bildfenster', 'des Bildfensters')).toBe('word_form');
    expect(matches('Beamtin', 'Beamtinnen')).toBe('word_form');
    expect(matches('Beamtinnen', 'eine Beamtin')).toBe('word_form');
    expect(matches('Haus', 'HAUS')).toBe('exact');
  });

  it('meets loan-word plurals both ways, also as compound heads', () => {
    for (const [singular, plural] of [
      ['Zentrum', 'Zentren'], ['Einkaufszentrum', 'Einkaufszentren'], ['Ministerium', 'Ministerien'],
      ['Bundesministerium', 'Bundesministerien'], ['Mechanismus', 'Mechanismen'], ['Suchalgorithmus', 'Suchalgorithmen'],
      ['Zyklus', 'Zyklen'], ['Firma', 'Firmen'], ['Lieblingsthema', 'Lieblingsthemen'], ['Antibiotikum', 'Antibiotika'],
      ['Lexikon', 'Lexika'], ['Schema', 'Schemata'], ['Index', 'Indizes'], ['Einheitsmatrix', 'Einheitsmatrizen'], ['Saldo', 'Salden'], ['Tempo', 'Tempi'],
    ]) {
      expect(matches(singular, `die ${plural}`), `${singular} → ${plural}`).toBe('word_form');
      expect(matches(plural, `das ${singular}`), `${plural} → ${singular}`).toBe('word_form');
    }
  });

  it('does not read German words as loan plurals', () => {
    expect(matches('Hai', 'das Haus')).toBe(false);
    expect(matches('Haus', 'der Hai')).toBe(false);
    expect(matches('Komma', 'wir kommen')).toBe(false);
    expect(matches('Datum', 'die Daten')).toBe(false);
    expect(matches('Kliniken', 'das Klinikum')).toBe(false);
  });

  it('meets a singular that Snowball stems apart from its plural', () => {
    // Kurs → kur but Kurse → kurs; Problem → probl but Probleme → problem; Abendstern → abend.
    expect(matches('Kurse', 'der Kurs')).toBe('word_form');
    expect(matches('Kurses', 'der Kurs')).toBe('word_form');
    expect(matches('Probleme', 'ein Problem')).toBe('word_form');
    expect(matches('Abendsterne', 'der Abendstern')).toBe('word_form');
    expect(matches('Erdgases', 'das Erdgas')).toBe('word_form');
  });

  it('splits hyphenated query words into one term per part and joins apostrophes', () => {
    expect(analyzeQuery('E-Mail-Adresse').map((t) => t.text)).toEqual(['E', 'Mail', 'Adresse']);
    expect(matches('E-Mail-Adresse', 'Ihre E-Mail-Adresse')).toBe('exact');
    expect(matches('Emailadresse', 'Ihre E-Mail-Adresse')).toBe('exact');
    expect(matches('Email', 'Ihre E-Mail-Adresse')).toBe('exact');
    expect(analyzeQuery("geht's").map((t) => t.exact)).toEqual(['gehts']);
  });

  it('drops punctuation and FTS syntax; punctuation alone gives no terms', () => {
    expect(analyzeQuery('')).toEqual([]);
    expect(analyzeQuery('  "*" () ^ - : ')).toEqual([]);
    expect(analyzeQuery('"Haus" OR Garten* NEAR(x)').map((t) => t.exact)).toEqual(['haus', 'or', 'garten', 'near', 'x']);
    for (const term of analyzeQuery('a"b AND c:d -e')) {
      expect(term.exact).toMatch(ONLY_LETTERS_AND_DIGITS);
      for (const base of term.bases) expect(base).toMatch(ONLY_LETTERS_AND_DIGITS);
    }
  });

  it('answers a repeated word alike, with copies the caller may change', () => {
    const first = analyzeQuery('Zentren');
    first[0].bases.push('junk');
    const again = analyzeQuery('Zentren');
    expect(again[0].bases).not.toContain('junk');
    expect(again[0].bases).toContain(analyzeWord('Zentrum').bases[0]);
  });

  it('gives one term for a repeated word', () => {
    expect(analyzeQuery('Haus haus HAUS').length).toBe(1);
  });

  it('matches section numbers', () => {
    expect(matches('5', 'gemäß § 5 Abs. 2')).toBe('exact');
    expect(matches('2016', 'im Jahr 2016')).toBe('exact');
  });
});

describe('analyzeForIndex', () => {
  it('gives one exact token per word and its bases in the base stream', () => {
    const result = analyzeForIndex('Die Häuser der Städte');
    expect(result.exact).toBe('die haeuser der staedte');
    expect(result.base.split(' ')).toEqual(expect.arrayContaining(['haus', 'stadt']));
  });

  it('analyses a 1 MB text and returns the same as word-by-word analysis', () => {
    const sentence = 'Die Bundesregierung legt dem Bundestag den Gesetzentwurf über Entschädigungsaufwendungen für Häuser vor, § 5 (2016). ';
    const text = sentence.repeat(Math.ceil(1_000_000 / sentence.length));
    expect(text.length).toBeGreaterThanOrEqual(1_000_000);
    const result = analyzeForIndex(text);
    const single = analyzeForIndex(sentence);
    const words = single.exact.split(' ').length;
    expect(result.exact.split(' ').length).toBe(words * Math.ceil(1_000_000 / sentence.length));
    expect(result.exact.startsWith(single.exact)).toBe(true);
    expect(result.base.startsWith(single.base)).toBe(true);
  });

  it('returns copies, so callers cannot corrupt the word cache', () => {
    analyzeWord('Kinder').bases.push('junk');
    expect(analyzeWord('Kinder').bases).toEqual(['kind']);
  });
});

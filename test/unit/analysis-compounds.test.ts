import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { splitCompound } from '../../services/core/analysis/compounds.ts';
import { foldForStemming } from '../../services/core/analysis/fold.ts';
import { analyzeForIndex, analyzeQuery } from '../../services/core/analysis/index.ts';
import { HUNSPELL_DIC } from '../../services/core/analysis/lexicon.ts';

/** The parts of a word's best split as written: Maus|zeiger → ['maus', 'zeiger']. */
function surfaces(word: string): string[] | undefined {
  return splitCompound(foldForStemming(word))?.map((part) => part.surface);
}

/** Whether a one-word query meets a text through the index's base stream (a compound part or form). */
function finds(query: string, text: string): boolean {
  const bases = new Set(analyzeForIndex(text).base.split(' '));
  return analyzeQuery(query).every((term) => term.bases.some((base) => bases.has(base)));
}

describe('linking s resolved by evidence', () => {
  it('takes the longer known part over a linking s (Maus|zeiger, Kurs|anmeldung, Glas|scheibe)', () => {
    expect(surfaces('Mauszeiger')).toEqual(['maus', 'zeiger']);
    expect(surfaces('Maustaste')).toEqual(['maus', 'taste']);
    expect(surfaces('Kursanmeldung')).toEqual(['kurs', 'anmeldung']);
    expect(surfaces('Glasscheibe')).toEqual(['glas', 'scheibe']);
    expect(surfaces('Flussdiagramm')).toEqual(['fluss', 'diagramm']);
  });

  it('keeps the linking s where the stem has no s of its own or always takes one', () => {
    expect(surfaces('Bundestagswahl')?.at(-1)).toBe('wahl');
    expect(surfaces('Arbeitsamt')).toEqual(['arbeits', 'amt']);
    expect(surfaces('Wohnungsbau')).toEqual(['wohnungs', 'bau']);
    expect(surfaces('Betriebsrat')).toEqual(['betriebs', 'rat']);
  });

  it('finds modifiers and heads both ways', () => {
    for (const [part, text] of [['Maus', 'den Mauszeiger bewegen'], ['Zeiger', 'den Mauszeiger bewegen'], ['Kurs', 'zur Kursanmeldung'], ['Anmeldung', 'zur Kursanmeldung'], ['Glas', 'die Glasscheibe']]) {
      expect(finds(part, text)).toBe(true);
    }
    expect(finds('Mau', 'den Mauszeiger bewegen')).toBe(false);
  });

  it('reads irregular plural heads (Benutzer|konten, Haupt|themen)', () => {
    expect(finds('Konto', 'Benutzerkonten anlegen')).toBe(true);
    expect(finds('Konten', 'Benutzerkonten anlegen')).toBe(true);
    expect(finds('Thema', 'die Hauptthemen')).toBe(true);
  });

  it('prefers a long s-initial head to a linking s before a rare short one (Daten|sätze, Ruhe|stand)', () => {
    expect(surfaces('Datensätze')).toEqual(['daten', 'sätze']);
    expect(surfaces('Ruhestand')).toEqual(['ruhe', 'stand']);
    expect(surfaces('Arbeitsspeicher')).toEqual(['arbeits', 'speicher']);
  });

  it('reads feminine heads in -in/-innen of a known noun (Fach|ärztin, Antrag|stellerinnen)', () => {
    expect(finds('Ärztin', 'die Fachärztin')).toBe(true);
    expect(finds('Stellerin', 'der Antragstellerinnen')).toBe(true);
    expect(surfaces('Medizin')).toBeUndefined();
  });

  it('keeps lexicalised words whole', () => {
    for (const word of ['Haushalt', 'Bundestag', 'Tabelle', 'Feiertag', 'Software', 'Werkzeug']) expect(surfaces(word)).toBeUndefined();
  });
});

describe.skipIf(!existsSync(HUNSPELL_DIC))('lexicon gaps filled from hunspell de_DE', () => {
  if (!existsSync(HUNSPELL_DIC)) console.warn(`skipping the hunspell lexicon tests: ${HUNSPELL_DIC || 'FUNDUS_HUNSPELL_DIC is empty, so no dictionary'} is absent (Debian: hunspell-de-de)`);

  it('knows nouns OpenThesaurus lacks (Orchester, Audio, Tablett)', () => {
    expect(surfaces('Orchestermusik')).toEqual(['orchester', 'musik']);
    expect(surfaces('Audiogeräte')).toEqual(['audio', 'geräte']);
    expect(surfaces('Grafiktablett')).toEqual(['grafik', 'tablett']);
  });

  it('takes verb stems as modifiers, never as heads (Trenn|zeichen, Prüf|summe)', () => {
    expect(surfaces('Trennzeichen')).toEqual(['trenn', 'zeichen']);
    expect(surfaces('Prüfsummen')).toEqual(['prüf', 'summen']);
    expect(finds('Trennen', 'das Trennzeichen')).toBe(true);
    expect(surfaces('Zeichentrenn')).toBeUndefined();
  });
});

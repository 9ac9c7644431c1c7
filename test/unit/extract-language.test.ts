import { describe, expect, it } from 'vitest';
import { decideLanguage, detectLanguage } from '../../services/ingest/extract/index.ts';
import { primaryLanguage } from '../../services/ingest/extract/language.ts';

const SAMPLES: Record<string, string> = {
  de: 'Der Bundestag hat mit Zustimmung des Bundesrates das folgende Gesetz beschlossen, das für alle Beamtinnen und Beamten des Bundes gilt, die am Stichtag im Dienst sind.',
  en: 'The committee has published its report on the state of the railways, and it recommends that the government should invest more in the maintenance of the existing lines.',
  fr: 'Le gouvernement a présenté un projet de loi qui prévoit que les communes pourront fixer elles-mêmes les horaires des transports publics dans leur région.',
  es: 'El ayuntamiento ha decidido que las obras de la nueva biblioteca comenzarán en primavera y que el edificio estará abierto para todos los vecinos del barrio.',
  it: 'Il consiglio comunale ha deciso che i lavori della nuova biblioteca inizieranno in primavera e che la struttura sarà aperta a tutti i cittadini del quartiere.',
  nl: 'De gemeenteraad heeft besloten dat de bouw van de nieuwe bibliotheek in het voorjaar begint en dat het gebouw voor alle bewoners van de wijk open is.',
  pt: 'A câmara municipal decidiu que as obras da nova biblioteca vão começar na primavera e que o edifício estará aberto para todos os moradores do bairro.',
};

describe('language detection', () => {
  for (const [lang, text] of Object.entries(SAMPLES)) {
    it(`recognises ${lang}`, () => {
      expect(detectLanguage(text)).toEqual({ language: lang, confident: true });
    });
  }

  it('is not confident about a few words, so the declaration decides', () => {
    expect(detectLanguage('Impressum').confident).toBe(false);
    expect(decideLanguage('Impressum', 'de-AT')).toBe('de');
    expect(decideLanguage('', null)).toBeNull();
  });

  it('lets a confident reading of the text win over a template declaration', () => {
    expect(decideLanguage(SAMPLES.en, 'de')).toBe('en');
    expect(decideLanguage(SAMPLES.de, 'en-US')).toBe('de');
  });

  it('reads primary subtags of BCP 47 tags', () => {
    expect(primaryLanguage('de-DE')).toBe('de');
    expect(primaryLanguage('EN_gb')).toBe('en');
    expect(primaryLanguage('und')).toBeNull();
    expect(primaryLanguage('deutsch')).toBeNull();
  });
});

import { describe, expect, it } from 'vitest';
import { stemGerman } from '../../services/core/analysis/snowball-german.ts';

// Reference stems of the published German Snowball algorithm (snowball-data
// german/output.txt), for words our CHANGEs do not touch.
const REFERENCE: Record<string, string> = {
  blühendsten: 'bluhend', blousenmannes: 'blousenmann', blubber: 'blubb', bogen: 'bog', böckchen: 'bockch',
  boykottieren: 'boykotti', braunkariertes: 'braunkariert', brauchst: 'brauch', brennendem: 'brennend',
  bruchstückweise: 'bruchstuckweis', bräunliche: 'braunlich', brüderlich: 'brud',
  brausten: 'braust', breies: 'breies', brandmauern: 'brandmau',
  buchstäbliche: 'buchstab', brüstung: 'brustung', brünstigem: 'brunstig',
  bridgefreundinnen: 'bridgefreundinn', blutdürstige: 'blutdurst', blutgieriges: 'blutgier',
  bondevik: 'bondev', bouffonerie: 'bouffoneri', brauchet: 'brauchet',
  brenzelte: 'brenzelt', brandrotes: 'brandrot', bockreiter: 'bockreit',
  blumenstrauß: 'blumenstrauss', brummbaßgezeter: 'brummbassgezet', bua: 'bua', bm: 'bm', bösestun: 'bosestun',
  blüht: 'bluht', bsorgen: 'bsorg', büchsenmacherei: 'buchsenmacherei', buchstabens: 'buchstab',
  boshaftes: 'boshaft', aufeinanderfolgenden: 'aufeinanderfolg', kategorischen: 'kategor',
  abenteuerlichen: 'abenteu', bedürfnissen: 'bedurfnis', derbsten: 'derb', treue: 'treu',
};

describe('stemGerman', () => {
  for (const [word, stem] of Object.entries(REFERENCE)) {
    it(`${word} → ${stem}`, () => expect(stemGerman(word)).toBe(stem));
  }

  it('applies the documented changes', () => {
    expect(stemGerman('systeme')).toBe('system'); // -em kept after syst
    expect(stemGerman('formeln')).toBe('formel'); // -ln → -l
    expect(stemGerman('kameras')).toBe('kamera'); // -s after a single vowel
    expect(stemGerman('krankenhaus')).toBe('krankenhaus'); // not after a diphthong
    expect(stemGerman('ergebnis')).toBe('ergebnis'); // not after i
    expect(stemGerman('haus')).toBe('haus'); // only inside R1
    // -ung, -heit, -keit stay (the published algorithm: bosart, boswill, buchhandl, breitspur, blossleg)
    expect(stemGerman('bösartigkeit')).toBe('bosartigkeit');
    expect(stemGerman('böswilligkeit')).toBe('boswilligkeit');
    expect(stemGerman('buchhandlungen')).toBe('buchhandlung');
    expect(stemGerman('breitspurigkeit')).toBe('breitspurigkeit');
    expect(stemGerman('bloßlegung')).toBe('blosslegung');
    expect(stemGerman('freiheiten')).toBe('freiheit');
    // a noun in -ung is not a form of its verb, nor of the noun without the suffix
    expect(stemGerman('abbildungen')).toBe(stemGerman('abbildung'));
    expect(stemGerman('abbildungen')).not.toBe(stemGerman('abbild'));
    expect(stemGerman('übersetzungen')).not.toBe(stemGerman('übersetzen'));
    expect(stemGerman('übersetzung')).not.toBe(stemGerman('übersetzer'));
    // the adjective suffixes still go (published behaviour)
    expect(stemGerman('brüderlich')).toBe('brud');
    expect(stemGerman('blutdürstige')).toBe('blutdurst');
  });

  it('copes with short and non-German input', () => {
    expect(stemGerman('')).toBe('');
    expect(stemGerman('a')).toBe('a');
    expect(stemGerman('2016')).toBe('2016');
  });
});

import { describe, expect, it } from 'vitest';
import { findLabelledDates, findLeadingDate } from '../../services/ingest/extract/content-dates.ts';
import { decideDates } from '../../services/ingest/extract/date-precedence.ts';
import { dateToIso, normaliseDate, parseHumanDate } from '../../services/ingest/extract/dates.ts';

describe('normaliseDate', () => {
  it.each([
    ['2021-02-12', '2021-02-12'],
    ['2021-02', '2021-02'],
    ['2021-02-12T10:05:00Z', '2021-02-12T10:05:00Z'],
    ['2021-02-12T10:05:00.123+0100', '2021-02-12T10:05:00+01:00'],
    ['2021-02-12 10:05', '2021-02-12T10:05:00'],
    // Office tools store date-only values as midnight UTC.
    ['2012-10-15T00:00:00Z', '2012-10-15'],
    ['2019-11-29T00:00:00', '2019-11-29'],
    ["D:20160203215239+01'00'", '2016-02-03T21:52:39+01:00'],
    ['D:20171218000000Z', '2017-12-18'],
    ['D:2007', '2007-01-01'],
    ['Thu, 22 Sep 2022 12:36:46 GMT', '2022-09-22T12:36:46Z'],
    ['Sunday, 06-Nov-94 08:49:37 GMT', '1994-11-06T08:49:37Z'],
    ['Sun Nov  6 08:49:37 1994', '1994-11-06T08:49:37Z'],
    ['20210212', '2021-02-12'],
    ['12. Januar 2016', '2016-01-12'],
    ['12.01.2016', '2016-01-12'],
  ])('%s -> %s', (input, expected) => {
    expect(normaliseDate(input)).toBe(expected);
  });

  it.each(['', 'gestern', '2021-13-01', '2021-02-30', '31.02.2020', '0000-00-00', '1066-10-14', '2021'])('rejects %j', (input) => {
    expect(normaliseDate(input)).toBeNull();
  });

  it('takes a bare year only when asked', () => {
    expect(normaliseDate('2016', { allowYearOnly: true })).toBe('2016');
  });
});

describe('parseHumanDate', () => {
  it.each([
    ['5. Mai 1993', '1993-05-05'],
    ['31. Mai 1993', '1993-05-31'],
    ['4. August 2022', '2022-08-04'],
    ['1. Jan. 2020', '2020-01-01'],
    ['März 2021', '2021-03'],
    ['September 2022', '2022-09'],
    ['6. 5.1976', '1976-05-06'],
    ['January 12, 2016', '2016-01-12'],
    ['12.1.16', '2016-01-12'],
  ])('%s -> %s', (input, expected) => {
    expect(parseHumanDate(input)).toBe(expected);
  });

  it('gives null for words that are no date', () => {
    expect(parseHumanDate('PSUtils Release 1 Patchlevel 17')).toBeNull();
    expect(parseHumanDate('lokal')).toBeNull();
  });
});

describe('dates named in the text', () => {
  it('reads the statement block of a law', () => {
    const text = 'Besoldungsüberleitungsgesetz (BesÜG)\nAusfertigungsdatum\n2009-02-05\nFundstelle\nBGBl I: 2009, 160\nNeugefasst durch\nBek. v. 23.8.2001 I 2239;\nZuletzt geändert durch\nArt. 69 V v. 19.6.2020 I 1328\n§ 1 Geltungsbereich';
    expect(findLabelledDates(text)).toEqual({
      text_ausfertigungsdatum: '2009-02-05',
      text_neugefasst: '2001-08-23',
      text_zuletzt_geaendert: '2020-06-19',
    });
  });

  it('ignores the same words in running text and labels far from their date', () => {
    const text = 'Titel\nAusfertigungsdatum\n2009-02-05\n§ 1\nDie Vorschrift wurde zuletzt geändert durch Gesetz vom 1.1.1990.\nStand: Neufassung vom 16. 1.1989 I 76\nDie Liste wurde veröffentlicht am 14.08.2021.';
    expect(findLabelledDates(text)).toEqual({ text_ausfertigungsdatum: '2009-02-05' });
  });

  it('finds "Stand:" at the head or the foot of a text', () => {
    expect(findLabelledDates(`Merkblatt\n${'Inhalt. '.repeat(2000)}\nStand: 01.03.2021`)).toEqual({ text_stand: '2021-03-01' });
  });

  it('finds a date alone on one of the first lines', () => {
    expect(findLeadingDate('Hooks Flaggschiff,\n12. März 2018\nKapitän Hook')).toBe('2018-03-12');
    expect(findLeadingDate('Berlin, den 3. Mai 2021\nSehr geehrte Damen und Herren')).toBe('2021-05-03');
    expect(findLeadingDate('Ein Satz, der am 3. Mai 2021 etwas sagt, ist kein Datumskopf.')).toBeNull();
  });
});

describe('date precedence', () => {
  it('prefers structured statements over file metadata over the text', () => {
    expect(decideDates({ text_ausfertigungsdatum: '2001-01-01', pdf_creation_date: '2002-02-02', json_ld_date_published: '2003-03-03' }).publishedAt).toBe('2003-03-03');
    expect(decideDates({ text_ausfertigungsdatum: '2001-01-01', pdf_creation_date: '2002-02-02' }).publishedAt).toBe('2002-02-02');
    expect(decideDates({ text_zuletzt_geaendert: '2020-06-19', text_neugefasst: '2001-08-23' }).modifiedAt).toBe('2020-06-19');
    expect(decideDates({ text_neugefasst: '2001-08-23' }).modifiedAt).toBe('2001-08-23');
  });

  it('uses the Last-Modified header only for documents without dates of their own', () => {
    expect(decideDates({ http_last_modified: '2022-09-22T12:36:46Z' })).toEqual({ publishedAt: null, modifiedAt: '2022-09-22T12:36:46Z', contentDate: null });
    expect(decideDates({ pdf_creation_date: '2022-10-08T03:52:48Z', http_last_modified: '2022-10-08T03:52:48Z' }).modifiedAt).toBeNull();
  });

  it('never invents a date', () => {
    expect(decideDates({})).toEqual({ publishedAt: null, modifiedAt: null, contentDate: null });
  });

  it('converts binary timestamps with the midnight rule', () => {
    expect(dateToIso(new Date('1955-06-08T00:00:00Z'))).toBe('1955-06-08');
    expect(dateToIso(new Date('2020-06-19T14:03:00Z'))).toBe('2020-06-19T14:03:00Z');
    expect(dateToIso(new Date(Number.NaN))).toBeNull();
  });
});

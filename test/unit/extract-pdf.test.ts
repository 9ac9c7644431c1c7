import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { extractDocument } from '../../services/ingest/extract/index.ts';
import { CORPUS as CORPUS_DIR, describeWithCorpus, readCorpusJsonl } from '../helpers/shared-corpus.ts';
import { normaliseLineEndHyphens } from '../../services/ingest/extract/pdf.ts';
import { dehyphenate } from '../../services/ingest/extract/text.ts';
import { decidePdfTitle } from '../../services/ingest/extract/title.ts';

const CORPUS = `${CORPUS_DIR}/`;

interface Truth {
  path: string;
  url: string;
  title: string;
  published_at: string | null;
  modified_at: string | null;
  lang: string;
  key_terms: string[];
}
let truth: Truth[] = [];

/** A one-page PDF with one line of text per entry and an optional Info dictionary, offsets computed. */
export function makePdf(lines: string[], info = ''): Uint8Array {
  const stream = `BT /F1 12 Tf 72 720 Td 14 TL ${lines.map((l) => `(${l.replace(/[()\\]/g, '\\$&')}) '`).join(' ')} ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
  ];
  if (info) objects.push(info);
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R${info ? ` /Info ${objects.length} 0 R` : ''} >>\nstartxref\n${xref}\n%%EOF\n`;
  return Uint8Array.from(out, (c) => c.charCodeAt(0));
}

const SAMPLES = [
  'pdf/gesetze/stabg.pdf', // Info Title, CreationDate and ModDate
  'pdf/gesetze/berathig.pdf', // no Info dates: Ausfertigungsdatum and "Zuletzt geändert" from the text
  'pdf/mirrors.ctan.org/info/l2tabu/german/l2tabu.pdf',
  'pdf/www.debian.org/doc/manuals/maint-guide/maint-guide.de.pdf', // CreationDate only
];

describeWithCorpus('PDFs from the corpus', () => {
  beforeAll(() => {
    truth = readCorpusJsonl<Truth>('truth.jsonl');
  });
  for (const path of SAMPLES) {
    it(path, async () => {
      const t = truth.find((r) => r.path === path)!;
      const doc = await extractDocument({ bytes: readFileSync(`${CORPUS}${path}`), url: t.url });
      expect(doc.documentType).toBe('pdf');
      expect(doc.contentType).toBe('application/pdf');
      expect(doc.publishedAt?.slice(0, 10) ?? null).toBe(t.published_at);
      expect(doc.modifiedAt?.slice(0, 10) ?? null).toBe(t.modified_at);
      expect(doc.language).toBe(t.lang);
      expect(doc.content.pageCount).toBeGreaterThan(0);
      for (const term of t.key_terms) expect(doc.text).toContain(term);
    });
  }

  it('takes the Info title and keeps the timestamp with its offset', async () => {
    const doc = await extractDocument({ bytes: readFileSync(`${CORPUS}pdf/gesetze/stabg.pdf`), url: 'https://dokumente.example.org/gesetze/stabg.pdf' });
    expect(doc.title).toBe('Gesetz zur Förderung der Stabilität und des Wachstums der Wirtschaft');
    expect(doc.dates).toMatchObject({ pdf_creation_date: '1967-06-08', pdf_mod_date: '2015-08-31' });
    const tex = await extractDocument({ bytes: readFileSync(`${CORPUS}pdf/texdoc.net/latex/l2tabu/l2tabu.pdf`), url: 'https://texdoc.net/x.pdf' });
    expect(tex.publishedAt).toBe('2016-02-03T21:52:39+01:00');
  });

  it('does not leave the caller with a detached buffer', async () => {
    const bytes = new Uint8Array(readFileSync(`${CORPUS}pdf/gesetze/einsatzuv.pdf`));
    const length = bytes.length;
    await extractDocument({ bytes, url: 'https://x.example/a.pdf' });
    expect(bytes.length).toBe(length);
  });
});

describe('PDFs made in the test', () => {
  it('reads text, Info title and dates of a hand-made PDF', async () => {
    const pdf = makePdf(['Merkblatt zur Abfalltrennung', 'Bitte trennen Sie Papier, Glas und Restmüll.'], "<< /Title (Merkblatt Abfall) /CreationDate (D:20210301120000+01'00') >>");
    const doc = await extractDocument({ bytes: pdf, url: 'https://x.example/merkblatt.pdf' });
    expect(doc.title).toBe('Merkblatt Abfall');
    expect(doc.text).toContain('Bitte trennen Sie Papier, Glas und Restm');
    expect(doc.publishedAt).toBe('2021-03-01T12:00:00+01:00');
    expect(doc.content.pageCount).toBe(1);
  });

  it('takes the first line as title when the Info title is a file name', async () => {
    const pdf = makePdf(['Satzung des Vereins', 'Paragraph 1 Name und Sitz'], '<< /Title (satzung.dvi) >>');
    expect((await extractDocument({ bytes: pdf, url: 'https://x.example/s.pdf' })).title).toBe('Satzung des Vereins');
  });

  it('prefers the title page heading when it is the metadata title as typeset (LaTeX2ε, not LaTeX2e)', async () => {
    const pdf = makePdf(['Das LATEX-Handbuch', 'Version 2.4'], '<< /Title (Das Latex-Handbuch) >>');
    expect((await extractDocument({ bytes: pdf, url: 'https://x.example/l2.pdf' })).title).toBe('Das LaTeX-Handbuch');
    expect(decidePdfTitle('Das LaTeX2e-Sündenregister', 'Das LATEX 2ε-Sündenregister\nVersion 2.4')).toEqual({ title: 'Das LaTeX2ε-Sündenregister', source: 'heading' });
    expect(decidePdfTitle('Merkblatt Abfall', 'Bitte trennen Sie Papier\nGlas')).toEqual({ title: 'Merkblatt Abfall', source: 'metadata' });
  });

  it('names a title page that gives only a package name by its subtitle and the name', async () => {
    const pdf = makePdf(['dehyph-exptl*', 'Experimentelle Trennmuster für die deutsche Sprache', 'Die Trennmustermannschaft'], '<< /Title (dehyph-exptl) >>');
    expect((await extractDocument({ bytes: pdf, url: 'https://x.example/d.pdf' })).title).toBe('Experimentelle Trennmuster für die deutsche Sprache (dehyph-exptl)');
    // Words are a title already; a version line or a date is no subtitle.
    expect(decidePdfTitle('Satzung', 'Satzung\nDes Vereins der Freunde')).toEqual({ title: 'Satzung', source: 'metadata' });
    expect(decidePdfTitle('mytool', 'mytool\nVersion 2.4 vom 3. Mai 2010')).toEqual({ title: 'mytool', source: 'metadata' });
  });

  it('skips a credit line with a web address above the title page heading', async () => {
    const pdf = makePdf(['Zeichnung von Duane Bibby; Dank an www.ctan.org', 'Bilder einfügen in LaTeX', 'Version 1.50'], '<< /Title (l2picfaq.dvi) >>');
    expect((await extractDocument({ bytes: pdf, url: 'https://x.example/p.pdf' })).title).toBe('Bilder einfügen in LaTeX');
  });

  it('joins words broken at line ends however the PDF writes the hyphen, and keeps elided compounds', () => {
    const join = (text: string) => dehyphenate(normaliseLineEndHyphens(text));
    expect(join('Ent-\nschädigung')).toBe('Entschädigung');
    expect(join('Ent- \nschädigung')).toBe('Entschädigung');
    expect(join('Ent\u2010\nschädigung')).toBe('Entschädigung');
    expect(join('Ent\u00ad\nschädigung und Ver\u00adtrag')).toBe('Entschädigung und Vertrag');
    expect(join('am Seitenende Ent-\n\nschädigung')).toBe('am Seitenende Entschädigung');
    expect(join('Land-\nund Forstwirtschaft')).toBe('Land-\nund Forstwirtschaft');
    expect(join('E-\nMail')).toBe('E-\nMail');
  });

  it('finds a word hyphenated across lines in a PDF', async () => {
    const pdf = makePdf(['Die Entschaedi-', 'gungsaufwendungen des Bundes']);
    const doc = await extractDocument({ bytes: pdf, url: 'https://x.example/h.pdf' });
    expect(doc.text).toContain('Entschaedigungsaufwendungen');
  });

  it('reports a truncated PDF as CORRUPT_FILE', async () => {
    const pdf = makePdf(['Ein Text', 'noch ein Text']);
    await expect(extractDocument({ bytes: pdf.subarray(0, Math.floor(pdf.length * 0.4)), url: 'https://x.example/t.pdf' })).rejects.toMatchObject({ code: 'CORRUPT_FILE' });
  });

  it('says NO_TEXT for a PDF without a text layer', async () => {
    await expect(extractDocument({ bytes: makePdf([]), url: 'https://x.example/scan.pdf' })).rejects.toMatchObject({ code: 'NO_TEXT' });
  });
});

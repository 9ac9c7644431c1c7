import { readFileSync } from 'node:fs';
import { strToU8, zipSync, type Zippable } from 'fflate';
import { beforeAll, describe, expect, it } from 'vitest';
import { extractDocument } from '../../services/ingest/extract/index.ts';
import { CORPUS as CORPUS_DIR, describeWithCorpus, readCorpusJsonl } from '../helpers/shared-corpus.ts';

const CORPUS = `${CORPUS_DIR}/`;

interface Truth {
  path: string;
  url: string;
  type: string;
  title: string;
  published_at: string | null;
  modified_at: string | null;
  lang: string;
  key_terms: string[];
}
let truth: Truth[] = [];

function expectSameDate(actual: string | null, expected: string | null) {
  if (expected === null) expect(actual).toBeNull();
  else expect(actual?.slice(0, expected.length)).toBe(expected);
}

const SAMPLES = [
  'docx/gesetze/milog.docx', // created + modified in core.xml
  'docx/gesetze/tfgmv.docx', // no metadata dates: Ausfertigungsdatum and "Zuletzt geändert" from the text
  'docx/maint-guide/maint-guide-build.docx', // undated
  'odt/gesetze/luftvstdv.odt', // meta:creation-date + dc:date
  'odt/gesetze/bitv_2_0.odt', // dates from the text
  'odt/maint-guide/maint-guide-start.odt',
  'doc/gesetze/gkv-solg.doc', // SummaryInformation create + last-saved times
  'doc/gesetze/besueg.doc', // dates from the text
  'doc/gesetze/besatzreglvtrteil5bek.doc', // a 1955 creation time (before 1970)
];

describeWithCorpus('office files from the corpus', () => {
  beforeAll(() => {
    truth = readCorpusJsonl<Truth>('truth.jsonl');
  });
  for (const path of SAMPLES) {
    it(path, async () => {
      const t = truth.find((r) => r.path === path)!;
      const doc = await extractDocument({ bytes: readFileSync(`${CORPUS}${path}`), url: t.url, fileName: path.split('/').pop() });
      expect(doc.documentType).toBe(t.type);
      expect(doc.title.replace(/\s+/g, ' ')).toBe(t.title.replace(/\s+/g, ' '));
      expectSameDate(doc.publishedAt, t.published_at);
      expectSameDate(doc.modifiedAt, t.modified_at);
      expect(doc.language).toBe(t.lang);
      for (const term of t.key_terms) expect(doc.text).toContain(term);
      expect(doc.canonicalUrl).toBeNull();
      expect(doc.isNews).toBe(false);
    });
  }
});

const CONTENT_TYPES = '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>';
const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';

function para(text: string, style?: string): string {
  const pPr = style ? `<w:pPr><w:pStyle w:val="${style}"/></w:pPr>` : '';
  return `<w:p>${pPr}<w:r><w:t xml:space="preserve">${text}</w:t></w:r></w:p>`;
}

function docx(body: string, core?: string, extra: Zippable = {}): Uint8Array {
  const files: Zippable = {
    '[Content_Types].xml': strToU8(CONTENT_TYPES),
    'word/document.xml': strToU8(`<?xml version="1.0"?><w:document ${W}><w:body>${body}</w:body></w:document>`),
    ...extra,
  };
  if (core) files['docProps/core.xml'] = strToU8(core);
  return zipSync(files);
}

function odt(body: string, meta?: string): Uint8Array {
  const files: Zippable = {
    mimetype: [strToU8('application/vnd.oasis.opendocument.text'), { level: 0 }],
    'content.xml': strToU8(`<?xml version="1.0"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"><office:automatic-styles><style:style/></office:automatic-styles><office:body><office:text>${body}</office:text></office:body></office:document-content>`),
  };
  if (meta) files['meta.xml'] = strToU8(`<?xml version="1.0"?><office:document-meta xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0" xmlns:dc="http://purl.org/dc/elements/1.1/"><office:meta>${meta}</office:meta></office:document-meta>`);
  return zipSync(files);
}

describe('DOCX made in the test', () => {
  it('reads text, takes the Title or Heading 1 paragraph as title without metadata, and skips deleted text', async () => {
    const doc = await extractDocument({
      bytes: docx(
        para('Satzung des Vereins (VfV)', 'Heading1') +
          para('Der Verein führt den Namen &quot;Verein für Vereinsmaierei&quot; &amp; Co.') +
          '<w:p><w:r><w:t>Ge</w:t></w:r><w:r><w:t>strichen</w:t></w:r><w:del><w:r><w:delText>gelöschter Text</w:delText></w:r></w:del></w:p>' +
          '<w:tbl><w:tr><w:tc>' + para('Zelle eins') + '</w:tc><w:tc>' + para('Zelle zwei') + '</w:tc></w:tr></w:tbl>',
      ),
      url: 'https://example.org/satzung.docx',
    });
    expect(doc.documentType).toBe('docx');
    expect(doc.contentType).toBe('application/vnd.openxmlformats-officedocument.wordprocessingml.document');
    expect(doc.title).toBe('Satzung des Vereins');
    expect(doc.text).toContain('Der Verein führt den Namen "Verein für Vereinsmaierei" & Co.');
    expect(doc.text).toContain('Gestrichen');
    expect(doc.text).not.toContain('gelöschter Text');
    expect(doc.text).toMatch(/Zelle eins\s+Zelle zwei/);
    expect(doc.publishedAt).toBeNull();
  });

  it('reads dc:title and the dcterms dates of docProps/core.xml', async () => {
    const core = '<cp:coreProperties xmlns:cp="x" xmlns:dc="y" xmlns:dcterms="z"><dc:title>Jahresbericht 2023</dc:title><dc:language>de-DE</dc:language><dcterms:created>2024-01-15T09:30:00Z</dcterms:created><dcterms:modified>2024-02-01T00:00:00Z</dcterms:modified></cp:coreProperties>';
    const doc = await extractDocument({ bytes: docx(para('Einleitung des Berichts über das vergangene Jahr.'), core), url: 'https://example.org/b.docx' });
    expect(doc.title).toBe('Jahresbericht 2023');
    expect(doc.publishedAt).toBe('2024-01-15T09:30:00Z');
    expect(doc.modifiedAt).toBe('2024-02-01');
    expect(doc.dates).toMatchObject({ docx_created: '2024-01-15T09:30:00Z', docx_modified: '2024-02-01' });
  });

  it('refuses a small zip bomb, also when the central directory lies about the size', async () => {
    const zeros = new Uint8Array(8 * 1024 * 1024);
    const bomb = docx('', undefined, { 'word/document.xml': [zeros, { level: 9 }] });
    expect(bomb.length).toBeLessThan(64 * 1024);
    const limits = { maxEntryBytes: 1024 * 1024, maxTotalBytes: 4 * 1024 * 1024, maxEntries: 100 };
    await expect(extractDocument({ bytes: bomb, url: 'https://example.org/bomb.docx' }, { zipLimits: limits })).rejects.toMatchObject({ code: 'DECOMPRESSION_LIMIT' });

    // Patch the declared uncompressed size of every central directory entry to 100 bytes.
    const lying = bomb.slice();
    const dv = new DataView(lying.buffer);
    for (let at = 0; at + 46 <= lying.length; at++) {
      if (dv.getUint32(at, true) === 0x02014b50) dv.setUint32(at + 24, 100, true);
    }
    await expect(extractDocument({ bytes: lying, url: 'https://example.org/bomb.docx' }, { zipLimits: limits })).rejects.toMatchObject({ code: 'DECOMPRESSION_LIMIT' });
  });

  it('reports a cut-off or garbled zip as CORRUPT_FILE', async () => {
    const good = docx(para('Ein Absatz mit genug Text, damit er komprimiert wird. '.repeat(50)));
    await expect(extractDocument({ bytes: good.subarray(0, good.length - 40), url: 'https://example.org/a.docx', fileName: 'a.docx' })).rejects.toMatchObject({ code: 'CORRUPT_FILE' });
    const garbled = good.slice();
    garbled.fill(0x41, 200, 400);
    await expect(extractDocument({ bytes: garbled, url: 'https://example.org/a.docx', fileName: 'a.docx' })).rejects.toMatchObject({ code: 'CORRUPT_FILE' });
  });

  it('says NO_TEXT for an empty document', async () => {
    await expect(extractDocument({ bytes: docx(''), url: 'https://example.org/e.docx' })).rejects.toMatchObject({ code: 'NO_TEXT' });
  });
});

describe('ODT made in the test', () => {
  it('reads headings, paragraphs with <text:s/>, lists, tables and meta.xml', async () => {
    const doc = await extractDocument({
      bytes: odt(
        '<text:h text:outline-level="1">Hausordnung</text:h><text:p>Ruhezeiten<text:s text:c="2"/>gelten ab 22 Uhr.<text:line-break/>Danke.</text:p>' +
          '<text:list><text:list-item><text:p>Müll trennen</text:p></text:list-item></text:list>' +
          '<table:table><table:table-row><table:table-cell><text:p>Montag</text:p></table:table-cell><table:table-cell><text:p>Treppenhaus</text:p></table:table-cell></table:table-row></table:table>' +
          '<text:p>Fußnote<text:note><text:note-citation>1</text:note-citation><text:note-body><text:p>Siehe Mietvertrag.</text:p></text:note-body></text:note></text:p>',
        '<dc:title>Hausordnung Lindenstraße 5</dc:title><meta:creation-date>2021-03-01T10:00:00</meta:creation-date><dc:date>2023-07-12T08:00:00</dc:date><dc:language>de-DE</dc:language>',
      ),
      url: 'https://example.org/hausordnung.odt',
    });
    expect(doc.documentType).toBe('odt');
    expect(doc.title).toBe('Hausordnung Lindenstraße 5');
    // <text:s/> keeps the words apart; runs of spaces are collapsed like everywhere else.
    expect(doc.text).toContain('Ruhezeiten gelten ab 22 Uhr.\nDanke.');
    expect(doc.text).toContain('Müll trennen');
    expect(doc.text).toMatch(/Montag\s+Treppenhaus/);
    expect(doc.text).toContain('Siehe Mietvertrag.');
    expect(doc.publishedAt).toBe('2021-03-01T10:00:00');
    expect(doc.modifiedAt).toBe('2023-07-12T08:00:00');
  });

  it('falls back to the first heading without a metadata title', async () => {
    const doc = await extractDocument({ bytes: odt('<text:p>Vorwort</text:p><text:h text:outline-level="2">Unterkapitel</text:h><text:h text:outline-level="1">Gesetz über Beispiele (BspG)</text:h>'), url: 'https://example.org/x.odt' });
    expect(doc.title).toBe('Gesetz über Beispiele');
  });
});

/** A minimal OLE compound file (512-byte sectors) holding the given streams in regular sectors. */
function makeCfb(streams: { name: string; data: Uint8Array }[]): Uint8Array {
  const SECTOR = 512;
  const END = 0xfffffffe;
  const FREE = 0xffffffff;
  const padded = streams.map((s) => {
    const size = Math.max(4096, Math.ceil(s.data.length / SECTOR) * SECTOR);
    const data = new Uint8Array(size);
    data.set(s.data);
    return { name: s.name, data };
  });
  // Sector 0: FAT, sector 1: directory, then the streams one after another.
  const fat = new Uint32Array(SECTOR / 4).fill(FREE);
  fat[0] = 0xfffffffd;
  fat[1] = END;
  let next = 2;
  const starts: number[] = [];
  for (const s of padded) {
    const count = s.data.length / SECTOR;
    starts.push(next);
    for (let i = 0; i < count; i++) fat[next + i] = i === count - 1 ? END : next + i + 1;
    next += count;
  }
  const out = new Uint8Array(SECTOR * (next + 1));
  const dv = new DataView(out.buffer);
  out.set([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
  dv.setUint16(0x18, 0x3e, true);
  dv.setUint16(0x1a, 3, true);
  dv.setUint16(0x1c, 0xfffe, true);
  dv.setUint16(0x1e, 9, true);
  dv.setUint16(0x20, 6, true);
  dv.setUint32(0x2c, 1, true);
  dv.setUint32(0x30, 1, true);
  dv.setUint32(0x38, 4096, true);
  dv.setUint32(0x3c, END, true);
  dv.setUint32(0x44, END, true);
  for (let i = 0; i < 109; i++) dv.setUint32(0x4c + i * 4, i === 0 ? 0 : FREE, true);
  out.set(new Uint8Array(fat.buffer), SECTOR);
  const entry = (index: number, name: string, type: number, start: number, size: number) => {
    const at = SECTOR * 2 + index * 128;
    for (let i = 0; i < name.length; i++) dv.setUint16(at + i * 2, name.charCodeAt(i), true);
    dv.setUint16(at + 0x40, (name.length + 1) * 2, true);
    out[at + 0x42] = type;
    dv.setUint32(at + 0x44, FREE, true);
    dv.setUint32(at + 0x48, FREE, true);
    dv.setUint32(at + 0x4c, FREE, true);
    dv.setUint32(at + 0x74, start, true);
    dv.setUint32(at + 0x78, size, true);
  };
  entry(0, 'Root Entry', 5, END, 0);
  padded.forEach((s, i) => entry(i + 1, s.name, 2, starts[i], s.data.length));
  padded.forEach((s, i) => out.set(s.data, SECTOR * (starts[i] + 1)));
  return out;
}

describe('OLE containers made in the test', () => {
  it('reports a password-protected DOCX (an OLE EncryptedPackage) as ENCRYPTED', async () => {
    const cfb = makeCfb([{ name: 'EncryptionInfo', data: new Uint8Array(100) }, { name: 'EncryptedPackage', data: new Uint8Array(100) }]);
    await expect(extractDocument({ bytes: cfb, url: 'https://example.org/geheim.docx', fileName: 'geheim.docx' })).rejects.toMatchObject({ code: 'ENCRYPTED' });
  });

  it('reports a .doc with the fEncrypted flag as ENCRYPTED', async () => {
    const fib = new Uint8Array(0x40);
    new DataView(fib.buffer).setUint16(0, 0xa5ec, true);
    new DataView(fib.buffer).setUint16(0x0a, 0x0100, true);
    const cfb = makeCfb([{ name: 'WordDocument', data: fib }]);
    await expect(extractDocument({ bytes: cfb, url: 'https://example.org/geheim.doc', fileName: 'geheim.doc' })).rejects.toMatchObject({ code: 'ENCRYPTED' });
  });

  it('takes an OLE file without a WordDocument stream for something else', async () => {
    const cfb = makeCfb([{ name: 'Workbook', data: new Uint8Array(100) }]);
    await expect(extractDocument({ bytes: cfb, url: 'https://example.org/tabelle.doc', fileName: 'tabelle.doc' })).rejects.toMatchObject({ code: 'UNSUPPORTED_TYPE' });
  });

  it('reports a password-protected ODT as ENCRYPTED', async () => {
    const bytes = zipSync({
      mimetype: [strToU8('application/vnd.oasis.opendocument.text'), { level: 0 }],
      'META-INF/manifest.xml': strToU8('<manifest:manifest><manifest:file-entry manifest:full-path="content.xml"><manifest:encryption-data manifest:checksum-type="SHA1/1K"/></manifest:file-entry></manifest:manifest>'),
      'content.xml': new Uint8Array([1, 2, 3, 4]),
    });
    await expect(extractDocument({ bytes, url: 'https://example.org/geheim.odt' })).rejects.toMatchObject({ code: 'ENCRYPTED' });
  });
});

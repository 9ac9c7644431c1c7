import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { sniffDocumentType } from '../../services/ingest/extract/index.ts';
import { CORPUS as CORPUS_DIR, itWithCorpus } from '../helpers/shared-corpus.ts';

const CORPUS = `${CORPUS_DIR}/`;

const text = (s: string) => new TextEncoder().encode(s);

const DOCX_CONTENT_TYPES = '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>';
const XLSX_CONTENT_TYPES = '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/></Types>';

describe('sniffDocumentType', () => {
  it('recognises HTML by its first tag, also behind a BOM, an XML declaration or in UTF-16', () => {
    expect(sniffDocumentType(text('<!DOCTYPE html><html><body>x</body></html>'))).toBe('html');
    expect(sniffDocumentType(text('\ufeff  <html lang="de"><p>x</p></html>'))).toBe('html');
    expect(sniffDocumentType(text('<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" "x"><html xmlns="http://www.w3.org/1999/xhtml"></html>'))).toBe('html');
    const utf16 = new Uint8Array([0xff, 0xfe, ...Buffer.from('<html><body>Grüße</body></html>', 'utf16le')]);
    expect(sniffDocumentType(utf16)).toBe('html');
    expect(sniffDocumentType(text('<!-- generated -->\n<div>x</div>'))).toBe('html');
  });

  it('does not take plain text or binary junk for HTML, whatever the name says', () => {
    expect(sniffDocumentType(text('Nur ein Text ohne Auszeichnung.'), 'a.txt', 'text/plain')).toBeNull();
    expect(sniffDocumentType(randomBytes(64 * 1024), 'junk.html', 'text/html')).toBeNull();
    expect(sniffDocumentType(new Uint8Array(0), 'empty.html')).toBeNull();
    // Text with a late tag counts only when the server or the name says HTML.
    expect(sniffDocumentType(text('Vorspann\n<span>x</span>'), 'a.html')).toBe('html');
    expect(sniffDocumentType(text('Vorspann\n<span>x</span>'))).toBeNull();
  });

  it('finds %PDF- in the first kilobyte, whatever the name', () => {
    expect(sniffDocumentType(text('%PDF-1.7\n...'), 'letter.docx')).toBe('pdf');
    expect(sniffDocumentType(text(`${'\0'.repeat(100)}%PDF-1.4\n`))).toBe('pdf');
    expect(sniffDocumentType(text(`${' '.repeat(2000)}%PDF-1.4\n`))).toBeNull();
  });

  it('tells DOCX, ODT and other zips apart by their entries', () => {
    const docx = zipSync({ '[Content_Types].xml': strToU8(DOCX_CONTENT_TYPES), 'word/document.xml': strToU8('<w:document/>') });
    expect(sniffDocumentType(docx, 'report.odt')).toBe('docx');
    const odt = zipSync({ mimetype: [strToU8('application/vnd.oasis.opendocument.text'), { level: 0 }], 'content.xml': strToU8('<office:document-content/>') });
    expect(sniffDocumentType(odt, 'x.zip')).toBe('odt');
    const ods = zipSync({ mimetype: [strToU8('application/vnd.oasis.opendocument.spreadsheet'), { level: 0 }] });
    expect(sniffDocumentType(ods, 'table.odt')).toBeNull();
    const xlsx = zipSync({ '[Content_Types].xml': strToU8(XLSX_CONTENT_TYPES), 'xl/workbook.xml': strToU8('<workbook/>') });
    expect(sniffDocumentType(xlsx, 'sheet.docx')).toBeNull();
    expect(sniffDocumentType(zipSync({ 'a.txt': strToU8('hello') }))).toBeNull();
  });

  it('reports a damaged zip as the type it claims to be, so the error can say "corrupt"', () => {
    const docx = zipSync({ '[Content_Types].xml': strToU8(DOCX_CONTENT_TYPES), 'word/document.xml': strToU8('<w:document/>') });
    const cut = docx.subarray(0, docx.length - 30);
    expect(sniffDocumentType(cut, 'a.docx')).toBe('docx');
    expect(sniffDocumentType(cut)).toBeNull();
  });

  itWithCorpus('reads the corpus formats from their bytes', () => {
    expect(sniffDocumentType(readFileSync(`${CORPUS}doc/gesetze/besueg.doc`))).toBe('doc');
    expect(sniffDocumentType(readFileSync(`${CORPUS}docx/gesetze/milog.docx`))).toBe('docx');
    expect(sniffDocumentType(readFileSync(`${CORPUS}odt/gesetze/bitv_2_0.odt`))).toBe('odt');
    expect(sniffDocumentType(readFileSync(`${CORPUS}pdf/gesetze/stabg.pdf`))).toBe('pdf');
    expect(sniffDocumentType(readFileSync(`${CORPUS}broken/wrong-extension.docx`), 'wrong-extension.docx')).toBe('pdf');
    expect(sniffDocumentType(readFileSync(`${CORPUS}broken/junk.html`), 'junk.html', 'text/html; charset=utf-8')).toBeNull();
    expect(sniffDocumentType(readFileSync(`${CORPUS}html/www.debian.org/doc/manuals/debian-faq/choosing.de.html`))).toBe('html');
  });
});

// DOCX: the guarded zip reader, then word/document.xml (text, headings) and docProps (title, dates).
// Own parsing instead of mammoth: mammoth unzips with JSZip, which trusts declared sizes and would
// inflate a bomb in full; and only text is needed, not HTML conversion.
import { fileDocument } from './file-document.ts';
import type { ExtractedDocument } from '../../core/document.ts';
import { normaliseDate } from './dates.ts';
import { ExtractionError } from './errors.ts';
import { normaliseText } from './text.ts';
import { cleanTitle, decideOfficeTitle } from './title.ts';
import { attributeValue, elementText, scanXml } from './xml.ts';
import { GuardedZip, type ZipLimits } from './zip-guard.ts';

interface BodyText {
  text: string;
  /** Text of the first paragraph styled Title, else of the first Heading 1. */
  heading: string | null;
}

const TITLE_STYLE_RE = /^(title|titel)$/i;
const HEADING1_STYLE_RE = /^(heading ?1|berschrift ?1|überschrift ?1)$/i;
// Elements whose text is not document text: deleted revisions, field codes, the fallback copy of
// alternate content (the choice copy is read), comments.
const SKIP_ELEMENTS = new Set(['w:delText', 'w:instrText', 'mc:Fallback', 'w:commentReference']);

export function wordprocessingText(xml: string): BodyText {
  const out: string[] = [];
  let skipDepth = 0;
  let inText = false;
  let paragraph: string[] = [];
  let style: string | null = null;
  let title: string | null = null;
  let heading1: string | null = null;
  scanXml(xml, {
    open(name, attrs, selfClosing) {
      if (SKIP_ELEMENTS.has(name)) {
        if (!selfClosing) skipDepth++;
        return;
      }
      if (skipDepth > 0) return;
      if (name === 'w:p') {
        paragraph = [];
        style = null;
      } else if (name === 'w:pStyle') {
        style = attributeValue(attrs, 'w:val');
      } else if (name === 'w:t') {
        inText = !selfClosing;
      } else if (name === 'w:tab' || name === 'w:ptab') {
        paragraph.push(' ');
      } else if (name === 'w:br' || name === 'w:cr') {
        paragraph.push('\n');
      } else if (name === 'w:noBreakHyphen') {
        paragraph.push('-');
      }
    },
    close(name) {
      if (SKIP_ELEMENTS.has(name)) {
        skipDepth = Math.max(0, skipDepth - 1);
        return;
      }
      if (skipDepth > 0) return;
      if (name === 'w:t') inText = false;
      else if (name === 'w:p') {
        const text = paragraph.join('');
        out.push(text, '\n');
        const clean = cleanTitle(text);
        if (clean && style) {
          if (!title && TITLE_STYLE_RE.test(style)) title = clean;
          if (!heading1 && HEADING1_STYLE_RE.test(style)) heading1 = clean;
        }
        paragraph = [];
      } else if (name === 'w:tc') {
        out.push(' ');
      }
    },
    text(text) {
      if (inText && skipDepth === 0) paragraph.push(text);
    },
  });
  return { text: normaliseText(out.join('')), heading: title ?? heading1 };
}

/** The target of the officeDocument relationship (scanned, not matched by a regex: linear on any input). */
function mainPartOf(rels: string): string | null {
  let target: string | null = null;
  scanXml(rels, {
    open(name, attributes) {
      if (target !== null || !name.endsWith('Relationship')) return;
      if (!(attributeValue(attributes, 'Type') ?? '').endsWith('/officeDocument')) return;
      target = attributeValue(attributes, 'Target')?.replace(/^\//, '') || null;
    },
    close() {},
    text() {},
  });
  return target;
}

export function extractDocx(input: { bytes: Uint8Array; zipLimits?: ZipLimits }): ExtractedDocument {
  const zip = new GuardedZip(input.bytes, input.zipLimits);
  // The main part is named in _rels/.rels; word/document.xml is what every writer uses.
  const rels = zip.readText('_rels/.rels', 1024 * 1024);
  const main = (rels && mainPartOf(rels)) ?? 'word/document.xml';
  const documentXml = zip.readText(main) ?? zip.readText('word/document.xml');
  if (documentXml === null) throw new ExtractionError('CORRUPT_FILE', 'DOCX without word/document.xml');
  const body = wordprocessingText(documentXml);
  const notes = ['word/footnotes.xml', 'word/endnotes.xml']
    .map((part) => zip.readText(part))
    .filter((xml): xml is string => xml !== null)
    .map((xml) => wordprocessingText(xml).text)
    .filter(Boolean);
  const text = [body.text, ...notes].join('\n');
  if (text.trim().length === 0) throw new ExtractionError('NO_TEXT', 'the DOCX has no text');

  const core = zip.readText('docProps/core.xml', 4 * 1024 * 1024);
  const app = zip.readText('docProps/app.xml', 4 * 1024 * 1024);
  const dates: Record<string, string> = {};
  const created = normaliseDate(elementText(core, 'dcterms:created'));
  const modified = normaliseDate(elementText(core, 'dcterms:modified'));
  if (created) dates.docx_created = created;
  if (modified) dates.docx_modified = modified;
  const { title, source } = decideOfficeTitle(elementText(core, 'dc:title'), body.heading, text);
  const declaredLanguage = elementText(core, 'dc:language');
  return fileDocument('docx', {
    title,
    text,
    declaredLanguage,
    metadataDates: dates,
    content: {
      titleSource: source,
      pageCount: Number(elementText(app, 'Pages')),
      author: elementText(core, 'dc:creator'),
      keywords: elementText(core, 'cp:keywords'),
      subject: elementText(core, 'dc:subject'),
      declaredLanguage,
      application: elementText(app, 'Application'),
    },
  });
}

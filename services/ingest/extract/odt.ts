// ODT: the guarded zip reader, content.xml (paragraphs, headings, lists, tables) and meta.xml.
import { fileDocument } from './file-document.ts';
import type { ExtractedDocument } from '../../core/document.ts';
import { normaliseDate } from './dates.ts';
import { ExtractionError } from './errors.ts';
import { normaliseText } from './text.ts';
import { cleanTitle, decideOfficeTitle } from './title.ts';
import { attributeValue, elementText, scanXml } from './xml.ts';
import { GuardedZip, type ZipLimits } from './zip-guard.ts';

const PARAGRAPHS = new Set(['text:p', 'text:h']);
// Not document text: comments, tracked deletions, the number of a footnote, hidden field values.
const SKIP_ELEMENTS = new Set(['office:annotation', 'text:tracked-changes', 'text:note-citation', 'text:sequence-decls', 'office:forms', 'draw:image']);

export function odfText(xml: string): { text: string; heading: string | null } {
  const out: string[] = [];
  let skipDepth = 0;
  let inBody = false;
  let heading: string | null = null;
  let headingLevel = Infinity;
  const paragraphStack: { start: number; level: number | null }[] = [];
  scanXml(xml, {
    open(name, attrs, selfClosing) {
      if (name === 'office:body') inBody = true;
      if (!inBody) return;
      if (SKIP_ELEMENTS.has(name)) {
        if (!selfClosing) skipDepth++;
        return;
      }
      if (skipDepth > 0) return;
      if (PARAGRAPHS.has(name)) {
        if (selfClosing) {
          out.push('\n');
          return;
        }
        const level = name === 'text:h' ? Number(attributeValue(attrs, 'text:outline-level') ?? 1) : null;
        paragraphStack.push({ start: out.length, level });
        out.push('\n');
      } else if (name === 'text:s') {
        out.push(' '.repeat(Math.min(Number(attributeValue(attrs, 'text:c') ?? 1) || 1, 100)));
      } else if (name === 'text:tab') {
        out.push(' ');
      } else if (name === 'text:line-break') {
        out.push('\n');
      }
    },
    close(name) {
      if (name === 'office:body') inBody = false;
      if (!inBody) return;
      if (SKIP_ELEMENTS.has(name)) {
        skipDepth = Math.max(0, skipDepth - 1);
        return;
      }
      if (skipDepth > 0) return;
      if (PARAGRAPHS.has(name)) {
        const p = paragraphStack.pop();
        if (p && p.level !== null && p.level < headingLevel) {
          const text = cleanTitle(out.slice(p.start).join(''));
          if (text) {
            heading = text;
            headingLevel = p.level;
          }
        }
        out.push('\n');
      } else if (name === 'table:table-cell') {
        out.push(' ');
      }
    },
    text(text) {
      // ODF collapses white space in text (runs of spaces are written as <text:s/>), and text outside
      // paragraphs is markup indentation.
      if (inBody && skipDepth === 0 && paragraphStack.length > 0) out.push(text.replace(/[\t\r\n]+/g, ' '));
    },
  });
  return { text: normaliseText(out.join('')), heading };
}

export function extractOdt(input: { bytes: Uint8Array; zipLimits?: ZipLimits }): ExtractedDocument {
  const zip = new GuardedZip(input.bytes, input.zipLimits);
  // ODF encrypts each part and records it in the manifest; content.xml would not inflate.
  const manifest = zip.readText('META-INF/manifest.xml', 4 * 1024 * 1024);
  if (manifest?.includes('encryption-data')) throw new ExtractionError('ENCRYPTED', 'the ODT is password-protected');
  const content = zip.readText('content.xml');
  if (content === null) throw new ExtractionError('CORRUPT_FILE', 'ODT without content.xml');
  const body = odfText(content);
  const text = body.text;
  if (text.trim().length === 0) throw new ExtractionError('NO_TEXT', 'the ODT has no text');

  const meta = zip.readText('meta.xml', 4 * 1024 * 1024);
  const dates: Record<string, string> = {};
  const created = normaliseDate(elementText(meta, 'meta:creation-date'));
  const modified = normaliseDate(elementText(meta, 'dc:date'));
  if (created) dates.odt_created = created;
  if (modified) dates.odt_modified = modified;
  const { title, source } = decideOfficeTitle(elementText(meta, 'dc:title'), body.heading, text);
  const declaredLanguage = elementText(meta, 'dc:language');
  return fileDocument('odt', {
    title,
    text,
    declaredLanguage,
    metadataDates: dates,
    content: {
      titleSource: source,
      pageCount: Number(meta?.match(/meta:page-count="(\d+)"/)?.[1]),
      author: elementText(meta, 'dc:creator') ?? elementText(meta, 'meta:initial-creator'),
      keywords: elementText(meta, 'meta:keyword'),
      declaredLanguage,
      generator: elementText(meta, 'meta:generator'),
    },
  });
}

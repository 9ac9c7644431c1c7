// PDF extraction with unpdf (pdf.js built for servers): text per page, Info and XMP metadata.
import { fileDocument } from './file-document.ts';
import { extractText, getDocumentProxy, getMeta } from 'unpdf';
import type { ExtractedDocument } from '../../core/document.ts';
import { normaliseDate } from './dates.ts';
import { ExtractionError } from './errors.ts';
import { cleanTitle, decidePdfTitle } from './title.ts';
import { dehyphenate } from './text.ts';

// pdf.js PermissionFlag.COPY: "copy or otherwise extract text and graphics".
const PERMISSION_COPY = 0x10;
// pdf.js VerbosityLevel.ERRORS: its warnings about odd fonts would flood the ingest log.
const VERBOSITY_ERRORS = 0;

interface PdfInfo {
  Title?: unknown;
  Author?: unknown;
  Subject?: unknown;
  Keywords?: unknown;
  Creator?: unknown;
  Producer?: unknown;
  CreationDate?: unknown;
  ModDate?: unknown;
  Language?: unknown;
  PDFFormatVersion?: unknown;
  EncryptFilterName?: unknown;
}

interface XmpMetadata {
  get(name: string): unknown;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : null);

function mapPdfError(error: unknown): ExtractionError {
  if (error instanceof ExtractionError) return error;
  const name = (error as { name?: string })?.name ?? '';
  const message = error instanceof Error ? error.message : String(error);
  if (name === 'PasswordException') return new ExtractionError('ENCRYPTED', 'the PDF needs a password to open', { cause: error });
  if (name === 'InvalidPDFException' || name === 'MissingPDFException' || name === 'FormatError' || name === 'UnknownErrorException') {
    return new ExtractionError('CORRUPT_FILE', `PDF: ${message}`, { cause: error });
  }
  if (error instanceof RangeError) return new ExtractionError('OUT_OF_MEMORY', message, { cause: error });
  return new ExtractionError('CORRUPT_FILE', `PDF: ${message.slice(0, 200)}`, { cause: error });
}

/**
 * Line-end hyphens in the forms PDFs write them, turned into the plain "-\n" that dehyphenate()
 * joins: a soft hyphen (U+00AD) vanishes with its line break, a typographic hyphen (U+2010) or a
 * hyphen followed by spaces before the break becomes "-\n", and a word broken across a page break
 * ("Ent-" at a page's end, "schädigung" on the next) is treated like one broken across lines.
 */
export function normaliseLineEndHyphens(text: string): string {
  return text
    .replace(/(\p{L})\u00ad[ \t]*\n+[ \t]*(\p{Ll})/gu, '$1$2')
    .replace(/\u00ad/g, '')
    .replace(/(\p{L})[-\u2010][ \t]*\n\n?[ \t]*(?=\p{Ll})/gu, '$1-\n');
}

export async function extractPdf(input: { bytes: Uint8Array; headers?: Record<string, string> }): Promise<ExtractedDocument> {
  // pdf.js takes over (detaches) the buffer it is given, and refuses Node Buffers: a plain copy.
  const data = new Uint8Array(input.bytes);
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    pdf = await getDocumentProxy(data, { verbosity: VERBOSITY_ERRORS, stopAtErrors: false, isEvalSupported: false });
  } catch (error) {
    throw mapPdfError(error);
  }
  try {
    const meta = await getMeta(pdf);
    const info = (meta.info ?? {}) as PdfInfo;
    const xmp = (meta.metadata ?? null) as XmpMetadata | null;
    if (str(info.EncryptFilterName)) {
      const permissions = await pdf.getPermissions();
      // The owner password only restricts; opening works. The brief says to honour the flag, so a PDF
      // whose author forbade text extraction is skipped rather than indexed against that wish.
      if (permissions && !permissions.includes(PERMISSION_COPY)) {
        throw new ExtractionError('ENCRYPTED', 'the PDF permissions do not allow text extraction (owner password set)');
      }
    }
    const { totalPages, text: pages } = await extractText(pdf, { mergePages: false });
    const text = dehyphenate(normaliseLineEndHyphens(pages.map((p) => p.trim()).filter(Boolean).join('\n\n')));
    if (text.trim().length === 0) throw new ExtractionError('NO_TEXT', `the PDF has ${totalPages} page(s) but no text layer (scanned?)`);

    const xmpString = (key: string) => {
      try {
        const v = xmp?.get(key);
        return typeof v === 'string' ? v : Array.isArray(v) && typeof v[0] === 'string' ? v[0] : null;
      } catch {
        return null;
      }
    };
    const dates: Record<string, string> = {};
    const put = (key: string, value: string | null) => {
      const iso = normaliseDate(value);
      if (iso && !dates[key]) dates[key] = iso;
    };
    put('pdf_creation_date', str(info.CreationDate));
    put('pdf_mod_date', str(info.ModDate));
    put('xmp_create_date', xmpString('xmp:createdate'));
    put('xmp_modify_date', xmpString('xmp:modifydate'));

    const metaTitle = cleanTitle(str(info.Title) ?? xmpString('dc:title'));
    const { title, source: titleSource } = decidePdfTitle(metaTitle, text);
    const declaredLanguage = str(info.Language) ?? xmpString('dc:language');
    return fileDocument('pdf', {
      title,
      text,
      declaredLanguage,
      metadataDates: dates,
      content: {
        pageCount: totalPages,
        titleSource,
        author: str(info.Author) ?? xmpString('dc:creator'),
        subject: str(info.Subject),
        keywords: str(info.Keywords),
        creator: str(info.Creator),
        producer: str(info.Producer),
        pdfVersion: str(info.PDFFormatVersion),
        declaredLanguage,
      },
    });
  } catch (error) {
    throw mapPdfError(error);
  } finally {
    await pdf.destroy().catch(() => undefined);
  }
}

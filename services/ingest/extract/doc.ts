// Legacy Word (.doc): text through word-extractor, title and dates from the OLE SummaryInformation
// stream (cfb.ts), which word-extractor does not expose.
import { fileDocument } from './file-document.ts';
import WordExtractor from 'word-extractor';
import type { ExtractedDocument } from '../../core/document.ts';
import { CompoundFile, parseSummaryInformation, type SummaryInformation } from './cfb.ts';
import { dateToIso } from './dates.ts';
import { ExtractionError } from './errors.ts';
import { normaliseText } from './text.ts';
import { decideOfficeTitle } from './title.ts';

const WORD_IDENT = 0xa5ec;
// FIB flags at offset 0x0A: fEncrypted (RC4 or XOR obfuscation with a password).
const FIB_F_ENCRYPTED = 0x0100;

function checkWordStream(cfb: CompoundFile): void {
  const word = cfb.readStream('WordDocument');
  if (!word || word.length < 0x20) throw new ExtractionError('CORRUPT_FILE', 'DOC without a WordDocument stream');
  const dv = new DataView(word.buffer, word.byteOffset, word.byteLength);
  if (dv.getUint16(0, true) !== WORD_IDENT) throw new ExtractionError('CORRUPT_FILE', 'DOC with a damaged file information block');
  if (dv.getUint16(0x0a, true) & FIB_F_ENCRYPTED) throw new ExtractionError('ENCRYPTED', 'the Word document is password-protected');
}

function summaryOf(cfb: CompoundFile): SummaryInformation {
  try {
    const stream = cfb.readStream('\u0005SummaryInformation');
    return stream ? parseSummaryInformation(stream) : {};
  } catch {
    // Damaged properties only cost the metadata, not the text.
    return {};
  }
}

export async function extractDoc(input: { bytes: Uint8Array }): Promise<ExtractedDocument> {
  const cfb = new CompoundFile(input.bytes);
  checkWordStream(cfb);
  const summary = summaryOf(cfb);
  let body: string;
  try {
    const doc = await new WordExtractor().extract(Buffer.from(input.bytes.buffer, input.bytes.byteOffset, input.bytes.byteLength));
    const parts = [doc.getBody(), doc.getFootnotes(), doc.getEndnotes(), doc.getTextboxes({ includeHeadersAndFooters: false, includeBody: true })];
    body = parts.filter((p) => p && p.trim()).join('\n');
  } catch (error) {
    if (error instanceof ExtractionError) throw error;
    throw new ExtractionError('CORRUPT_FILE', `DOC: ${(error as Error)?.message ?? String(error)}`.slice(0, 300), { cause: error });
  }
  const text = normaliseText(body);
  if (text.trim().length === 0) throw new ExtractionError('NO_TEXT', 'the DOC has no text');

  const dates: Record<string, string> = {};
  const created = dateToIso(summary.created);
  const saved = dateToIso(summary.lastSaved);
  if (created) dates.doc_created = created;
  if (saved) dates.doc_last_saved = saved;
  const { title, source } = decideOfficeTitle(summary.title ?? null, null, text);
  return fileDocument('doc', {
    title,
    text,
    declaredLanguage: null,
    metadataDates: dates,
    content: {
      titleSource: source,
      pageCount: summary.pageCount,
      author: summary.author,
      subject: summary.subject,
      keywords: summary.keywords,
    },
  });
}

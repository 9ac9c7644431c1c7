import { MIME_BY_DOCUMENT_TYPE, type DocumentType, type ExtractedDocument } from '../../core/document.ts';
import { findLabelledDates, findLeadingDate } from './content-dates.ts';
import { decideDates } from './date-precedence.ts';
import { decideLanguage } from './language.ts';

// The record of a file format without web semantics (PDF, DOCX, DOC, ODT): no canonical link,
// never news, no robots meta. Each format brings its title, text, metadata dates and extras; the
// dates named in the text and the precedence between them are the same for all.

export interface FileDocumentParts {
  title: string;
  text: string;
  declaredLanguage: string | null;
  /** Dates from the file's own metadata, keyed by where they were found (e.g. `docx_created`). */
  metadataDates: Record<string, string>;
  /** Per-format extras; empty, zero and missing values are left out. */
  content: Record<string, unknown>;
}

function present(content: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(content).filter(([, value]) => value !== undefined && value !== null && value !== '' && !(typeof value === 'number' && !(Number.isFinite(value) && value > 0))),
  );
}

export function fileDocument(type: Exclude<DocumentType, 'html'>, parts: FileDocumentParts): ExtractedDocument {
  const dates: Record<string, string> = { ...parts.metadataDates, ...findLabelledDates(parts.text) };
  const leading = findLeadingDate(parts.text);
  if (leading) dates.text_leading_date = leading;
  const decided = decideDates(dates);
  return {
    documentType: type,
    contentType: MIME_BY_DOCUMENT_TYPE[type],
    title: parts.title,
    text: parts.text,
    language: decideLanguage(parts.text, parts.declaredLanguage),
    canonicalUrl: null,
    publishedAt: decided.publishedAt,
    modifiedAt: decided.modifiedAt,
    contentDate: decided.contentDate,
    dates,
    isNews: false,
    noindex: false,
    content: present(parts.content),
  };
}

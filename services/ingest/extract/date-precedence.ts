// Which of the dates found becomes published_at, modified_at and content_date. Every extractor fills
// `dates` with what it found, keyed by origin; this one table decides, so all formats follow one rule:
//
// 1. Structured statements of the document about itself (JSON-LD, microdata, meta tags) — the author
//    said what the date means.
// 2. The file format's own metadata (PDF Info, OOXML/ODF/OLE properties).
// 3. Labelled dates in the text ("Ausfertigungsdatum", "Zuletzt geändert durch ... v. ...", "Stand:").
// 4. The HTTP Last-Modified header, for modified_at only, and only when the document carries no date of
//    its own: servers report the time a file was copied, which says little once the document dates itself.
//
// Never "now": without any of these the field stays null.

const PUBLISHED_KEYS = [
  'json_ld_date_published',
  'microdata_date_published',
  'meta_article_published_time',
  'meta_dcterms_issued',
  'meta_citation_publication_date',
  'meta_pubdate',
  'meta_dc_date',
  'meta_date',
  'json_ld_date_created',
  'meta_dcterms_created',
  'html_time_pubdate',
  'pdf_creation_date',
  'xmp_create_date',
  'docx_created',
  'odt_created',
  'doc_created',
  'text_ausfertigungsdatum',
  'text_veroeffentlicht',
  'text_published',
];

const MODIFIED_KEYS = [
  'json_ld_date_modified',
  'microdata_date_modified',
  'meta_article_modified_time',
  'meta_dcterms_modified',
  'meta_og_updated_time',
  'meta_last_modified',
  'pdf_mod_date',
  'xmp_modify_date',
  'docx_modified',
  'odt_modified',
  'doc_last_saved',
  'text_zuletzt_geaendert',
  'text_neugefasst',
  'text_zuletzt_aktualisiert',
  'text_letzte_aenderung',
  'text_last_updated',
  // "Stand: 5. November 2026" states the version of the text as of that day.
  'text_stand',
  'man_footer_date',
];

// A date named in the content: what a reader sees on the page.
const CONTENT_KEYS = [
  'text_ausfertigungsdatum',
  'text_stand',
  'text_datum',
  'text_veroeffentlicht',
  'text_published',
  'man_footer_date',
  'text_zuletzt_aktualisiert',
  'text_letzte_aenderung',
  'text_last_updated',
  'text_leading_date',
  'html_time',
  'text_zuletzt_geaendert',
  'text_neugefasst',
];

export const HTTP_LAST_MODIFIED = 'http_last_modified';

export interface DecidedDates {
  publishedAt: string | null;
  modifiedAt: string | null;
  contentDate: string | null;
}

function first(dates: Record<string, string>, keys: string[]): string | null {
  for (const k of keys) if (dates[k]) return dates[k];
  return null;
}

export function decideDates(dates: Record<string, string>): DecidedDates {
  const publishedAt = first(dates, PUBLISHED_KEYS);
  let modifiedAt = first(dates, MODIFIED_KEYS);
  const contentDate = first(dates, CONTENT_KEYS);
  if (!modifiedAt && !publishedAt && dates[HTTP_LAST_MODIFIED]) modifiedAt = dates[HTTP_LAST_MODIFIED];
  return { publishedAt, modifiedAt, contentDate };
}

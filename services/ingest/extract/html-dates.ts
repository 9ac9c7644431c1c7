// Every date an HTML page carries, keyed by where it was found; date-precedence.ts decides which wins.
import { findLabelledDates, findLeadingDate } from './content-dates.ts';
import { normaliseDate, parseHumanDate } from './dates.ts';
import type { HtmlSignals } from './html-walk.ts';
import { type JsonLdNode, stringProp } from './json-ld.ts';

// meta name/property -> key in `dates`; several spellings of the same Dublin Core term share a key.
const META_DATE_KEYS: [string[], string][] = [
  [['article:published_time', 'og:article:published_time'], 'meta_article_published_time'],
  [['article:modified_time', 'og:article:modified_time'], 'meta_article_modified_time'],
  [['og:updated_time'], 'meta_og_updated_time'],
  [['dcterms.issued', 'dcterms:issued', 'dc.date.issued', 'dc:date:issued'], 'meta_dcterms_issued'],
  [['dcterms.modified', 'dcterms:modified', 'dc.date.modified', 'dc:date:modified'], 'meta_dcterms_modified'],
  [['dcterms.created', 'dcterms:created', 'dc.date.created'], 'meta_dcterms_created'],
  [['dcterms.date', 'dcterms:date', 'dc.date', 'dc:date'], 'meta_dc_date'],
  [['citation_publication_date', 'citation_date', 'citation_online_date'], 'meta_citation_publication_date'],
  [['pubdate', 'publishdate', 'publish-date', 'publication_date', 'publication-date', 'date.published', 'parsely-pub-date', 'sailthru.date'], 'meta_pubdate'],
  [['date'], 'meta_date'],
  [['last-modified', 'lastmod', 'revised', 'modified'], 'meta_last_modified'],
];

function put(dates: Record<string, string>, key: string, value: string | null | undefined, human = false): void {
  if (!value || dates[key]) return;
  const iso = normaliseDate(value, { allowYearOnly: false }) ?? (human ? parseHumanDate(value) : null);
  if (iso) dates[key] = iso;
}

export function collectHtmlDates(input: {
  signals: HtmlSignals;
  jsonLdMain: JsonLdNode | null;
  text: string;
  lastModifiedHeader?: string;
}): Record<string, string> {
  const { signals, jsonLdMain, text } = input;
  const dates: Record<string, string> = {};
  put(dates, 'json_ld_date_published', stringProp(jsonLdMain, 'datePublished'));
  put(dates, 'json_ld_date_modified', stringProp(jsonLdMain, 'dateModified'));
  put(dates, 'json_ld_date_created', stringProp(jsonLdMain, 'dateCreated'));
  put(dates, 'microdata_date_published', signals.itemProps.get('datePublished'), true);
  put(dates, 'microdata_date_modified', signals.itemProps.get('dateModified'), true);
  for (const [names, key] of META_DATE_KEYS) {
    for (const name of names) put(dates, key, signals.meta.get(name));
  }
  for (const t of signals.times) {
    if (t.itemprop === 'datePublished') put(dates, 'microdata_date_published', t.datetime);
    else if (t.itemprop === 'dateModified') put(dates, 'microdata_date_modified', t.datetime);
    else if (t.pubdate) put(dates, 'html_time_pubdate', t.datetime);
    else if (t.inContent) put(dates, 'html_time', t.datetime);
  }
  put(dates, 'man_footer_date', signals.manFooterDate, true);
  Object.assign(dates, { ...findLabelledDates(text), ...dates });
  const leading = findLeadingDate(text);
  if (leading && !dates.text_leading_date) dates.text_leading_date = leading;
  put(dates, 'http_last_modified', input.lastModifiedHeader);
  return dates;
}

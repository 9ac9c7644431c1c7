// Dates named in the text itself. Only labelled dates are taken ("Ausfertigungsdatum", "Stand:",
// "Zuletzt geändert durch ... v. 5.10.2021", ...) plus a date standing alone in the first lines (letters,
// title pages): a law text names dozens of other dates ("in der Fassung vom ...") that are not the
// document's own.
import { GERMAN_MONTHS, normaliseDate, parseHumanDate } from './dates.ts';

const MONTH_NAMES = Object.keys(GERMAN_MONTHS)
  .concat(['january', 'february', 'march', 'may', 'june', 'july', 'october', 'december'])
  .sort((a, b) => b.length - a.length)
  .join('|');

// One date in running text: ISO day, German numeric day ("5.10.2021", "6. 5.1976"), long German day
// ("12. Januar 2016"), or month and year ("März 2021").
const DATE_SOURCE = `(\\d{4}-\\d{2}-\\d{2}(?:T\\d{2}:\\d{2}(?::\\d{2})?(?:Z|[+-]\\d{2}:?\\d{2})?)?|\\d{1,2}\\.\\s?\\d{1,2}\\.\\s?\\d{4}|\\d{1,2}\\.\\s*(?:${MONTH_NAMES})\\.?\\s+\\d{4}|(?:${MONTH_NAMES})\\.?\\s+\\d{4})(?![\\d.]\\d)`;

// Compiled once: building them per line or per label cost more than matching them.
const DATE_RE = new RegExp(DATE_SOURCE, 'i');
const WHOLE_DATE_RE = new RegExp(`^${DATE_SOURCE}$`, 'i');

function dateAt(text: string): string | null {
  const m = text.match(DATE_RE);
  if (!m) return null;
  return normaliseDate(m[1]) ?? parseHumanDate(m[1]);
}

interface LabelRule {
  key: string;
  label: RegExp;
  /** How far after the label the date may stand. */
  window: number;
  /**
   * Where the label counts: `head` for the statement block a law opens with (the body quotes other
   * laws' "zuletzt geändert durch" freely), `edges` for page heads and footers ("Stand: März 2021").
   */
  where: 'head' | 'edges';
  /**
   * A word every match contains (in lower case for the case-insensitive labels): most pages have
   * none of the labels, and looking for a word is far cheaper than trying the label at every position.
   */
  needle: string;
}

const HEAD_CHARS = 3000;
const EDGE_HEAD_CHARS = 5000;
const EDGE_TAIL_CHARS = 2000;

// A label counts at the start of a line or when followed by a colon: "veröffentlicht am 14.08.2021" in
// running text is about something else.
function label(words: string, flags = 'i'): RegExp {
  return new RegExp(`(?:(?:^|\\n)[ \\t]*(?:${words})[ \\t]*:?|(?:${words})[ \\t]*:)\\s*`, flags);
}

// German first, as the corpus is; a few English labels for the pages that are not. The law labels are
// case-sensitive: they head the statement block (dt/dd pairs) of every German federal law text.
const LABEL_RULES: LabelRule[] = [
  { where: 'head', key: 'text_ausfertigungsdatum', label: label('Ausfertigungsdatum', ''), window: 40, needle: 'Ausfertigungsdatum' },
  { where: 'head', key: 'text_zuletzt_geaendert', label: label('Zuletzt geändert durch', ''), window: 160, needle: 'Zuletzt geändert durch' },
  { where: 'head', key: 'text_neugefasst', label: label('Neugefasst durch', ''), window: 120, needle: 'Neugefasst durch' },
  { where: 'edges', key: 'text_stand', label: label('Stand(?:\\s+vom|\\s+am)?'), window: 4, needle: 'stand' },
  { where: 'edges', key: 'text_zuletzt_aktualisiert', label: label('(?:Zuletzt\\s+)?aktualisiert(?:\\s+am)?'), window: 12, needle: 'aktualisiert' },
  { where: 'edges', key: 'text_letzte_aenderung', label: label('Letzte\\s+Änderung(?:\\s+am)?'), window: 12, needle: 'änderung' },
  { where: 'edges', key: 'text_veroeffentlicht', label: label('Veröffentlicht(?:\\s+am)?'), window: 12, needle: 'veröffentlicht' },
  { where: 'edges', key: 'text_erstellt', label: label('Erstellt(?:\\s+am)?'), window: 12, needle: 'erstellt' },
  { where: 'edges', key: 'text_datum', label: label('Datum'), window: 12, needle: 'datum' },
  { where: 'edges', key: 'text_last_updated', label: label('Last\\s+(?:updated|modified)(?:\\s+on)?'), window: 12, needle: 'last' },
  { where: 'edges', key: 'text_published', label: label('Published(?:\\s+on)?'), window: 12, needle: 'published' },
];

/** Labelled dates in the text, keyed by label; the first occurrence of each label wins. */
export function findLabelledDates(text: string): Record<string, string> {
  const head = text.slice(0, HEAD_CHARS);
  const edges = text.length <= EDGE_HEAD_CHARS + EDGE_TAIL_CHARS ? text : `${text.slice(0, EDGE_HEAD_CHARS)}\n${text.slice(-EDGE_TAIL_CHARS)}`;
  // Lower case keeps every letter a case-insensitive label can match (/i without the u flag folds
  // only characters whose upper case is the same single character).
  const lowerEdges = edges.toLowerCase();
  const found: Record<string, string> = {};
  for (const rule of LABEL_RULES) {
    const scope = rule.where === 'head' ? head : edges;
    if (!(rule.where === 'head' ? head : lowerEdges).includes(rule.needle)) continue;
    const m = rule.label.exec(scope);
    if (!m) continue;
    const after = scope.slice(m.index + m[0].length);
    // The date must start within the window, so "Stand: Neufassung vom ..." is not a "Stand" date.
    const window = after.slice(0, rule.window + 40);
    const d = window.match(DATE_RE);
    if (!d || d.index! > rule.window) continue;
    const iso = normaliseDate(d[1]) ?? parseHumanDate(d[1]);
    if (iso) found[rule.key] = iso;
  }
  return found;
}

/** A date alone on one of the first lines (a letter's date line, a title page's date). */
export function findLeadingDate(text: string, maxLines = 12): string | null {
  const lines = text.split('\n', maxLines);
  for (const raw of lines) {
    const line = raw.trim().replace(/^[A-ZÄÖÜa-zäöüß .-]{2,40},\s*(den\s+)?/, '');
    if (line.length > 30) continue;
    const whole = WHOLE_DATE_RE.exec(line);
    if (whole) return dateAt(line);
  }
  return null;
}

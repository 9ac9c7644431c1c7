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

function dateAt(text: string): string | null {
  const m = text.match(new RegExp(DATE_SOURCE, 'i'));
  if (!m) return null;
  return normaliseDate(m[1]) ?? parseHumanDate(m[1]);
}

interface LabelRule {
  key: string;
  label: RegExp;
  /** How far after the label the date may stand. */
  window: number;
}

// German first, as the corpus is; a few English labels for the pages that are not.
const LABEL_RULES: LabelRule[] = [
  { key: 'text_ausfertigungsdatum', label: /Ausfertigungsdatum\s*:?/i, window: 40 },
  { key: 'text_zuletzt_geaendert', label: /Zuletzt\s+geändert\s+durch\s*:?/i, window: 160 },
  { key: 'text_neugefasst', label: /Neugefasst\s+durch\s*:?/i, window: 120 },
  { key: 'text_stand', label: /(?:^|\n|\s)Stand\s*:\s*(?:vom\s+|am\s+)?/i, window: 4 },
  { key: 'text_zuletzt_aktualisiert', label: /(?:Zuletzt\s+)?aktualisiert(?:\s+am)?\s*:?/i, window: 12 },
  { key: 'text_letzte_aenderung', label: /Letzte\s+Änderung(?:\s+am)?\s*:?/i, window: 12 },
  { key: 'text_veroeffentlicht', label: /Veröffentlicht(?:\s+am)?\s*:?/i, window: 12 },
  { key: 'text_erstellt', label: /Erstellt(?:\s+am)?\s*:/i, window: 12 },
  { key: 'text_datum', label: /(?:^|\n)Datum\s*:/i, window: 12 },
  { key: 'text_last_updated', label: /Last\s+(?:updated|modified)(?:\s+on)?\s*:?/i, window: 12 },
  { key: 'text_published', label: /Published(?:\s+on)?\s*:/i, window: 12 },
];

/** Labelled dates in the text, keyed by label; the first occurrence of each label wins. */
export function findLabelledDates(text: string, maxChars = 20_000): Record<string, string> {
  const head = text.length > maxChars ? text.slice(0, maxChars) : text;
  const found: Record<string, string> = {};
  for (const rule of LABEL_RULES) {
    const m = rule.label.exec(head);
    if (!m) continue;
    const after = head.slice(m.index + m[0].length);
    // The date must start within the window, so "Stand: Neufassung vom ..." is not a "Stand" date.
    const window = after.slice(0, rule.window + 40);
    const d = window.match(new RegExp(DATE_SOURCE, 'i'));
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
    const whole = new RegExp(`^${DATE_SOURCE}$`, 'i').exec(line);
    if (whole) return dateAt(line);
  }
  return null;
}

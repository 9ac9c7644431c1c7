// Parsing dates written in the many ways documents write them, into ISO 8601 strings that keep the
// precision that was given: `YYYY-MM` (month), `YYYY-MM-DD` (day), or a timestamp with the offset the
// source used. The offset is kept instead of converting to UTC, so the calendar day stays the one the
// author meant. Anything unparseable or implausible gives null: an undated document stays undated.

const MIN_YEAR = 1800;
const MAX_YEAR = 2100;

export const GERMAN_MONTHS: Record<string, number> = {
  januar: 1, jänner: 1, jan: 1, februar: 2, feber: 2, feb: 2, märz: 3, maerz: 3, mrz: 3, mär: 3, april: 4, apr: 4,
  mai: 5, juni: 6, jun: 6, juli: 7, jul: 7, august: 8, aug: 8, september: 9, sept: 9, sep: 9,
  oktober: 10, okt: 10, november: 11, nov: 11, dezember: 12, dez: 12,
};

const ENGLISH_MONTHS: Record<string, number> = {
  january: 1, jan: 1, february: 2, feb: 2, march: 3, mar: 3, april: 4, apr: 4, may: 5, june: 6, jun: 6,
  july: 7, jul: 7, august: 8, aug: 8, september: 9, sep: 9, sept: 9, october: 10, oct: 10, november: 11,
  nov: 11, december: 12, dec: 12,
};

export function monthNumber(name: string): number | undefined {
  const key = name.toLowerCase().replace(/\.$/, '');
  return GERMAN_MONTHS[key] ?? ENGLISH_MONTHS[key];
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** `YYYY-MM-DD` (or `YYYY-MM` without a day) when the parts form a real calendar date, else null. */
export function formatDay(year: number, month: number, day?: number): string | null {
  if (!Number.isInteger(year) || year < MIN_YEAR || year > MAX_YEAR) return null;
  if (!Number.isInteger(month) || month < 1 || month > 12) return null;
  if (day === undefined) return `${year}-${pad(month)}`;
  if (!Number.isInteger(day) || day < 1 || day > daysInMonth(year, month)) return null;
  return `${year}-${pad(month)}-${pad(day)}`;
}

function formatTimestamp(day: string, hh: number, mm: number, ss: number, offset: string | null): string | null {
  if (hh > 23 || mm > 59 || ss > 60) return null;
  // Office tools store a date-only value as midnight; reporting "T00:00:00Z" would claim a time nobody set.
  if (hh === 0 && mm === 0 && ss === 0 && (offset === null || offset === 'Z' || offset === '+00:00' || offset === '-00:00')) return day;
  return `${day}T${pad(hh)}:${pad(mm)}:${pad(ss)}${offset ?? ''}`;
}

function normaliseOffset(raw: string | undefined): string | null {
  if (!raw) return null;
  if (raw === 'Z' || raw === 'z') return 'Z';
  const m = raw.match(/^([+-])(\d{2}):?(\d{2})?$/);
  if (!m) return null;
  return `${m[1]}${m[2]}:${m[3] ?? '00'}`;
}

const ISO_RE = /^(\d{4})(?:-(\d{1,2})(?:-(\d{1,2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:[.,]\d+)?)?\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?)?)?)?$/;
const COMPACT_RE = /^(\d{4})(\d{2})(\d{2})(?:T?(\d{2})(\d{2})(\d{2})?(Z|[+-]\d{2}:?\d{2})?)?$/;
const HTTP_RE = /^(?:[A-Za-z]{3,9},?\s+)?(\d{1,2})[\s-]([A-Za-z]{3,9})[\s-](\d{2,4})\s+(\d{1,2}):(\d{2})(?::(\d{2}))?\s*(GMT|UTC|Z|[+-]\d{4})?$/;
const ASCTIME_RE = /^[A-Za-z]{3}\s+([A-Za-z]{3})\s+(\d{1,2})\s+(\d{1,2}):(\d{2}):(\d{2})\s+(\d{4})$/;
const PDF_RE = /^D:(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?\s*(Z|[+-]\d{2}'?\d{2}'?)?/;

/** A machine-written date: ISO 8601 (also reduced precision), compact ISO, HTTP dates, PDF `D:` dates. */
export function normaliseDate(input: string | null | undefined, options: { allowYearOnly?: boolean } = {}): string | null {
  if (!input) return null;
  const value = input.trim();
  if (value.length === 0 || value.length > 64) return null;

  let m = value.match(ISO_RE);
  if (m) {
    const [, y, mo, d, hh, mi, ss, off] = m;
    if (!mo) {
      const year = Number(y);
      return options.allowYearOnly && year >= MIN_YEAR && year <= MAX_YEAR ? y : null;
    }
    const day = formatDay(Number(y), Number(mo), d ? Number(d) : undefined);
    if (!day || !d || hh === undefined) return day;
    return formatTimestamp(day, Number(hh), Number(mi), Number(ss ?? 0), normaliseOffset(off));
  }
  m = value.match(PDF_RE);
  if (m) {
    const [, y, mo = '01', d = '01', hh, mi, ss, off] = m;
    const day = formatDay(Number(y), Number(mo), Number(d));
    if (!day || hh === undefined) return day;
    const offset = off ? normaliseOffset(off.replace(/'/g, '')) : null;
    return formatTimestamp(day, Number(hh), Number(mi ?? 0), Number(ss ?? 0), offset);
  }
  m = value.match(COMPACT_RE);
  if (m) {
    const [, y, mo, d, hh, mi, ss, off] = m;
    const day = formatDay(Number(y), Number(mo), Number(d));
    if (!day || hh === undefined) return day;
    return formatTimestamp(day, Number(hh), Number(mi), Number(ss ?? 0), normaliseOffset(off));
  }
  m = value.match(HTTP_RE);
  if (m) {
    const [, d, monthName, y, hh, mi, ss, zone] = m;
    const month = ENGLISH_MONTHS[monthName.toLowerCase()];
    let year = Number(y);
    if (y.length === 2) year += year < 70 ? 2000 : 1900;
    const day = month ? formatDay(year, month, Number(d)) : null;
    if (!day) return null;
    const offset = !zone || /^(GMT|UTC|Z)$/.test(zone) ? 'Z' : normaliseOffset(zone);
    return formatTimestamp(day, Number(hh), Number(mi), Number(ss ?? 0), offset);
  }
  m = value.match(ASCTIME_RE);
  if (m) {
    const [, monthName, d, hh, mi, ss, y] = m;
    const month = ENGLISH_MONTHS[monthName.toLowerCase()];
    const day = month ? formatDay(Number(y), month, Number(d)) : null;
    return day ? formatTimestamp(day, Number(hh), Number(mi), Number(ss), 'Z') : null;
  }
  return parseHumanDate(value);
}

const NUMERIC_DE_RE = /^(\d{1,2})\.\s?(\d{1,2})\.\s?(\d{4}|\d{2})$/;
const LONG_DE_RE = /^(\d{1,2})\.?\s*([A-Za-zÄÖÜäöüé]{3,9}\.?)\s+(\d{4})$/;
const MONTH_YEAR_RE = /^([A-Za-zÄÖÜäöüé]{3,9}\.?)\s+(\d{4})$/;
const ENGLISH_LONG_RE = /^([A-Za-z]{3,9}\.?)\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})$/;

/** Dates as people write them: "12. Januar 2016", "12.01.2016", "März 2021", "January 12, 2016". */
export function parseHumanDate(input: string): string | null {
  const value = input.trim().replace(/\s+/g, ' ');
  let m = value.match(NUMERIC_DE_RE);
  if (m) {
    let year = Number(m[3]);
    if (m[3].length === 2) year += year < 50 ? 2000 : 1900;
    return formatDay(year, Number(m[2]), Number(m[1]));
  }
  m = value.match(LONG_DE_RE);
  if (m) {
    const month = monthNumber(m[2]);
    return month ? formatDay(Number(m[3]), month, Number(m[1])) : null;
  }
  m = value.match(ENGLISH_LONG_RE);
  if (m) {
    const month = monthNumber(m[1]);
    return month ? formatDay(Number(m[3]), month, Number(m[2])) : null;
  }
  m = value.match(MONTH_YEAR_RE);
  if (m) {
    const month = monthNumber(m[1]);
    return month ? formatDay(Number(m[2]), month) : null;
  }
  return null;
}

/** Converts a Date (from a binary format such as an OLE FILETIME) with the midnight rule applied. */
export function dateToIso(date: Date | undefined | null): string | null {
  if (!date || Number.isNaN(date.getTime())) return null;
  const day = formatDay(date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate());
  if (!day) return null;
  return formatTimestamp(day, date.getUTCHours(), date.getUTCMinutes(), date.getUTCSeconds(), 'Z');
}

/** The calendar day of a normalised date (for comparisons); month-precision dates have none. */
export function dayOf(iso: string | null | undefined): string | null {
  return iso && /^\d{4}-\d{2}-\d{2}/.test(iso) ? iso.slice(0, 10) : null;
}

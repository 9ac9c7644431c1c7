// Title rules shared by all formats: the title "as a person would name it" — no site-name suffix, no
// abbreviation label, no generator junk ("gerdoc.dvi", "Microsoft Word - x.doc").

const SEPARATOR_RE = /(\s+[|–—·•»›]\s+|\s+-\s+|\s+::\s+)/;

export function cleanTitle(raw: string | null | undefined): string {
  if (!raw) return '';
  return raw.replace(/[\u00ad\u200b\ufeff]/g, '').replace(/[¶#]\s*$/, '').replace(/\s+/g, ' ').trim();
}

/** Words of a title, folded for comparisons. */
export function titleTokens(text: string): string[] {
  return (text.toLowerCase().normalize('NFKC').match(/[\p{L}\p{N}]+/gu) ?? []);
}

/** Share of `part`'s words that occur in `whole`. */
function containment(part: string[], whole: Set<string>): number {
  if (part.length === 0) return 0;
  let hits = 0;
  for (const t of part) if (whole.has(t)) hits++;
  return hits / part.length;
}

const ABBREVIATION_RE = /\s*\(([^()]{1,30})\)\s*$/;

/** True for "(BesÜG)", "(AELV 2017)", "(BBesG§78Abs2Bek)": an abbreviation label, not words of the title. */
export function isAbbreviationLabel(inner: string): boolean {
  const tokens = inner.trim().split(/\s+/);
  if (tokens.length > 3) return false;
  const upper = (t: string) => t.match(/\p{Lu}/gu)?.length ?? 0;
  return tokens.some((t) => upper(t) >= 2) && tokens.every((t) => /^[\d./-]+[a-z]?$/.test(t) || /^[IVXLC]+$/.test(t) || upper(t) >= 2);
}

/** "Gesetz über ... (AdWirkG)" -> "Gesetz über ..."; other trailing parentheses stay. */
export function stripAbbreviation(title: string): string {
  const m = title.match(ABBREVIATION_RE);
  if (m && isAbbreviationLabel(m[1]) && m.index! > 0) return title.slice(0, m.index).trim();
  return title;
}

export interface TitleContext {
  /** Headings of the content (first h1s), used to tell the title part from the site part. */
  headings: string[];
  siteName?: string | null;
  /** Host name of the page, whose labels betray a site-name segment ("Debian Manpages"). */
  host?: string | null;
}

function isSiteLike(segment: string, ctx: TitleContext, hostTokens: Set<string>): boolean {
  if (ctx.siteName && cleanTitle(ctx.siteName).toLowerCase() === segment.toLowerCase()) return true;
  const tokens = titleTokens(segment);
  return tokens.length > 0 && tokens.some((t) => t.length >= 4 && hostTokens.has(t));
}

/**
 * Removes the site name from a <title>: "Artikel – Site", "Site | Artikel", "ABK - Langer Titel".
 * A separator alone proves nothing ("Diagramm-Assistent – Diagrammtyp" is one title), so a segment is
 * only dropped when something says it is not part of the title: the page's h1 lacks it while holding
 * the rest, it names the site (og:site_name, host name), or it is the abbreviation the h1 puts in
 * parentheses.
 */
export function stripSiteName(title: string, ctx: TitleContext): string {
  const pieces = title.split(SEPARATOR_RE);
  if (pieces.length < 3) return title;
  const segments: string[] = [];
  const separators: string[] = [];
  pieces.forEach((p, i) => (i % 2 === 0 ? segments.push(p.trim()) : separators.push(p)));
  const hostTokens = new Set((ctx.host ?? '').toLowerCase().split(/[.-]/).filter((t) => t.length >= 4 && t !== 'www'));
  const headingTokens = new Set(ctx.headings.flatMap(titleTokens));
  // The h1's closing parenthesis repeated as the title's first segment is a label ("(TVMindestlohn Abfall 8)").
  const abbreviations = new Set(ctx.headings.map((h) => h.match(ABBREVIATION_RE)?.[1]?.trim().toLowerCase()).filter((a): a is string => Boolean(a)));
  const inHeading = (s: string) => headingTokens.size > 0 && containment(titleTokens(s), headingTokens) >= 0.8;

  let first = 0;
  let last = segments.length - 1;
  // Leading segments: only a site name or the abbreviation label go ("SGB 14 - Sozialgesetzbuch ...").
  while (first < last && (abbreviations.has(segments[first].toLowerCase()) || (ctx.siteName && isSiteLike(segments[first], { ...ctx, host: null }, new Set())))) first++;
  // Trailing segments: the site part, recognised by the heading test or by naming the site.
  const restMatchesHeading = (from: number, to: number) => inHeading(segments.slice(from, to + 1).join(' '));
  while (last > first) {
    const seg = segments[last];
    if (isSiteLike(seg, ctx, hostTokens) && !inHeading(seg)) { last--; continue; }
    if (headingTokens.size > 0 && !inHeading(seg) && restMatchesHeading(first, last - 1)) { last--; continue; }
    break;
  }
  let out = segments[first];
  for (let i = first + 1; i <= last; i++) out += separators[i - 1] + segments[i];
  return out.trim() || title;
}

const JUNK_TITLE_RE = /^(untitled|unbenannt|ohne titel|document|dokument|titel|title|microsoft word|slide \d+|folie \d+|\s*)$|\.(dvi|tex|docx?|odt|pdf|rtf|indd|qxd|ps|eps|txt|html?)$/i;

/** Metadata titles that are file names, placeholders or generator names. */
export function isJunkTitle(title: string): boolean {
  const t = cleanTitle(title);
  if (t.length < 2) return true;
  if (JUNK_TITLE_RE.test(t)) return true;
  return /^Microsoft (Word|PowerPoint) - /i.test(t);
}

// A line ending in one of these words continues on the next line (a title wrapped on a title page).
const CONNECTOR_END_RE = /(?:^|\s)(?:und|oder|sowie|für|der|die|das|des|den|dem|von|vom|mit|zum|zur|zu|in|im|über|auf|an|am|bei|nach|aus|eines|einer|einem|the|of|and|for|to|on|a|an)$|[-–:]$/i;

const WEB_ADDRESS_RE = /\bwww\.[\p{L}\d-]+\.\p{L}{2,}|\bhttps?:\/\//iu;

/** A title from the first lines of a text: the first line, joined with the lines a wrapped title spans. */
export function titleFromText(text: string, maxLength = 160): string {
  const lines = text.split('\n', 12).map((l) => l.trim()).filter(Boolean);
  // A credit or a running header with a web address above the heading is not the title
  // ("CTAN lion drawing by Duane Bibby; thanks to www.ctan.org").
  while (lines.length > 1 && WEB_ADDRESS_RE.test(lines[0])) lines.shift();
  if (lines.length === 0) return '';
  let title = lines[0];
  for (let i = 1; i < Math.min(lines.length, 5) && title.length < maxLength; i++) {
    const next = lines[i];
    // An "(ABK)" label closes a law's heading, however the lines were broken before it.
    const closesHeading = ABBREVIATION_RE.test(next) && isAbbreviationLabel(next.match(ABBREVIATION_RE)![1]);
    if (!CONNECTOR_END_RE.test(title) && !/^\p{Ll}/u.test(next) && !closesHeading) break;
    title += ' ' + next;
    if (closesHeading) break;
  }
  // Footnote marks after a title-page heading ("... mit LATEX∗", "dehyph-exptl*").
  title = typesetLogos(stripAbbreviation(cleanTitle(title).replace(/\s*[∗*†‡]+$/u, '')));
  if (title.length > maxLength) title = title.slice(0, maxLength).replace(/\s+\S*$/, '') + ' …';
  return title;
}

/**
 * The TeX logos as written, not as a PDF's text layer spells them: pdf.js reads the raised and
 * lowered letters of \\LaTeXe as "LATEX 2ε" and \\TeX as "TEX".
 */
export function typesetLogos(title: string): string {
  return title
    .replace(/\bLATEX\s?2ε/g, 'LaTeX2ε')
    .replace(/(\p{L}*)LATEX\b/gu, (_, before: string) => `${before}LaTeX`)
    .replace(/\bTEX\b/g, 'TeX');
}

/** 1 - Levenshtein distance / longer length, on lowercased titles (both short: a title is at most 160 characters here). */
export function titleCloseness(a: string, b: string): number {
  const x = a.toLowerCase().normalize('NFKC').slice(0, 200);
  const y = b.toLowerCase().normalize('NFKC').slice(0, 200);
  if (x === y) return 1;
  if (!x.length || !y.length) return 0;
  let prev = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const cur = [i];
    for (let j = 1; j <= y.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x[i - 1] === y[j - 1] ? 0 : 1));
    prev = cur;
  }
  return 1 - prev[y.length] / Math.max(x.length, y.length);
}

/**
 * A PDF's title: the metadata title unless it is junk; but when the title page's heading is the
 * same title as typeset (LaTeX2ε where the metadata could only say LaTeX2e), the heading.
 */
export function decidePdfTitle(metaTitle: string, text: string): { title: string; source: string } {
  const heading = titleFromText(text);
  let chosen: { title: string; source: string };
  if (!metaTitle || isJunkTitle(metaTitle)) chosen = { title: heading, source: 'text' };
  else if (heading && heading !== metaTitle && titleCloseness(heading, metaTitle) >= 0.9) chosen = { title: heading, source: 'heading' };
  else chosen = { title: metaTitle, source: 'metadata' };
  const described = withSubtitle(chosen.title, text);
  return described ? { title: described, source: 'subtitle' } : chosen;
}

/** A package or program name alone: lowercase letters and digits, joined by - . _ (dehyph-exptl, l2picfaq). */
const IDENTIFIER_RE = /^[\p{Ll}\d]+(?:[-._][\p{Ll}\d]+)*$/u;
const SUBTITLE_RE = /^\p{Lu}[^.!?]*$/u;

/**
 * A title page that names only a package ("dehyph-exptl") and says what it is on the next line
 * ("Experimentelle Trennmuster für die deutsche Sprache") is named by both, as a catalogue does:
 * "Experimentelle Trennmuster für die deutsche Sprache (dehyph-exptl)". Null when the title is
 * words, or the text does not open with the name and a subtitle of at least three words.
 */
export function withSubtitle(title: string, text: string): string | null {
  if (!IDENTIFIER_RE.test(title)) return null;
  const lines = text.split('\n', 4).map((line) => cleanTitle(line).replace(/\s*[∗*†‡]+$/u, ''));
  if (lines.length < 2 || lines[0] !== title) return null;
  const subtitle = typesetLogos(lines[1]);
  if (!SUBTITLE_RE.test(subtitle) || subtitle.split(' ').length < 3 || subtitle.length > 120 || /\d{4}/.test(subtitle)) return null;
  return `${subtitle} (${title})`;
}

/** Office files and PDFs: the metadata title unless it is junk, else the first heading, else the first lines. */
export function decideOfficeTitle(metaTitle: string | null, heading: string | null, text: string): { title: string; source: string } {
  const meta = cleanTitle(metaTitle);
  if (meta && !isJunkTitle(meta)) return { title: meta, source: 'metadata' };
  if (heading) return { title: stripAbbreviation(cleanTitle(heading)), source: 'heading' };
  return { title: titleFromText(text), source: 'text' };
}

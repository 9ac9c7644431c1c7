// The title of an HTML page. Order: og:title, the headline/name of the page's JSON-LD node, the <title>
// without its site-name part, the first h1, the first line of the text. Measured on the corpus
// (scripts/bench/extract-eval.ts), the <title> with the site part removed is what people call a page;
// h1s carry anchors, pilcrows and abbreviation labels more often.
import type { HtmlSignals } from './html-walk.ts';
import { type JsonLdNode, stringProp } from './json-ld.ts';
import { cleanTitle, isJunkTitle, stripAbbreviation, stripSiteName, titleFromText } from './title.ts';

// "ls(1)" — the man page reference form that debiman and mandoc put into <title>.
const MAN_REFERENCE_RE = /^([^\s()]+)\((\d[\w]*)\)$/;

/** "agetty(8)" plus the NAME line "agetty - alternativer Linux-Getty" -> "agetty(8) — alternativer Linux-Getty". */
function manPageTitle(reference: string, nameLine: string | null): string | null {
  if (!MAN_REFERENCE_RE.test(reference) || !nameLine) return null;
  const m = nameLine.match(/\s[-—–]\s+(.+)$/);
  if (!m) return null;
  return `${reference} — ${m[1].trim()}`;
}

export function decideHtmlTitle(input: { signals: HtmlSignals; jsonLdMain: JsonLdNode | null; host: string | null; text: string }): { title: string; source: string } {
  const { signals, jsonLdMain, host } = input;
  const headings = signals.h1.filter((h) => h.inContent).map((h) => cleanTitle(h.text));
  const siteName = signals.meta.get('og:site_name') ?? signals.meta.get('application-name') ?? null;

  const og = cleanTitle(signals.meta.get('og:title'));
  if (og && !isJunkTitle(og)) return { title: stripSiteName(og, { headings, siteName, host }), source: 'og_title' };

  const ld = cleanTitle(stringProp(jsonLdMain, 'headline') ?? stringProp(jsonLdMain, 'name'));
  if (ld && !isJunkTitle(ld)) return { title: stripSiteName(ld, { headings, siteName, host }), source: 'json_ld' };

  const tag = cleanTitle(signals.titleTag);
  if (tag && !isJunkTitle(tag)) {
    const stripped = stripSiteName(tag, { headings, siteName, host });
    const man = manPageTitle(stripped, signals.manNameLine);
    if (man) return { title: man, source: 'man_page' };
    return { title: stripped, source: 'title_tag' };
  }

  const h1 = headings[0] ?? signals.h2[0];
  if (h1) return { title: stripAbbreviation(h1), source: 'h1' };
  const fromText = titleFromText(input.text);
  return { title: fromText, source: fromText ? 'text' : 'none' };
}

// HTML extraction: charset, one parse into a light tree (html-tree.ts), one walk (html-walk.ts), then
// title, dates, language, canonical link, robots and news rules.
import { MIME_BY_DOCUMENT_TYPE, type ExtractedDocument } from '../../core/document.ts';
import { decodeHtml } from './charset.ts';
import { decideDates } from './date-precedence.ts';
import { ExtractionError } from './errors.ts';
import { collectHtmlDates } from './html-dates.ts';
import { decideHtmlTitle } from './html-title.ts';
import { parseHtmlTree } from './html-tree.ts';
import { walkDocument } from './html-walk.ts';
import { isNewsNode, mainNode, parseJsonLd } from './json-ld.ts';
import { decideLanguage } from './language.ts';
import { PRODUCT_TOKEN } from '../sources/user-agent.ts';

export interface HtmlInput {
  bytes: Uint8Array;
  url: string;
  headers?: Record<string, string>;
}

function resolveUrl(href: string | null, base: string): string | null {
  if (!href) return null;
  try {
    const u = new URL(href.trim(), base);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
    u.hash = '';
    return u.href;
  } catch {
    return null;
  }
}

function hostOf(url: string): string | null {
  try {
    return new URL(url).hostname || null;
  } catch {
    return null;
  }
}

/** `<https://example.org/a>; rel="canonical"` from an HTTP Link header. */
function canonicalFromLinkHeader(link: string | undefined): string | null {
  if (!link) return null;
  for (const part of link.split(/,(?=\s*<)/)) {
    const m = part.match(/<([^>]+)>\s*;(.*)$/);
    if (m && /rel\s*=\s*"?[^";]*\bcanonical\b/i.test(m[2])) return m[1];
  }
  return null;
}

// Robots directives, optionally per crawler ("googlebot: noindex, nofollow"): an agent prefix applies to
// the directives after it; only unqualified ones and ours (the crawler's product token) count.
const OUR_AGENT = PRODUCT_TOKEN.toLowerCase();
const DIRECTIVES_WITH_VALUES = new Set(['unavailable_after', 'max-snippet', 'max-image-preview', 'max-video-preview']);

export function saysNoindex(value: string | null | undefined): boolean {
  if (!value) return false;
  let agent: string | null = null;
  for (const raw of value.toLowerCase().split(',')) {
    let directive = raw.trim();
    const m = directive.match(/^([a-z0-9_*-]+)\s*:\s*(.*)$/);
    if (m && !DIRECTIVES_WITH_VALUES.has(m[1])) {
      agent = m[1];
      directive = m[2].trim();
    }
    if ((agent === null || agent === '*' || agent === OUR_AGENT) && (directive === 'noindex' || directive === 'none')) return true;
  }
  return false;
}

export function extractHtml(input: HtmlInput): ExtractedDocument {
  const headers = input.headers ?? {};
  const decoded = decodeHtml(input.bytes, headers['content-type']);
  const tree = parseHtmlTree(decoded.text);
  const walked = walkDocument(tree.topLevel, tree.documentElement);
  const { signals } = walked;
  const text = walked.text;
  // A title alone (a script-rendered shell, a frameset) gives nothing to search or to show in a snippet.
  if (text.trim().length === 0) throw new ExtractionError('NO_TEXT', signals.titleTag ? `the page "${signals.titleTag.slice(0, 80)}" has no visible text` : 'the page has no visible text');

  const jsonLdNodes = parseJsonLd(signals.jsonLd);
  const jsonLdMain = mainNode(jsonLdNodes);
  const base = resolveUrl(signals.baseHref, input.url) ?? input.url;
  const host = hostOf(input.url);

  const { title, source: titleSource } = decideHtmlTitle({ signals, jsonLdMain, host, text });
  const dates = collectHtmlDates({ signals, jsonLdMain, text, lastModifiedHeader: headers['last-modified'] });
  const decided = decideDates(dates);

  const ogType = signals.meta.get('og:type')?.toLowerCase();
  const isNews =
    jsonLdNodes.some(isNewsNode) ||
    [...signals.itemTypes].some((t) => /NewsArticle$/.test(t)) ||
    (ogType === 'article' && Boolean(dates.meta_article_published_time));

  const declaredLanguage = signals.lang ?? signals.meta.get('content-language') ?? signals.meta.get('language') ?? headers['content-language'] ?? null;
  const noindex =
    saysNoindex(signals.meta.get('robots')) || saysNoindex(signals.meta.get(OUR_AGENT)) || saysNoindex(headers['x-robots-tag']);

  const description = signals.meta.get('description') ?? signals.meta.get('og:description');
  const keywords = signals.meta.get('keywords');
  const author = signals.meta.get('author') ?? signals.meta.get('article:author') ?? signals.meta.get('dc.creator');
  return {
    documentType: 'html',
    contentType: MIME_BY_DOCUMENT_TYPE.html,
    title,
    text,
    language: decideLanguage(text, declaredLanguage),
    canonicalUrl: resolveUrl(signals.canonical, base) ?? resolveUrl(canonicalFromLinkHeader(headers.link), input.url),
    publishedAt: decided.publishedAt,
    modifiedAt: decided.modifiedAt,
    contentDate: decided.contentDate,
    dates,
    isNews,
    noindex,
    content: {
      charset: decoded.encoding,
      titleSource,
      mainContentFound: walked.mainFound,
      ...(declaredLanguage ? { declaredLanguage } : {}),
      ...(description ? { description: description.slice(0, 500) } : {}),
      ...(keywords ? { keywords: keywords.slice(0, 500) } : {}),
      ...(author ? { author: author.slice(0, 200) } : {}),
      ...(ogType ? { ogType } : {}),
    },
  };
}

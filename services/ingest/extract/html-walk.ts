// One pass over the parsed page that both writes the main text and gathers the signals the title, date
// and news rules need. One pass, because parsing and walking are the cost of HTML extraction and the
// target is 200 documents per second on two cores (issue 3); Readability walks the tree many times.
//
// Boilerplate is removed by structure, not by a scoring model: <nav>/<aside>/<header>/<footer> and their
// ARIA roles, menu/cookie/share/breadcrumb class and id names, hidden elements, and containers that are
// mostly link text (menus, tables of contents, "previous/next" bars). When the page marks its main
// content (<main>, role=main, one <article>, or a content/main id), only that part is kept.

/** The subset of the linkedom DOM used here, so the walker does not depend on linkedom's typings. */
export interface DomNode {
  nodeType: number;
  localName?: string;
  data?: string;
  firstChild: DomNode | null;
  nextSibling: DomNode | null;
  getAttribute?(name: string): string | null;
  hasAttribute?(name: string): boolean;
}

export interface HtmlSignals {
  lang: string | null;
  titleTag: string | null;
  baseHref: string | null;
  /** meta name / property / http-equiv / itemprop (lower-cased) -> content; the first one wins. */
  meta: Map<string, string>;
  canonical: string | null;
  jsonLd: string[];
  /** h1 texts in reading order; `inContent` is false for h1s inside dropped regions (logos). */
  h1: { text: string; inContent: boolean }[];
  /** h2 texts in content, as a fallback when a page has no h1. */
  h2: string[];
  times: { datetime: string; itemprop: string | null; pubdate: boolean; inContent: boolean }[];
  /** schema.org types named by itemtype attributes (last path segment). */
  itemTypes: Set<string>;
  /** itemprop values for the date and headline properties. */
  itemProps: Map<string, string>;
  /** The NAME/BEZEICHNUNG line of a manual page ("ls - Verzeichnisinhalte auflisten"). */
  manNameLine: string | null;
  /** The date in the footer of a mandoc-rendered manual page (the .TH date). */
  manFooterDate: string | null;
  linkCount: number;
}

export interface WalkResult {
  text: string;
  /** Text of the whole page body with boilerplate removed (before choosing the main part). */
  bodyText: string;
  mainFound: boolean;
  signals: HtmlSignals;
}

const ELEMENT = 1;
const TEXT = 3;
const CDATA = 4;
const MAX_DEPTH = 400;

const SKIP_TAGS = new Set([
  'script', 'style', 'noscript', 'template', 'svg', 'math', 'canvas', 'iframe', 'object', 'embed', 'button',
  'select', 'option', 'input', 'textarea', 'dialog', 'head', 'audio', 'video', 'map', 'link', 'meta', 'base',
]);
const DROP_TAGS = new Set(['nav', 'aside', 'menu', 'footer']);
const DROP_OUTSIDE_MAIN_TAGS = new Set(['header']);
const DROP_ROLES = new Set(['navigation', 'search', 'menu', 'menubar', 'toolbar', 'complementary', 'dialog', 'alertdialog', 'contentinfo', 'tablist']);
const DROP_OUTSIDE_MAIN_ROLES = new Set(['banner']);
const DROP_NAME_RE = /(?:^|[\s_-])(?:nav|navbar|navigation|navheader|navfooter|menu|menubar|breadcrumbs?|crumbs|cookies?|cookiebanner|consent|gdpr|cmp|skip|skiplinks?|share|sharing|social|newsletter|related|pagination|pager|footer|toolbar|ads?|advert|advertisement|sponsored|print-only)(?=$|[\s_-])/i;
const DROP_OUTSIDE_MAIN_NAME_RE = /(?:^|[\s_-])(?:header|masthead|topbar|site-header)(?=$|[\s_-])/i;
const MAIN_NAME_RE = /^(?:content|main|main-content|maincontent|page-content|primary|article|article-body|articlebody|story|story-body|post|post-content|entry-content)$/i;
const BLOCK_TAGS = new Set([
  'address', 'article', 'blockquote', 'body', 'caption', 'center', 'dd', 'details', 'div', 'dl', 'dt', 'fieldset',
  'figcaption', 'figure', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hgroup', 'hr', 'li', 'main',
  'ol', 'p', 'pre', 'section', 'summary', 'table', 'tbody', 'td', 'tfoot', 'th', 'thead', 'tr', 'ul', 'br', 'html',
]);
const DENSITY_TAGS = new Set(['div', 'ul', 'ol', 'table', 'tbody', 'section', 'dl', 'p', 'td', 'tr', 'center', 'form']);
const MAN_NAME_HEADINGS = new Set(['NAME', 'BEZEICHNUNG', 'NOM', 'NOMBRE', 'NOME', 'NAAM']);

function attr(node: DomNode, name: string): string | null {
  return node.getAttribute ? node.getAttribute(name) : null;
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function textOf(node: DomNode, depth = 0): string {
  if (node.nodeType === TEXT || node.nodeType === CDATA) return node.data ?? '';
  if (node.nodeType !== ELEMENT || depth > 50) return '';
  const tag = node.localName;
  if (tag === 'script' || tag === 'style') return '';
  let s = '';
  for (let c = node.firstChild; c; c = c.nextSibling) s += textOf(c, depth + 1);
  return s;
}

interface Region {
  start: number;
  end: number;
  priority: number;
}

interface WalkState {
  out: string[];
  signals: HtmlSignals;
  main: Region | null;
  articleCount: number;
  firstArticle: Region | null;
  expectManName: boolean;
}

interface Tally {
  chars: number;
  linkChars: number;
  links: number;
}

function mainPriority(node: DomNode, tag: string): number {
  if (tag === 'main') return 1;
  if (attr(node, 'role') === 'main') return 1;
  const id = attr(node, 'id');
  if (id && MAIN_NAME_RE.test(id)) return 3;
  return 0;
}

function isHidden(node: DomNode): boolean {
  if (node.hasAttribute?.('hidden')) return true;
  if (attr(node, 'aria-hidden') === 'true') return true;
  const style = attr(node, 'style');
  return style !== null && /display\s*:\s*none|visibility\s*:\s*hidden/i.test(style);
}

function shouldDrop(node: DomNode, tag: string, insideMain: boolean): boolean {
  if (DROP_TAGS.has(tag)) return true;
  if (!insideMain && DROP_OUTSIDE_MAIN_TAGS.has(tag)) return true;
  const role = attr(node, 'role');
  if (role && (DROP_ROLES.has(role) || (!insideMain && DROP_OUTSIDE_MAIN_ROLES.has(role)))) return true;
  if (isHidden(node)) return true;
  const names = `${attr(node, 'id') ?? ''} ${attr(node, 'class') ?? ''}`;
  if (names.length > 1) {
    if (DROP_NAME_RE.test(names)) return true;
    if (!insideMain && DROP_OUTSIDE_MAIN_NAME_RE.test(names)) return true;
  }
  return false;
}

function collectHeadElement(node: DomNode, tag: string, state: WalkState): void {
  const s = state.signals;
  if (tag === 'title') {
    if (s.titleTag === null) s.titleTag = collapse(textOf(node));
  } else if (tag === 'meta') {
    const key = attr(node, 'name') ?? attr(node, 'property') ?? attr(node, 'http-equiv') ?? attr(node, 'itemprop');
    const content = attr(node, 'content');
    if (key && content !== null) {
      const k = key.trim().toLowerCase();
      if (!s.meta.has(k)) s.meta.set(k, content.trim());
    }
    const itemprop = attr(node, 'itemprop');
    if (itemprop && content !== null && !s.itemProps.has(itemprop)) s.itemProps.set(itemprop, content.trim());
  } else if (tag === 'link') {
    const rel = attr(node, 'rel')?.toLowerCase().split(/\s+/) ?? [];
    if (rel.includes('canonical') && s.canonical === null) s.canonical = attr(node, 'href');
  } else if (tag === 'base') {
    if (s.baseHref === null) s.baseHref = attr(node, 'href');
  } else if (tag === 'script') {
    const type = attr(node, 'type')?.toLowerCase();
    if (type === 'application/ld+json' && s.jsonLd.length < 20) s.jsonLd.push(textOf(node));
  }
}

function collectMicrodata(node: DomNode, tag: string, state: WalkState): void {
  const s = state.signals;
  const itemtype = attr(node, 'itemtype');
  if (itemtype) for (const t of itemtype.split(/\s+/)) { const name = t.split('/').pop(); if (name) s.itemTypes.add(name); }
  const itemprop = attr(node, 'itemprop');
  if (itemprop && (/date|headline/i.test(itemprop)) && !s.itemProps.has(itemprop)) {
    const value = attr(node, 'content') ?? attr(node, 'datetime') ?? (tag === 'meta' ? null : collapse(textOf(node)));
    if (value) s.itemProps.set(itemprop, value);
  }
}

function walk(node: DomNode, state: WalkState, depth: number, dropped: boolean, insideMain: boolean, pre: boolean): Tally {
  const tally: Tally = { chars: 0, linkChars: 0, links: 0 };
  if (depth > MAX_DEPTH) return tally;
  for (let child = node.firstChild; child; child = child.nextSibling) {
    if (child.nodeType === TEXT || child.nodeType === CDATA) {
      if (dropped) continue;
      const raw = child.data ?? '';
      const text = pre ? raw : raw.replace(/\s+/g, ' ');
      if (text.length === 0) continue;
      state.out.push(text);
      tally.chars += text.trim().length;
      continue;
    }
    if (child.nodeType !== ELEMENT) continue;
    const tag = child.localName ?? '';
    collectHeadElement(child, tag, state);
    if (tag === 'script' || tag === 'style') continue;
    if (child.getAttribute && (child.hasAttribute?.('itemtype') || child.hasAttribute?.('itemprop'))) collectMicrodata(child, tag, state);
    if (SKIP_TAGS.has(tag)) continue;

    const childDropped = dropped || shouldDrop(child, tag, insideMain);
    if (tag === 'time') {
      const datetime = attr(child, 'datetime');
      if (datetime && state.signals.times.length < 50) {
        state.signals.times.push({ datetime, itemprop: attr(child, 'itemprop'), pubdate: child.hasAttribute?.('pubdate') ?? false, inContent: !childDropped });
      }
    }
    if (tag === 'td' && attr(child, 'class') === 'foot-date' && state.signals.manFooterDate === null) {
      state.signals.manFooterDate = collapse(textOf(child));
    }

    const priority = childDropped ? 0 : mainPriority(child, tag);
    const isMain = priority > 0 && (state.main === null || priority < state.main.priority) && !insideMain;
    const isArticle = tag === 'article' && !childDropped;
    const start = state.out.length;
    const block = BLOCK_TAGS.has(tag);
    if (block) state.out.push('\n');
    if (tag === 'td' || tag === 'th') state.out.push(' ');
    const inner = walk(child, state, depth + 1, childDropped, insideMain || isMain, pre || tag === 'pre');
    if (block) state.out.push('\n');

    if (tag === 'h1' || tag === 'h2') {
      const text = collapse(textOf(child));
      if (text) {
        if (tag === 'h1' && state.signals.h1.length < 10) state.signals.h1.push({ text, inContent: !childDropped });
        if (tag === 'h2' && !childDropped && state.signals.h2.length < 10) state.signals.h2.push(text);
        state.expectManName = MAN_NAME_HEADINGS.has(text);
      }
    } else if (tag === 'p' && state.expectManName) {
      state.signals.manNameLine = collapse(textOf(child));
      state.expectManName = false;
    }

    if (tag === 'a' && child.hasAttribute?.('href')) {
      state.signals.linkCount++;
      inner.linkChars = inner.chars;
      inner.links++;
    }
    // Menus, tables of contents and pager bars: containers whose text is mostly link text.
    if (!childDropped && DENSITY_TAGS.has(tag) && inner.links >= 3 && inner.chars > 0 && inner.linkChars / inner.chars > 0.6) {
      state.out.length = start;
      if (state.main && state.main.start >= start) state.main = null;
      continue;
    }
    if (isMain) state.main = { start, end: state.out.length, priority };
    if (isArticle) {
      state.articleCount++;
      if (!state.firstArticle) state.firstArticle = { start, end: state.out.length, priority: 2 };
    }
    tally.chars += inner.chars;
    tally.linkChars += inner.linkChars;
    tally.links += inner.links;
  }
  return tally;
}

/** Joins text parts into lines: one line per block, blank lines and edge spaces dropped. */
export function joinLines(parts: string[]): string {
  const lines = parts.join('').split('\n');
  const kept: string[] = [];
  for (const line of lines) {
    const t = line.replace(/[ \t\f\r\u00a0\u200b]+/g, ' ').trim();
    if (t) kept.push(t);
  }
  return kept.join('\n');
}

// A marked main part shorter than this share of the page is a mislabelled widget, not the content.
const MIN_MAIN_SHARE = 0.25;

export function walkDocument(root: DomNode, documentElement: DomNode | null): WalkResult {
  const signals: HtmlSignals = {
    lang: null, titleTag: null, baseHref: null, meta: new Map(), canonical: null, jsonLd: [], h1: [], h2: [],
    times: [], itemTypes: new Set(), itemProps: new Map(), manNameLine: null, manFooterDate: null, linkCount: 0,
  };
  const state: WalkState = { out: [], signals, main: null, articleCount: 0, firstArticle: null, expectManName: false };
  if (documentElement) signals.lang = attr(documentElement, 'lang') ?? attr(documentElement, 'xml:lang');
  walk(root, state, 0, false, false, false);

  const bodyText = joinLines(state.out);
  const region = state.main ?? (state.articleCount === 1 ? state.firstArticle : null);
  if (region) {
    const mainText = joinLines(state.out.slice(region.start, region.end));
    if (mainText.length >= bodyText.length * MIN_MAIN_SHARE) return { text: mainText, bodyText, mainFound: true, signals };
  }
  return { text: bodyText, bodyText, mainFound: false, signals };
}

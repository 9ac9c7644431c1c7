// Rendering of the search page's results and messages. Every text from a result is external content:
// it goes into the page as text nodes only (never innerHTML), and links only when they are http(s).

const numberFormat = new Intl.NumberFormat('de-DE');
const dateFormat = new Intl.DateTimeFormat('de-DE', { dateStyle: 'long', timeZone: 'UTC' });
const dateTimeFormat = new Intl.DateTimeFormat('de-DE', { dateStyle: 'long', timeStyle: 'short' });

const TYPE_NAMES = { html: 'HTML', pdf: 'PDF', docx: 'DOCX', doc: 'DOC', odt: 'ODT' };

/** document.createElement with text content and attributes. */
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === 'className') node.className = value;
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    node.append(typeof child === 'string' ? document.createTextNode(child) : child);
  }
  return node;
}

export function formatCount(total, relation) {
  // "Treffer" is singular and plural alike.
  const count = numberFormat.format(total);
  return relation === 'gte' ? `etwa ${count} Treffer` : `${count} Treffer`;
}

function safeHref(value) {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}

function formatDate(value) {
  if (!value) return null;
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(value);
  const time = Date.parse(dateOnly ? `${value}T00:00:00Z` : value);
  if (Number.isNaN(time)) return null;
  return { iso: new Date(time).toISOString(), text: dateOnly ? dateFormat.format(time) : dateTimeFormat.format(time) };
}

function timeElement(value, prefix) {
  const date = formatDate(value);
  return date ? el('time', { datetime: date.iso }, `${prefix}${date.text}`) : null;
}

/** The snippet with matched words in <mark>, from the server's highlight ranges; text nodes only. */
export function snippetNode(snippet, highlights, className = 'snippet') {
  const node = el('p', { className });
  let position = 0;
  const ranges = (Array.isArray(highlights) ? highlights : [])
    .filter((h) => Number.isInteger(h.start) && Number.isInteger(h.end) && h.start >= 0 && h.end <= snippet.length && h.start < h.end)
    .sort((a, b) => a.start - b.start);
  for (const { start, end } of ranges) {
    if (start < position) continue;
    if (start > position) node.append(document.createTextNode(snippet.slice(position, start)));
    node.append(el('mark', {}, snippet.slice(start, end)));
    position = end;
  }
  if (position < snippet.length) node.append(document.createTextNode(snippet.slice(position)));
  return node;
}

function joinMeta(parts) {
  const meta = el('p', { className: 'meta' });
  parts.filter(Boolean).forEach((part, i) => {
    // A dot for the eye, a comma for the ear.
    if (i > 0) meta.append(el('span', { className: 'sep' }, el('span', { 'aria-hidden': 'true' }, ' · '), el('span', { className: 'visually-hidden' }, ', ')));
    meta.append(part);
  });
  return meta;
}

function link(href, text, label) {
  return href ? el('a', { href, rel: 'noopener noreferrer nofollow ugc', 'aria-label': label }, text) : el('span', {}, text);
}

export function webResult(hit, index) {
  const href = safeHref(hit.url);
  const id = `result-${index}`;
  return el(
    'li',
    { className: 'result' },
    el(
      'article',
      { 'aria-labelledby': id },
      el('h3', { id }, link(href, hit.title || hit.url)),
      joinMeta([
        el('span', { className: 'source' }, hit.source_domain),
        timeElement(hit.published_at ?? hit.modified_at, ''),
        el('span', { className: 'badge', title: hit.content_type }, TYPE_NAMES[hit.document_type] ?? hit.document_type),
        hit.topic ? el('span', { className: 'topic' }, hit.topic) : null,
        el('span', { className: 'external' }, 'Externe Quelle'),
      ]),
      snippetNode(hit.snippet, hit.highlights),
      el('p', { className: 'url' }, hit.url),
    ),
  );
}

export function socialResult(hit, index) {
  const href = safeHref(hit.url);
  const id = `result-${index}`;
  const excerpt = snippetNode(hit.snippet, hit.highlights);
  const body = hit.content_warning
    ? el('details', { className: 'cw' }, el('summary', {}, `Inhaltswarnung: ${hit.content_warning}`), excerpt)
    : excerpt;
  return el(
    'li',
    { className: 'result social' },
    el(
      'article',
      { 'aria-labelledby': id },
      el('h3', { id }, link(href, hit.author_name || hit.author_handle, `Beitrag von ${hit.author_name || hit.author_handle} öffnen`), ' ', el('span', { className: 'handle' }, hit.author_handle)),
      joinMeta([
        timeElement(hit.created_at, ''),
        hit.edited_at ? el('span', {}, 'bearbeitet') : null,
        el('span', { className: 'source' }, hit.instance),
        hit.language ? el('span', { lang: hit.language }, `Sprache: ${hit.language}`) : null,
        el('span', { className: 'external' }, 'Externe Quelle'),
      ]),
      body,
      hit.tags?.length ? el('p', { className: 'tags' }, hit.tags.map((tag) => `#${tag}`).join(' ')) : null,
      href ? el('p', { className: 'original' }, el('a', { href, rel: 'noopener noreferrer nofollow ugc' }, `Originalbeitrag auf ${hit.instance} lesen`)) : null,
    ),
  );
}

const FIELD_NAMES = { q: 'Suchbegriff', source: 'Quelle', topic: 'Thema', max_age_months: 'Alter', document_types: 'Dokumenttyp', offset: 'Seite', body: 'Anfrage' };

/** A 422 body as German sentences naming the fields. */
export function describeValidation(body) {
  const details = Array.isArray(body?.detail) ? body.detail : [];
  if (details.length === 0) return ['Die Anfrage ist ungültig.'];
  return details.map((issue) => {
    const field = FIELD_NAMES[issue.loc?.[1] ?? issue.loc?.[0]] ?? 'Eingabe';
    if (issue.type === 'string_too_long') return `${field}: höchstens ${issue.ctx?.max_length} Zeichen.`;
    if (issue.type === 'string_too_short' || issue.type === 'missing') return `${field}: bitte angeben.`;
    if (issue.type === 'less_than_equal') return `${field}: höchstens ${issue.ctx?.le}.`;
    if (issue.type === 'greater_than_equal') return `${field}: mindestens ${issue.ctx?.ge}.`;
    return `${field}: ungültiger Wert.`;
  });
}

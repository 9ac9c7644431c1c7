import type { OptionsResponse } from './schemas.ts';

// The search page at "/": static HTML with the filter choices filled in on the server; the script in
// static/search.js does the rest. Nothing inline (the Content-Security-Policy forbids it), nothing
// from third parties. Inputs carry no `name`, so a page without script never puts a query in a URL.

export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

const AGES: [string, string][] = [
  ['', 'Beliebig'],
  ['1', 'Letzter Monat'],
  ['6', 'Letzte 6 Monate'],
  ['12', 'Letztes Jahr'],
  ['24', 'Letzte 2 Jahre'],
  ['60', 'Letzte 5 Jahre'],
];

const TYPE_LABELS: Record<string, string> = { html: 'Webseite (HTML)', pdf: 'PDF', docx: 'Word (DOCX)', doc: 'Word (DOC)', odt: 'OpenDocument (ODT)' };

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function options(pairs: [string, string][]): string {
  return pairs.map(([value, label]) => `<option value="${escapeHtml(value)}">${escapeHtml(label)}</option>`).join('');
}

export function renderSearchPage(choices: OptionsResponse): string {
  const number = new Intl.NumberFormat('de-DE');
  const sources = choices.sources.map((s) => `<option value="domain:${escapeHtml(s.domain)}">${escapeHtml(`${s.domain} (${number.format(s.documents)})`)}</option>`).join('');
  const topics = options([['', 'Alle Themen'], ...choices.topics.map((t): [string, string] => [t.label, t.label])]);
  const instances = options([['', 'Alle Instanzen'], ...choices.fediverse_instances.map((i): [string, string] => [i.instance, `${i.instance} (${number.format(i.posts)})`])]);
  const types = choices.document_types
    .map((type) => `<label class="check"><input type="checkbox" class="doc-type" value="${type}"> ${escapeHtml(TYPE_LABELS[type] ?? type)}</label>`)
    .join('');
  return `<!doctype html>
<html lang="de">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="description" content="Suche in gespeicherten deutschsprachigen Webseiten, Nachrichten und öffentlichen Fediverse-Beiträgen.">
<title>Fundus – Suche</title>
<link rel="icon" type="image/svg+xml" href="/static/favicon.svg">
<link rel="stylesheet" href="/static/search.css">
<script type="module" src="/static/search.js"></script>
</head>
<body>
<a class="skip-link" href="#results-heading">Zu den Ergebnissen springen</a>
<header class="site-header">
  <p class="brand"><a href="/">Fundus</a></p>
  <p class="tagline">Suche in deutschsprachigen Webseiten, Nachrichten und Fediverse-Beiträgen</p>
</header>
<main id="main">
  <h1 class="visually-hidden">Fundus-Suche</h1>
  <form id="search-form" class="search-form" role="search" aria-label="Suche" action="/" method="get" novalidate>
    <label for="q" class="q-label">Suchbegriff</label>
    <div class="search-row">
      <input id="q" type="search" maxlength="400" autocomplete="off" spellcheck="false" enterkeyhint="search" aria-describedby="q-hint">
      <button type="submit" id="submit">Suchen</button>
    </div>
    <p id="q-hint" class="hint">Alle Wörter müssen vorkommen; Wortformen zählen mit („Häuser“ findet auch „Haus“).</p>
    <div class="tabs" role="tablist" aria-label="Suchbereich">
      <button type="button" role="tab" id="tab-web" data-tab="web" aria-selected="true" aria-controls="results-panel">Web</button>
      <button type="button" role="tab" id="tab-news" data-tab="news" aria-selected="false" aria-controls="results-panel" tabindex="-1">Nachrichten</button>
      <button type="button" role="tab" id="tab-fediverse" data-tab="fediverse" aria-selected="false" aria-controls="results-panel" tabindex="-1">Fediverse</button>
    </div>
    <details class="filters" id="filters">
      <summary>Filter <span id="filter-count" class="filter-count"></span></summary>
      <div class="filter-grid">
        <div class="filter" data-tabs="web news">
          <label for="source">Quelle</label>
          <input id="source" type="text" list="source-list" maxlength="253" autocomplete="off" spellcheck="false" placeholder="domain:example.org" aria-describedby="source-hint">
          <datalist id="source-list">${sources}</datalist>
          <p id="source-hint" class="hint">Eine Domain, Subdomains eingeschlossen.</p>
        </div>
        <div class="filter" data-tabs="fediverse" hidden>
          <label for="instance">Instanz</label>
          <select id="instance">${instances}</select>
        </div>
        <div class="filter" data-tabs="web news">
          <label for="topic">Thema</label>
          <select id="topic">${topics}</select>
        </div>
        <div class="filter" data-tabs="web news fediverse">
          <label for="age">Alter</label>
          <select id="age">${options(AGES)}</select>
        </div>
        <div class="filter" data-tabs="fediverse" hidden>
          <label for="order">Sortierung</label>
          <select id="order">${options([['relevance', 'Relevanz'], ['newest', 'Neueste zuerst']])}</select>
        </div>
        <fieldset class="filter types" data-tabs="web news">
          <legend>Dokumenttyp</legend>
          ${types}
        </fieldset>
      </div>
      <button type="button" id="reset-filters" class="link-button">Filter zurücksetzen</button>
    </details>
    <noscript><p class="notice">Die Suche braucht JavaScript. Die Schnittstelle ist unter <a href="/api/openapi.json">/api/openapi.json</a> beschrieben.</p></noscript>
  </form>
  <section id="results-panel" class="results-panel" role="tabpanel" aria-labelledby="tab-web">
    <h2 id="results-heading" tabindex="-1">Ergebnisse</h2>
    <p id="status" class="status" role="status" aria-live="polite" aria-atomic="true">Geben Sie einen Suchbegriff ein.</p>
    <div id="error" class="error" role="alert" hidden></div>
    <p id="retry-row" class="retry-row" hidden><button type="button" id="retry">Erneut suchen</button></p>
    <div id="empty" class="empty" hidden>
      <p>Tipps:</p>
      <ul>
        <li>weniger oder andere Wörter verwenden (alle Wörter müssen vorkommen),</li>
        <li>Filter lockern oder zurücksetzen,</li>
        <li>in einem anderen Bereich suchen (Web, Nachrichten, Fediverse).</li>
      </ul>
    </div>
    <p id="external-note" class="external-note">Die Treffer stammen aus externen Quellen. Fundus zeigt nur Auszüge; Inhalt und Verantwortung liegen bei der jeweiligen Quelle.</p>
    <ol id="results" class="results" aria-describedby="external-note"></ol>
    <nav id="pager" class="pager" aria-label="Seiten" hidden>
      <button type="button" id="prev">Vorherige Seite</button>
      <span id="page-info"></span>
      <button type="button" id="next">Nächste Seite</button>
    </nav>
  </section>
</main>
<footer class="site-footer">
  <p>Suchanfragen werden nicht protokolliert. Gemeinsames Limit aller Besucher: 60 Suchen pro Minute.</p>
  <p><a href="/api/openapi.json">Schnittstelle (OpenAPI)</a></p>
</footer>
</body>
</html>
`;
}

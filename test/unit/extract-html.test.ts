import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { extractDocument } from '../../services/ingest/extract/index.ts';
import { CORPUS as CORPUS_DIR, describeWithCorpus, readCorpusJsonl } from '../helpers/shared-corpus.ts';

const CORPUS = `${CORPUS_DIR}/`;

interface Truth {
  path: string;
  url: string;
  title: string;
  published_at: string | null;
  modified_at: string | null;
  lang: string;
  key_terms: string[];
  canonical?: string;
}

let truth: Truth[] = [];
let manifest = new Map<string, Record<string, string>>();

function html(source: string, headers: Record<string, string> = {}, url = 'https://www.example.org/a/b.html') {
  return extractDocument({ bytes: new TextEncoder().encode(source), url, headers });
}

/** Truth dates are days or months; extracted dates may add a time. */
function expectSameDate(actual: string | null, expected: string | null) {
  if (expected === null) expect(actual).toBeNull();
  else expect(actual?.slice(0, expected.length)).toBe(expected);
}

const SAMPLES = [
  'html/www.gesetze-im-internet.de/adwirkg/index.html', // JSON-LD Legislation
  'html/www.gesetze-im-internet.de/aearbvtrg/index.html', // dcterms meta tags
  'html/www.gesetze-im-internet.de/aelv_2017/index.html', // dates only in the text
  'html/www.gesetze-im-internet.de/atzv/index.html', // "Neugefasst durch" and "Zuletzt geändert durch"
  'html/manpages.debian.org/bookworm/manpages-de/agetty.8.de.html',
  'html/manpages.debian.org/bookworm/manpages-de/[.1.de.html', // month precision
  'html/help.libreoffice.org/7.4/de/text/sbasic/guide/access2base.html',
  'html/docs.gimp.org/2.10/de/filters-blur.html',
  'html/debian-handbook.info/browse/de-DE/stable/case-study.html', // Last-Modified header
  'html/www.debian.org/doc/manuals/developers-reference/l10n.de.html', // "Title — site" suffix
  'html/lilypond.org/doc/v2.24/Documentation/essay/putting-lilypond-to-work.de.html',
];

describeWithCorpus('HTML extraction on corpus pages', () => {
  beforeAll(() => {
    truth = readCorpusJsonl<Truth>('truth.jsonl');
    manifest = new Map(readCorpusJsonl<{ path: string; headers: Record<string, string> }>('manifest.jsonl').map((m) => [m.path, m.headers]));
  });
  for (const path of SAMPLES) {
    it(path, async () => {
      const t = truth.find((r) => r.path === path)!;
      expect(t, `truth for ${path}`).toBeDefined();
      const doc = await extractDocument({ bytes: readFileSync(`${CORPUS}${path}`), url: t.url, fileName: path.split('/').pop(), headers: manifest.get(path) });
      expect(doc.documentType).toBe('html');
      expect(doc.contentType).toBe('text/html');
      expect(doc.title).toBe(t.title);
      expectSameDate(doc.publishedAt, t.published_at);
      expectSameDate(doc.modifiedAt, t.modified_at);
      expect(doc.language).toBe(t.lang);
      for (const term of t.key_terms) expect(doc.text).toContain(term);
    });
  }

  it('drops the law site navigation and footer', async () => {
    const doc = await extractDocument({ bytes: readFileSync(`${CORPUS}html/www.gesetze-im-internet.de/adwirkg/index.html`), url: 'https://www.gesetze-im-internet.de/adwirkg/' });
    expect(doc.text).not.toMatch(/Volltextsuche|Impressum|Barrierefreiheitserklärung/);
    expect(doc.text).toContain('§ 1 Anwendungsbereich');
    expect(doc.dates).toMatchObject({ json_ld_date_published: '2001-11-05', text_ausfertigungsdatum: '2001-11-05', text_zuletzt_geaendert: '2021-02-12' });
    expect(doc.contentDate).toBe('2001-11-05');
  });

  it('reads the canonical link the page names', async () => {
    const path = 'html/debian-handbook.info/browse/de-DE/stable/case-study.html';
    const doc = await extractDocument({ bytes: readFileSync(`${CORPUS}${path}`), url: 'https://debian-handbook.info/browse/de-DE/stable/case-study.html' });
    expect(doc.canonicalUrl).toBe('https://debian-handbook.info/browse/de-DE/stable/case-study.html');
    expect(doc.modifiedAt).toBeNull(); // no header given: undated stays undated
  });
});

describe('HTML extraction rules', () => {
  it('decodes windows-1252 bytes from the meta charset and from detection', async () => {
    const latin1 = (s: string) => Uint8Array.from([...s].map((c) => c.charCodeAt(0)));
    const page = '<html><head><meta charset="iso-8859-1"><title>Straßenbahn für Köln</title></head><body><p>Die Bürger äußern sich über die Straßenbahn.</p></body></html>';
    const declared = await extractDocument({ bytes: latin1(page), url: 'https://x.example/a' });
    expect(declared.title).toBe('Straßenbahn für Köln');
    expect(declared.text).toContain('Die Bürger äußern sich');
    const undeclared = await extractDocument({ bytes: latin1(page.replace('<meta charset="iso-8859-1">', '')), url: 'https://x.example/a' });
    expect(undeclared.text).toContain('Die Bürger äußern sich');
    expect(undeclared.content.charset).toBe('windows-1252');
    // A server that labels a latin1 page as UTF-8 is overruled by the bytes.
    const mislabelled = await extractDocument({ bytes: latin1(page.replace('<meta charset="iso-8859-1">', '')), url: 'https://x.example/a', headers: { 'content-type': 'text/html; charset=utf-8' } });
    expect(mislabelled.text).toContain('Die Bürger äußern sich');
  });

  it('keeps the main part and drops navigation, header, footer and the cookie banner', async () => {
    const doc = await html(`<!doctype html><html lang="de"><head><title>Neue Radwege in Lindenau | Stadtanzeiger</title>
      <meta property="og:site_name" content="Stadtanzeiger"></head><body>
      <header><a href="/">Stadtanzeiger</a><nav><ul><li><a href="/politik">Politik</a></li><li><a href="/sport">Sport</a></li><li><a href="/kultur">Kultur</a></li></ul></nav></header>
      <div class="cookie-banner"><p>Wir verwenden Cookies. Akzeptieren?</p></div>
      <main><article><h1>Neue Radwege in Lindenau</h1><p>Der Stadtrat hat am Dienstag beschlossen, drei neue Radwege zu bauen.</p>
      <p>Die Bauarbeiten beginnen im Frühjahr.</p></article></main>
      <aside><h2>Meistgelesen</h2><p>Etwas anderes</p></aside>
      <footer><p>Impressum · Datenschutz</p></footer></body></html>`);
    expect(doc.title).toBe('Neue Radwege in Lindenau');
    expect(doc.text).toContain('drei neue Radwege');
    expect(doc.text).not.toMatch(/Politik|Cookies|Meistgelesen|Impressum/);
    expect(doc.content.mainContentFound).toBe(true);
  });

  it('recognises news from JSON-LD (also inside @graph) and from og:type article', async () => {
    const graph = await html(`<html><head><title>x</title><script type="application/ld+json">{"@context":"https://schema.org","@graph":[
      {"@type":"WebSite","name":"Lokalblatt"},{"@type":"ReportageNewsArticle","headline":"Hochwasser an der Elbe","datePublished":"2024-06-03T08:15:00+02:00","dateModified":"2024-06-04T10:00:00+02:00"}]}</script></head>
      <body><p>Der Pegel steigt weiter.</p></body></html>`);
    expect(graph.isNews).toBe(true);
    expect(graph.title).toBe('Hochwasser an der Elbe');
    expect(graph.publishedAt).toBe('2024-06-03T08:15:00+02:00');
    expect(graph.modifiedAt).toBe('2024-06-04T10:00:00+02:00');

    const og = await html(`<html><head><meta property="og:type" content="article"><meta property="og:title" content="Neuer Bürgermeister gewählt">
      <meta property="article:published_time" content="2023-05-02"></head><body><p>Die Wahl fiel knapp aus.</p></body></html>`);
    expect(og.isNews).toBe(true);
    expect(og.publishedAt).toBe('2023-05-02');

    const plain = await html('<html><head><meta property="og:type" content="article"></head><body><p>Ein Ratgeber ohne Datum.</p></body></html>');
    expect(plain.isNews).toBe(false);
    expect(plain.publishedAt).toBeNull();
    expect(plain.modifiedAt).toBeNull();
  });

  it('reads microdata NewsArticle and <time> dates', async () => {
    const doc = await html(`<html><body><article itemscope itemtype="https://schema.org/NewsArticle"><h1 itemprop="headline">Brücke gesperrt</h1>
      <time itemprop="datePublished" datetime="2022-11-09">9. November 2022</time><p>Die Brücke bleibt bis Jahresende gesperrt.</p></article></body></html>`);
    expect(doc.isNews).toBe(true);
    expect(doc.publishedAt).toBe('2022-11-09');
    expect(doc.dates.microdata_date_published).toBe('2022-11-09');
  });

  it('takes dates from meta tags, the text and the Last-Modified header, each with its origin', async () => {
    const doc = await html(`<html><head><title>Merkblatt Abfall</title><meta name="DC.date" content="2019-04-01"></head>
      <body><main><p>Hinweise zur Mülltrennung.</p><p>Stand: März 2021</p></main></body></html>`, { 'last-modified': 'Tue, 02 Mar 2021 10:00:00 GMT' });
    expect(doc.dates).toMatchObject({ meta_dc_date: '2019-04-01', text_stand: '2021-03', http_last_modified: '2021-03-02T10:00:00Z' });
    expect(doc.publishedAt).toBe('2019-04-01');
    expect(doc.contentDate).toBe('2021-03');
    // "Stand:" states the version of the text; the server's file time loses to the page's own dates.
    expect(doc.modifiedAt).toBe('2021-03');
    const dcOnly = await html('<html><head><meta name="DC.date" content="2019-04-01"></head><body><p>Hinweise.</p></body></html>', { 'last-modified': 'Tue, 02 Mar 2021 10:00:00 GMT' });
    expect(dcOnly.modifiedAt).toBeNull();

    const undated = await html('<html><body><p>Ohne jedes Datum.</p></body></html>', { 'last-modified': 'Tue, 02 Mar 2021 10:00:00 GMT' });
    expect(undated.modifiedAt).toBe('2021-03-02T10:00:00Z');
    expect(undated.publishedAt).toBeNull();
  });

  it('honours noindex from meta robots and X-Robots-Tag, for us and for all robots only', async () => {
    expect((await html('<html><head><meta name="robots" content="noindex, follow"></head><body><p>x</p></body></html>')).noindex).toBe(true);
    expect((await html('<html><head><meta name="robots" content="NONE"></head><body><p>x</p></body></html>')).noindex).toBe(true);
    expect((await html('<html><body><p>x</p></body></html>', { 'x-robots-tag': 'noindex' })).noindex).toBe(true);
    expect((await html('<html><body><p>x</p></body></html>', { 'x-robots-tag': 'googlebot: noindex' })).noindex).toBe(false);
    expect((await html('<html><body><p>x</p></body></html>', { 'x-robots-tag': 'FundusBot: noindex' })).noindex).toBe(true);
    expect((await html('<html><head><meta name="FundusBot" content="noindex"></head><body><p>x</p></body></html>')).noindex).toBe(true);
    expect((await html('<html><head><meta name="googlebot" content="noindex"></head><body><p>x</p></body></html>')).noindex).toBe(false);
    expect((await html('<html><head><meta name="robots" content="index, follow"></head><body><p>x</p></body></html>')).noindex).toBe(false);
  });

  it('resolves the canonical link against <base> and the page URL', async () => {
    const doc = await html('<html><head><base href="https://cdn.example.org/docs/"><link rel="canonical" href="../seite.html#top"></head><body><p>x</p></body></html>');
    expect(doc.canonicalUrl).toBe('https://cdn.example.org/seite.html');
    const bad = await html('<html><head><link rel="canonical" href="javascript:alert(1)"></head><body><p>x</p></body></html>');
    expect(bad.canonicalUrl).toBeNull();
  });

  it('removes a site name from the title only when something says it is one', async () => {
    const suffix = await html('<html><head><title>Fahrplanwechsel im Dezember – Verkehrsverbund Nord</title></head><body><h1>Fahrplanwechsel im Dezember</h1><p>Text.</p></body></html>');
    expect(suffix.title).toBe('Fahrplanwechsel im Dezember');
    const oneTitle = await html('<html><head><title>Diagramm-Assistent – Diagrammtyp</title></head><body><h1>Diagramm-Assistent – Diagrammtyp</h1><p>Text.</p></body></html>');
    expect(oneTitle.title).toBe('Diagramm-Assistent – Diagrammtyp');
    const host = await html('<html><head><title>Öffnungszeiten | Stadtbibliothek Lindenau</title></head><body><p>Text.</p></body></html>', {}, 'https://www.stadtbibliothek-lindenau.de/zeiten');
    expect(host.title).toBe('Öffnungszeiten');
    const noTitle = await html('<html><body><h1>Nur eine Überschrift</h1><p>Text.</p></body></html>');
    expect(noTitle.title).toBe('Nur eine Überschrift');
  });

  it('tells the language from the text over a template lang attribute', async () => {
    const en = await html('<html lang="de"><body><p>The council has decided that the new bridge will be built in the spring, and it is expected to open to traffic by the end of the year.</p></body></html>');
    expect(en.language).toBe('en');
    const fr = await html('<html><body><p>Le conseil municipal a décidé que le nouveau pont sera construit au printemps et il sera ouvert à la circulation avant la fin de l’année.</p></body></html>');
    expect(fr.language).toBe('fr');
    const short = await html('<html lang="nl-BE"><body><p>Welkom</p></body></html>');
    expect(short.language).toBe('nl');
  });

  it('refuses a page without any text', async () => {
    await expect(html('<html><head><script>var a=1</script></head><body><script>x()</script></body></html>')).rejects.toMatchObject({ code: 'NO_TEXT' });
    await expect(html('<html><head><title>Meine App</title></head><body><div id="root"></div><noscript>Bitte JavaScript aktivieren</noscript></body></html>')).rejects.toMatchObject({ code: 'NO_TEXT' });
  });
  it('drops an unmarked menu above the heading but keeps the link lists of the page below it', async () => {
    const links = (items: string[]) => items.map((t, i) => `<li><a href="/p${i}.html">${t}</a></li>`).join('');
    const doc = await html(`<html><head><title>Diagrammlegende</title></head><body>
      <div class="top"><ul>${links(['Startseite', 'Produkte', 'Kontakt', 'Impressum'])}</ul></div>
      <h1>Diagrammlegende bearbeiten</h1>
      <p>Um die Legende eines Diagramms zu bearbeiten, doppelklicken Sie auf das Diagramm und wählen Sie die Legende aus.
      Im Dialog legen Sie die Position, die Schriftart und die Umrandung der Legende fest.</p>
      <div class="relatedtopics"><p>Verwandte Themen</p><div>${links(['Diagrammachse bearbeiten', 'Diagrammtitel bearbeiten', 'Objektumrandungen festlegen'])}</div></div>
      </body></html>`);
    expect(doc.text).toContain('Legende eines Diagramms');
    expect(doc.text).toContain('Objektumrandungen festlegen');
    expect(doc.text).toContain('Diagrammachse bearbeiten');
    expect(doc.text).not.toMatch(/Startseite|Impressum/);
  });
});

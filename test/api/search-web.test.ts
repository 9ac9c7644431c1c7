import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOPICS } from '../../services/core/topics.ts';
import { CONTRACT_DOCS, makeDoc } from '../helpers/documents.ts';
import { getJson, postJson } from '../helpers/gateway.ts';
import { admitAllGuardForTests } from '../helpers/open-guard.ts';
import { createResponseValidator } from '../helpers/openapi-validator.ts';
import { mastodonStatus, sampleFediverseFiles, startTestSearchWeb, type TestSearchWeb } from '../helpers/search-web.ts';

// The public search endpoints (spec 4.3) through real HTTP. These tests make far more than 60
// requests, so they admit every request (admitAllGuardForTests); the budget itself is tested with the
// real public guard in search-web-budget.test.ts.

const LONG_POST = `<p>${'Gestern Abend in der Oper: die Zauberflöte, wunderbar gesungen und gespielt, mit einem Publikum, das bis zum Schluss begeistert war. '.repeat(5)}</p>`;
const SHORT_POST = '<p>Kurzmeldung: Eis essen!</p>';
const EMOJI_POST = `<p>Emojiparty ${'🎉👨‍👩‍👧‍👦🇩🇪 '.repeat(40)}</p>`;

let web: TestSearchWeb;
let validate: ReturnType<typeof createResponseValidator>;

const OWN_STATUSES = [
  mastodonStatus({ instance: 'social.example', user: 'oper', content: LONG_POST, createdAt: '2026-11-10T19:00:00.000Z', tags: ['oper'] }),
  mastodonStatus({ instance: 'social.example', user: 'eis', content: SHORT_POST, createdAt: '2026-11-11T15:00:00.000Z' }),
  mastodonStatus({ instance: 'other.example', user: 'party', content: EMOJI_POST, createdAt: '2026-11-12T22:00:00.000Z' }),
  ...Array.from({ length: 14 }, (_, i) =>
    mastodonStatus({ instance: i % 2 ? 'social.example' : 'other.example', user: `markt${i}`, content: `<p>Der Flohmarkt Nummer ${i} am Sonntag</p>`, createdAt: `2026-10-${String(i + 1).padStart(2, '0')}T09:00:00.000Z` }),
  ),
];

const NEWS = Array.from({ length: 13 }, (_, i) =>
  makeDoc({ url: `https://www.zeitung-${i % 2 ? 'a' : 'b'}.example/stadtrat-${i}`, title: `Stadtrat tagt (${i})`, text: `Der Stadtrat berät über den Haushalt, Folge ${i}.`, publishedAt: `2026-${String((i % 11) + 1).padStart(2, '0')}-${String(10 + i).padStart(2, '0')}`, isNews: true, topic: 'Politik' }),
);

async function post(path: string, body: unknown, contentType = 'application/json') {
  const response = await postJson(`${web.url}${path}`, body, { 'content-type': contentType });
  const errors = validate(path, 'POST', response.status, response.body);
  expect(errors, `${path} ${response.status} matches its OpenAPI description`).toEqual([]);
  return response;
}

beforeAll(async () => {
  const protocols = Array.from({ length: 25 }, (_, i) => makeDoc({ url: `https://archiv.stadt-c.example/${i}`, title: `Protokoll ${i}`, text: `Sitzung des Rates Nummer ${i} über den Haushalt.`, publishedAt: `2024-0${(i % 9) + 1}-10` }));
  const archive = Array.from({ length: 1015 }, (_, i) => makeDoc({ url: `https://archiv.example/seite-${i}`, title: `Archivseite ${i}`, text: `Ein Blatt aus dem Archiv, Nummer ${i}.` }));
  web = await startTestSearchWeb({
    webDocs: [...CONTRACT_DOCS.map(makeDoc), ...NEWS, ...protocols, ...archive],
    fediverseFiles: sampleFediverseFiles(),
    statuses: OWN_STATUSES,
    guard: admitAllGuardForTests(),
    fediverseInstances: ['social.example', 'other.example'],
  });
  validate = createResponseValidator((await getJson(`${web.url}/api/openapi.json`)).body);
});

afterAll(async () => {
  await web?.close();
});

describe('POST /api/search', () => {
  it('answers with results, provider, has_more, total and total_relation, 10 hits a page', async () => {
    const { status, body, headers } = await post('/api/search', { q: 'Protokoll' });
    expect(status).toBe(200);
    expect(body).toMatchObject({ provider: 'local', has_more: true, total: 25, total_relation: 'eq', offset: 0 });
    expect(body.results).toHaveLength(10);
    expect(headers.get('cache-control')).toBe('no-store');
    const hit = body.results[0];
    expect(Object.keys(hit).sort()).toEqual(
      ['content_type', 'document_id', 'document_type', 'highlights', 'language', 'match_type', 'modified_at', 'published_at', 'snippet', 'source_domain', 'title', 'topic', 'url'].sort(),
    );
    expect(hit.document_id).toMatch(/^urn:uuid:/);
    const last = await post('/api/search', { q: 'Protokoll', offset: 20 });
    expect(last.body.results).toHaveLength(5);
    expect(last.body.has_more).toBe(false);
  });

  it('ignores a limit field: the page size stays 10', async () => {
    for (const limit of [50, 1, 'viele', null]) {
      const { status, body } = await post('/api/search', { q: 'Protokoll', limit });
      expect(status).toBe(200);
      expect(body.results).toHaveLength(10);
    }
  });

  it('accepts offset 0 to 1000 and rejects 1001 and negative offsets with 422', async () => {
    const at1000 = await post('/api/search', { q: 'Archivseite', offset: 1000 });
    expect(at1000.status).toBe(200);
    expect(at1000.body.results).toHaveLength(10);
    expect(at1000.body.total).toBe(1015);
    expect(at1000.body.has_more, 'no next page is announced past the offset limit').toBe(false);
    expect((await post('/api/search', { q: 'Archivseite', offset: 990 })).body.has_more).toBe(true);
    expect((await post('/api/search', { q: 'Archivseite', offset: '10' })).status).toBe(200);
    const over = await post('/api/search', { q: 'Archivseite', offset: 1001 });
    expect(over.status).toBe(422);
    expect(over.body.detail).toEqual([{ type: 'less_than_equal', loc: ['body', 'offset'], msg: 'Input should be less than or equal to 1000', input: 1001, ctx: { le: 1000 } }]);
    expect((await post('/api/search', { q: 'Archivseite', offset: -1 })).body.detail[0]).toMatchObject({ type: 'greater_than_equal', loc: ['body', 'offset'] });
    expect((await post('/api/search', { q: 'Archivseite', offset: 1.5 })).body.detail[0]).toMatchObject({ type: 'int_from_float', loc: ['body', 'offset'] });
  });

  it('requires q of 1 to 400 characters', async () => {
    expect((await post('/api/search', {})).body.detail).toEqual([{ type: 'missing', loc: ['body', 'q'], msg: 'Field required', input: {} }]);
    expect((await post('/api/search', { q: '' })).body.detail[0]).toMatchObject({ type: 'string_too_short', loc: ['body', 'q'] });
    expect((await post('/api/search', { q: 'x'.repeat(401) })).body.detail[0]).toMatchObject({ type: 'string_too_long', loc: ['body', 'q'], ctx: { max_length: 400 } });
    expect((await post('/api/search', { q: `Haus ${'x'.repeat(395)}` })).status).toBe(200);
    expect((await post('/api/search', { q: 42 })).body.detail[0]).toMatchObject({ type: 'string_type', loc: ['body', 'q'] });
  });

  it('filters by source written as domain:<domain> (subdomains included; a bare domain works too)', async () => {
    for (const source of ['domain:stadt-a.example', 'stadt-a.example', 'domain:www.stadt-a.example', 'DOMAIN:Stadt-A.example']) {
      const { body } = await post('/api/search', { q: 'Wahl', source });
      expect(body.results.map((r: any) => r.title), source).toEqual(['Die Bundestagswahl']);
    }
    expect((await post('/api/search', { q: 'Wahl', source: 'domain:nirgends.example' })).body).toMatchObject({ total: 0, results: [] });
    expect((await post('/api/search', { q: 'Wahl', source: `domain:${'a'.repeat(260)}` })).body.detail[0]).toMatchObject({ type: 'string_too_long', loc: ['body', 'source'] });
  });

  it('filters by topic, document types (OR) and age; undated documents drop out when age is set', async () => {
    expect((await post('/api/search', { q: 'Wahl', topic: 'politik' })).body.total).toBe(2);
    expect((await post('/api/search', { q: 'Haus', document_types: ['pdf'] })).body.results.map((r: any) => r.title)).toEqual(['Neue Häuser']);
    expect((await post('/api/search', { q: 'Haus', document_types: ['pdf', 'docx'] })).body.total).toBe(2);
    expect((await post('/api/search', { q: 'Haus', document_types: ['exe'] })).body.detail[0]).toMatchObject({ type: 'literal_error', loc: ['body', 'document_types', 0] });
    expect((await post('/api/search', { q: 'Haus', document_types: ['pdf', 'pdf', 'pdf', 'pdf', 'pdf', 'pdf'] })).body.detail[0]).toMatchObject({ type: 'too_long' });
    // Now is 2026-11-22: "Das Haus am See" (2026-10-01) is within 3 months; 2010 and undated are not.
    const recent = (await post('/api/search', { q: 'Haus', max_age_months: 3 })).body.results;
    expect(recent.map((r: any) => r.title)).toContain('Das Haus am See');
    expect(recent.map((r: any) => r.title)).not.toContain('Neue Häuser');
    expect(recent.map((r: any) => r.title)).not.toContain('Wahl des Vorstands');
    for (const hit of recent) expect((hit.published_at ?? hit.modified_at) >= '2026-08-22').toBe(true);
    for (const bad of [0, 1201]) expect((await post('/api/search', { q: 'Haus', max_age_months: bad })).status).toBe(422);
    expect((await post('/api/search', { q: 'Haus', max_age_months: 1200 })).status).toBe(200);
  });

  it('emphasises matched words through highlight ranges into the plain-text snippet', async () => {
    const { body } = await post('/api/search', { q: 'Häuser' });
    for (const hit of body.results) {
      expect(hit.snippet).not.toMatch(/[<>]/);
      for (const { start, end } of hit.highlights) expect(hit.snippet.slice(start, end)).toMatch(/^H(ä|a)us/i);
    }
    expect(body.results.some((hit: any) => hit.highlights.length > 0)).toBe(true);
  });
});

describe('POST /api/news', () => {
  it('lists only news, newest first, with q optional', async () => {
    const { status, body } = await post('/api/news', {});
    expect(status).toBe(200);
    expect(body.total).toBe(15);
    expect(body.results).toHaveLength(10);
    expect(body.has_more).toBe(true);
    const dates = body.results.map((r: any) => r.published_at ?? r.modified_at);
    expect(dates).toEqual([...dates].sort().reverse());
    const page2 = (await post('/api/news', { offset: 10 })).body;
    expect(page2.results).toHaveLength(5);
    expect((page2.results[0].published_at ?? page2.results[0].modified_at) <= dates.at(-1)).toBe(true);
    expect((await post('/api/news', { q: '' })).body.total).toBe(15);
  });

  it('applies q and the same filters as the web search', async () => {
    expect((await post('/api/news', { q: 'Stadtrat' })).body.total).toBe(13);
    expect((await post('/api/news', { q: 'Stadtrat', source: 'domain:zeitung-a.example' })).body.total).toBe(6);
    expect((await post('/api/news', { document_types: ['odt'] })).body.results.map((r: any) => r.title)).toEqual(['Interview mit Anna Müller']);
    expect((await post('/api/news', { topic: 'Politik', max_age_months: 3 })).body.results.every((r: any) => r.topic === 'Politik')).toBe(true);
    expect((await post('/api/news', { q: 'x'.repeat(401) })).status).toBe(422);
    expect((await post('/api/news', { offset: 1001 })).status).toBe(422);
  });
});

describe('POST /api/fediverse/search and /api/social', () => {
  const socialKeys = ['author_handle', 'author_name', 'author_url', 'content_warning', 'created_at', 'document_id', 'edited_at', 'favourites_count', 'highlights', 'instance', 'language', 'match_type', 'reblogs_count', 'replies_count', 'snippet', 'tags', 'url'].sort();

  it('searches posts by relevance with q required; items carry metadata, an excerpt and no text', async () => {
    const { status, body } = await post('/api/fediverse/search', { q: 'Zauberflöte' });
    expect(status).toBe(200);
    expect(body).toMatchObject({ provider: 'local', total: 1, total_relation: 'eq', has_more: false });
    const hit = body.results[0];
    expect(Object.keys(hit).sort()).toEqual(socialKeys);
    expect(hit).not.toHaveProperty('text');
    expect(hit).toMatchObject({ author_handle: '@oper@social.example', instance: 'social.example', created_at: '2026-11-10T19:00:00.000Z', language: 'de', tags: ['oper'] });
    expect(hit.url).toMatch(/^https:\/\/social\.example\/@oper\//);
    expect((await post('/api/fediverse/search', {})).body.detail[0]).toMatchObject({ type: 'missing', loc: ['body', 'q'] });
    expect((await post('/api/fediverse/search', { q: '' })).status).toBe(422);
  });

  it('keeps excerpts of long, short and emoji-heavy posts within 180 characters plus an ellipsis and half the post', async () => {
    const graphemes = (s: string) => [...new Intl.Segmenter('de', { granularity: 'grapheme' }).segment(s)].length;
    const cases: [string, string][] = [['Zauberflöte', LONG_POST], ['Kurzmeldung', SHORT_POST], ['Emojiparty', EMOJI_POST]];
    for (const [q, html] of cases) {
      const text = html.replace(/<[^>]+>/g, '').replace(/\s+/g, ' ').trim();
      const [hit] = (await post('/api/fediverse/search', { q })).body.results;
      for (const measure of [(s: string) => s.length, (s: string) => [...s].length, graphemes]) {
        expect(measure(hit.snippet), q).toBeLessThanOrEqual(181);
        expect(measure(hit.snippet), q).toBeLessThanOrEqual(Math.floor(measure(text) / 2));
      }
      expect(hit.snippet.endsWith('…'), q).toBe(true);
      expect(text.startsWith(hit.snippet.slice(0, -1)), `${q}: an excerpt from the start, cut at a grapheme boundary`).toBe(true);
    }
    const long = (await post('/api/fediverse/search', { q: 'Zauberflöte' })).body.results[0].snippet;
    expect(long.length).toBeGreaterThan(150);
    // 23 characters: at most 11 shown, ellipsis included; no word fits, so the first word is cut between graphemes.
    expect((await post('/api/fediverse/search', { q: 'Kurzmeldung' })).body.results[0].snippet).toBe('Kurzmeldun…');
  });

  it('filters by instance and max_age_months, and ignores topic and document_types', async () => {
    expect((await post('/api/fediverse/search', { q: 'Flohmarkt' })).body.total).toBe(14);
    expect((await post('/api/fediverse/search', { q: 'Flohmarkt', source: 'social.example' })).body.results.every((r: any) => r.instance === 'social.example')).toBe(true);
    expect((await post('/api/fediverse/search', { q: 'Flohmarkt', source: 'social.example' })).body.total).toBe(7);
    expect((await post('/api/fediverse/search', { q: 'Flohmarkt', source: 'nirgends.example' })).body.total).toBe(0);
    expect((await post('/api/fediverse/search', { q: 'Flohmarkt', topic: 'Sport', document_types: ['pdf'] })).body.total).toBe(14);
    expect((await post('/api/social', { q: 'Flohmarkt', max_age_months: 1 })).body.total).toBe(0);
  });

  it('lists posts newest first, q optional, paged by 10 without ever a text field', async () => {
    const first = await post('/api/social', {});
    expect(first.status).toBe(200);
    expect(first.body.results).toHaveLength(10);
    expect(first.body.has_more).toBe(true);
    const seen: any[] = [];
    for (let offset = 0; offset <= 1000; offset += 10) {
      const { body } = await post('/api/social', { offset });
      seen.push(...body.results);
      if (!body.has_more) break;
    }
    expect(seen.length).toBe(first.body.total);
    const created = seen.map((r) => Date.parse(r.created_at));
    expect(created).toEqual([...created].sort((a, b) => b - a));
    for (const hit of seen) {
      expect(hit).not.toHaveProperty('text');
      expect(hit.snippet.length).toBeLessThanOrEqual(181);
    }
    const flohmarkt = (await post('/api/social', { q: 'Flohmarkt' })).body.results.map((r: any) => r.created_at);
    expect(flohmarkt[0]).toBe('2026-10-14T09:00:00.000Z');
    expect((await post('/api/social', { offset: 1001 })).status).toBe(422);
  });
});

describe('request bodies', () => {
  it('answers malformed bodies with the HTTPValidationError shape', async () => {
    const notJson = await post('/api/search', '{"q": ', 'application/json');
    expect(notJson.status).toBe(422);
    expect(notJson.body.detail[0]).toMatchObject({ type: 'json_invalid', loc: ['body', 0], msg: 'JSON decode error' });
    expect((await post('/api/social', 'q=Haus', 'application/x-www-form-urlencoded')).body.detail[0]).toMatchObject({ type: 'model_attributes_type', loc: ['body'] });
    expect((await post('/api/news', '[1,2]')).body.detail[0]).toMatchObject({ type: 'model_attributes_type', loc: ['body'] });
    expect((await post('/api/fediverse/search', '')).body.detail[0]).toMatchObject({ type: 'missing', loc: ['body'] });
  });
});

describe('GET /api/options and /api/openapi.json', () => {
  it('lists sources with counts, the topic labels, document types and the selected instances', async () => {
    const { status, body } = await getJson(`${web.url}/api/options`);
    expect(status).toBe(200);
    expect(validate('/api/options', 'GET', status, body)).toEqual([]);
    expect(body.sources[0]).toEqual({ domain: 'archiv.example', documents: 1015 });
    expect(body.sources).toContainEqual({ domain: 'stadt-a.example', documents: 3 });
    expect(body.topics.map((t: any) => t.label)).toEqual(TOPICS.map((t) => t.label));
    expect(body.document_types).toEqual(['html', 'pdf', 'docx', 'doc', 'odt']);
    expect(body.fediverse_instances.map((i: any) => i.instance)).toEqual(['social.example', 'other.example']);
    expect(body.fediverse_instances[0].posts).toBeGreaterThan(0);
    expect(body).toMatchObject({ page_size: 10, max_offset: 1000 });
  });

  it('describes the five endpoints in OpenAPI 3.1, without a limit parameter', async () => {
    const { body } = await getJson(`${web.url}/api/openapi.json`);
    expect(body.openapi).toBe('3.1.0');
    expect(Object.keys(body.paths).sort()).toEqual(['/api/fediverse/search', '/api/news', '/api/options', '/api/search', '/api/social']);
    for (const id of ['WebSearchRequest', 'NewsSearchRequest', 'FediverseSearchRequest', 'SocialRequest']) {
      const properties = body.components.schemas[id].properties;
      expect(properties).not.toHaveProperty('limit');
      expect(properties.offset).toMatchObject({ minimum: 0, maximum: 1000 });
      expect(properties.q.maxLength ?? properties.q.anyOf?.find((s: any) => s.type === 'string')?.maxLength).toBe(400);
    }
    expect(body.components.schemas.FediverseSearchRequest.properties).not.toHaveProperty('topic');
    expect(body.components.schemas.SocialHit.properties).not.toHaveProperty('text');
    expect(body.components.schemas.WebSearchRequest.required).toEqual(['q']);
    expect(body.components.schemas.NewsSearchRequest.required ?? []).toEqual([]);
    expect(body.paths['/api/search'].post.security).toEqual([]);
  });
});

describe('the page and privacy', () => {
  it('serves the search page and its assets from the same origin under a strict CSP', async () => {
    const page = await fetch(`${web.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = page.headers.get('content-security-policy')!;
    for (const rule of ["default-src 'self'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'", "base-uri 'none'", "form-action 'self'"]) expect(csp).toContain(rule);
    const html = await page.text();
    expect(html).toContain('<html lang="de">');
    expect(html, 'no inline script, style or handler, nothing from elsewhere').not.toMatch(/<script>|\sstyle=|\son[a-z]+=|(src|href)="https?:/);
    for (const asset of ['/static/search.js', '/static/render.js', '/static/search.css', '/static/favicon.svg']) {
      const response = await fetch(`${web.url}${asset}`);
      expect(response.status, asset).toBe(200);
      const etag = response.headers.get('etag')!;
      expect((await fetch(`${web.url}${asset}`, { headers: { 'if-none-match': etag } })).status).toBe(304);
    }
    expect((await fetch(`${web.url}/static/../app.ts`)).status).toBe(404);
  });

  it('never logs query text', async () => {
    await post('/api/search', { q: 'Geheimwortsuche' });
    await post('/api/social', { q: 'Geheimwortsuche' });
    await post('/api/search', { q: 'Geheimwortsuche', offset: 5000 });
    expect(web.logs()).toContain('"route":"/api/search"');
    expect(web.logs()).not.toContain('Geheimwortsuche');
    const requestLines = web.logs().split('\n').filter((line) => line.includes('"route"'));
    expect(requestLines.length).toBeGreaterThanOrEqual(3);
    for (const line of requestLines) expect(line, 'no client address in request logs').not.toMatch(/127\.0\.0\.1|remoteAddress|"ip"/);
  });
});

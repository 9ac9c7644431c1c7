import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTRACT_DOCS, makeDoc } from '../helpers/documents.ts';
import { getJson, postJson, startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { createResponseValidator } from '../helpers/openapi-validator.ts';

// The project API v1 (spec 4.1) through real HTTP. Access control is a stand-in here
// (admitAllGuardForTests); the real checks are tested in test/api/access*.test.ts.

let gateway: TestGateway;
let validate: ReturnType<typeof createResponseValidator>;
const seen: { path: string; method: string; status: number; body: unknown }[] = [];

async function search(body: unknown, contentType = 'application/json') {
  const response = await postJson(`${gateway.url}/v1/search`, body, { 'content-type': contentType });
  seen.push({ path: '/v1/search', method: 'POST', status: response.status, body: response.body });
  return response;
}

async function get(path: string, template = path) {
  const response = await getJson(`${gateway.url}${path}`);
  seen.push({ path: template, method: 'GET', status: response.status, body: response.body });
  return response;
}

beforeAll(async () => {
  const filler = Array.from({ length: 25 }, (_, i) =>
    makeDoc({ url: `https://archiv.stadt-c.example/${i}`, title: `Protokoll ${i}`, text: `Sitzung des Rates Nummer ${i} über die Kassenprüfung.`, publishedAt: `2024-0${(i % 9) + 1}-10` }),
  );
  gateway = await startTestGateway([...CONTRACT_DOCS.map(makeDoc), ...filler]);
  validate = createResponseValidator((await getJson(`${gateway.url}/openapi.json`)).body);
});

afterAll(async () => {
  await gateway?.close();
});

describe('POST /v1/search', () => {
  it('answers with the SearchResponse fields and defaults', async () => {
    const { status, body } = await search({ q: 'Haus' });
    expect(status).toBe(200);
    expect(body).toMatchObject({ offset: 0, limit: 10, has_more: false, provider: 'local', total: 3, total_relation: 'eq' });
    const hit = body.results[0];
    expect(hit).toMatchObject({ title: 'Das Haus am See', url: 'https://www.stadt-a.example/haus', source_domain: 'stadt-a.example', content_type: 'text/html', match_type: 'exact' });
    expect(hit.document_id).toMatch(/^urn:uuid:[0-9a-f-]{36}$/);
    expect(hit.source_id).toMatch(/^src-/);
    expect(typeof hit.fetched_at).toBe('string');
    expect(hit.published_at).toBe('2026-10-01');
  });

  it('returns plain-text snippets around the matched words', async () => {
    const { body } = await search({ q: 'Garten' });
    // Order by relevance: a body word's exact form counts barely more than another form (README, Search quality).
    const byTitle = Object.fromEntries(body.results.map((r: any) => [r.title, r]));
    expect(body.results.map((r: any) => [r.title, r.match_type]).sort()).toEqual([['Das Haus am See', 'exact'], ['Neue Häuser', 'word_form']]);
    expect(byTitle['Das Haus am See'].snippet).toContain('Garten');
    expect(byTitle['Neue Häuser'].snippet).toContain('Gärten');
    for (const hit of body.results) expect(hit.snippet).not.toMatch(/[<>]/);
  });

  it('joins words with AND and takes German word forms into account', async () => {
    expect((await search({ q: 'Haus See' })).body.results.map((r: any) => r.title)).toEqual(['Das Haus am See']);
    const forms = (await search({ q: 'Häuser' })).body.results;
    expect(forms.map((r: any) => [r.title, r.match_type])).toContainEqual(['Neue Häuser', 'exact']);
    expect(forms.map((r: any) => [r.title, r.match_type])).toContainEqual(['Das Haus am See', 'word_form']);
    const compound = (await search({ q: 'Wahl' })).body.results.map((r: any) => [r.title, r.match_type]);
    expect(compound).toEqual([['Wahl des Vorstands', 'exact'], ['Die Bundestagswahl', 'word_form']]);
  });

  it('filters by source main domain, subdomains included, in the forms users write it', async () => {
    for (const source of ['stadt-a.example', 'domain:stadt-a.example', 'www.stadt-a.example', 'STADT-A.example']) {
      const titles = (await search({ q: 'Wahl', source })).body.results.map((r: any) => r.title);
      expect(titles, source).toEqual(['Die Bundestagswahl']);
    }
    expect((await search({ q: 'Wahl', source: 'nirgends.example' })).body.total).toBe(0);
    expect((await search({ q: 'Wahl', source: null })).body.total).toBe(2);
  });

  it('combines document_types with OR; empty means all', async () => {
    expect((await search({ q: 'Haus', document_types: ['pdf'] })).body.results.map((r: any) => r.title)).toEqual(['Neue Häuser']);
    expect((await search({ q: 'Haus', document_types: ['pdf', 'docx'] })).body.total).toBe(2);
    expect((await search({ q: 'Haus', document_types: [] })).body.total).toBe(3);
    const pdf = (await search({ q: 'Haus', document_types: ['pdf'] })).body.results[0];
    expect(pdf.content_type).toBe('application/pdf');
  });

  it('excludes undated documents when max_age_months is set', async () => {
    expect((await search({ q: 'Wahl' })).body.total).toBe(2);
    expect((await search({ q: 'Wahl', max_age_months: 1200 })).body.results.map((r: any) => r.title)).toEqual(['Die Bundestagswahl']);
    expect((await search({ q: 'Haus', max_age_months: 3 })).body.results.map((r: any) => r.title)).toEqual(['Das Haus am See']);
  });

  it('filters by topic', async () => {
    expect((await search({ q: 'Wahl', topic: 'Politik' })).body.total).toBe(2);
    expect((await search({ q: 'Haus', topic: 'Politik' })).body.results.map((r: any) => r.title)).toEqual(['Wahl des Vorstands']);
  });

  it('pages with limit, offset and has_more', async () => {
    const first = (await search({ q: 'Kassenprüfung', limit: 10 })).body;
    expect(first).toMatchObject({ total: 25, has_more: true, limit: 10, offset: 0 });
    const last = (await search({ q: 'Kassenprüfung', limit: 10, offset: 20 })).body;
    expect(last.results).toHaveLength(5);
    expect(last.has_more).toBe(false);
    const all = new Set([...first.results, ...(await search({ q: 'Kassenprüfung', offset: 10 })).body.results, ...last.results].map((r: any) => r.document_id));
    expect(all.size).toBe(25);
    expect((await search({ q: 'Kassenprüfung', limit: '5' })).body.results).toHaveLength(5);
    expect((await search({ q: 'Kassenprüfung', offset: 10000 })).body).toMatchObject({ results: [], has_more: false, total: 25 });
  });

  it('accepts q of 400 characters and returns nothing for words-free queries', async () => {
    expect((await search({ q: 'Haus '.repeat(80) })).status).toBe(200);
    expect((await search({ q: '!!! ???' })).body).toMatchObject({ results: [], total: 0 });
  });

  it.each([
    [{}, ['body', 'q'], 'missing'],
    [{ q: '' }, ['body', 'q'], 'string_too_short'],
    [{ q: 'x'.repeat(401) }, ['body', 'q'], 'string_too_long'],
    [{ q: 5 }, ['body', 'q'], 'string_type'],
    [{ q: 'a', source: 'x'.repeat(254) }, ['body', 'source'], 'string_too_long'],
    [{ q: 'a', topic: 'x'.repeat(41) }, ['body', 'topic'], 'string_too_long'],
    [{ q: 'a', max_age_months: 0 }, ['body', 'max_age_months'], 'greater_than_equal'],
    [{ q: 'a', max_age_months: 1201 }, ['body', 'max_age_months'], 'less_than_equal'],
    [{ q: 'a', max_age_months: 'abc' }, ['body', 'max_age_months'], 'int_parsing'],
    [{ q: 'a', max_age_months: 1.5 }, ['body', 'max_age_months'], 'int_from_float'],
    [{ q: 'a', document_types: ['exe'] }, ['body', 'document_types', 0], 'literal_error'],
    [{ q: 'a', document_types: ['html', 'pdf', 'doc', 'docx', 'odt', 'html'] }, ['body', 'document_types'], 'too_long'],
    [{ q: 'a', document_types: 'pdf' }, ['body', 'document_types'], 'list_type'],
    [{ q: 'a', limit: 0 }, ['body', 'limit'], 'greater_than_equal'],
    [{ q: 'a', limit: 51 }, ['body', 'limit'], 'less_than_equal'],
    [{ q: 'a', limit: true }, ['body', 'limit'], 'int_type'],
    [{ q: 'a', offset: -1 }, ['body', 'offset'], 'greater_than_equal'],
    [{ q: 'a', offset: 10001 }, ['body', 'offset'], 'less_than_equal'],
  ])('rejects %j with 422 %j %s', async (body, loc, type) => {
    const response = await search(body);
    expect(response.status).toBe(422);
    expect(response.body.detail).toHaveLength(1);
    const [issue] = response.body.detail;
    expect(issue).toMatchObject({ loc, type });
    expect(typeof issue.msg).toBe('string');
    expect('input' in issue).toBe(true);
  });

  it('gives FastAPI-style messages and context', async () => {
    const [tooLong] = (await search({ q: 'x'.repeat(401) })).body.detail;
    expect(tooLong).toEqual({ type: 'string_too_long', loc: ['body', 'q'], msg: 'String should have at most 400 characters', input: 'x'.repeat(401), ctx: { max_length: 400 } });
    const [limit] = (await search({ q: 'a', limit: 51 })).body.detail;
    expect(limit).toEqual({ type: 'less_than_equal', loc: ['body', 'limit'], msg: 'Input should be less than or equal to 50', input: 51, ctx: { le: 50 } });
    const [literal] = (await search({ q: 'a', document_types: ['exe'] })).body.detail;
    expect(literal.msg).toBe("Input should be 'html', 'pdf', 'docx', 'doc' or 'odt'");
    const several = (await search({ q: '', limit: 99 })).body.detail;
    expect(several.map((d: any) => d.loc.at(-1))).toEqual(['q', 'limit']);
  });

  it('answers bodies that are not JSON objects with 422, never 4xx of another kind or 500', async () => {
    const invalid = await search('{"q": "Haus",', 'application/json');
    expect(invalid.status).toBe(422);
    expect(invalid.body.detail[0]).toMatchObject({ type: 'json_invalid', msg: 'JSON decode error' });
    expect(invalid.body.detail[0].loc[0]).toBe('body');
    const plain = await search('q=Haus', 'text/plain');
    expect(plain.status).toBe(422);
    expect(plain.body.detail[0]).toMatchObject({ type: 'model_attributes_type', loc: ['body'] });
    const empty = await search('', 'application/json');
    expect(empty.status).toBe(422);
    expect(empty.body.detail[0]).toMatchObject({ type: 'missing', loc: ['body'] });
    const array = await search('["Haus"]');
    expect(array.status).toBe(422);
    const form = await search('q=Haus', 'application/x-www-form-urlencoded');
    expect(form.status).toBe(422);
    const huge = await search({ q: 'x', pad: 'y'.repeat(100_000) });
    expect(huge.status).toBe(413);
    expect(huge.body.code).toBe('BODY_TOO_LARGE');
  });

  it('ignores unknown fields, as pydantic models do by default', async () => {
    expect((await search({ q: 'Haus', unknown: 1 })).status).toBe(200);
  });
});

describe('GET /v1/documents/{document_id}', () => {
  it('returns the full text and provenance', async () => {
    const hit = (await search({ q: 'Garten', document_types: ['html'] })).body.results[0];
    const { status, body } = await get(`/v1/documents/${hit.document_id}`, '/v1/documents/{document_id}');
    expect(status).toBe(200);
    expect(body).toMatchObject({
      document_id: hit.document_id,
      url: 'https://www.stadt-a.example/haus',
      title: 'Das Haus am See',
      text: 'Das Haus steht am See. Der Garten des Hauses ist groß.',
      content_type: 'text/html',
      source_domain: 'stadt-a.example',
      fetched_at: '2026-11-01T10:00:00Z',
    });
    expect(body.content_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('answers 404 for an unknown id and 422 for a malformed one', async () => {
    const missing = await get('/v1/documents/urn:uuid:00000000-0000-5000-8000-000000000000', '/v1/documents/{document_id}');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ detail: 'Document not found', code: 'DOCUMENT_NOT_FOUND' });
    for (const bad of ['123', 'urn:uuid:xyz', 'urn%3Auuid%3A1234']) {
      const malformed = await get(`/v1/documents/${bad}`, '/v1/documents/{document_id}');
      expect(malformed.status, bad).toBe(422);
      expect(malformed.body.detail[0]).toMatchObject({ loc: ['path', 'document_id'], type: 'string_pattern_mismatch' });
    }
  });
});

describe('GET /v1/sources and /v1/stats', () => {
  it('lists main domains with document counts', async () => {
    const { status, body } = await get('/v1/sources');
    expect(status).toBe(200);
    expect(body.sources).toEqual([
      { domain: 'stadt-c.example', documents: 26 },
      { domain: 'stadt-a.example', documents: 3 },
      { domain: 'stadt-b.example', documents: 2 },
    ]);
  });

  it('reports collection figures and versions as strings', async () => {
    const { status, body } = await get('/v1/stats');
    expect(status).toBe(200);
    expect(body).toEqual({ documents: 31, sources: 3, last_document_change: '2026-11-02T10:00:00.000Z', api_version: '1.0.0', document_schema_version: '1' });
  });
});

describe('OpenAPI and docs', () => {
  it('serves an OpenAPI 3.1.0 document of version 1.0.0 with every path, code and the bearer scheme', async () => {
    const { status, body } = await getJson(`${gateway.url}/openapi.json`);
    expect(status).toBe(200);
    expect(body.openapi).toBe('3.1.0');
    expect(body.info.version).toBe('1.0.0');
    expect(body.servers[0].url).toBe('http://127.0.0.1:8082');
    expect(Object.keys(body.paths).sort()).toEqual(['/v1/documents/{document_id}', '/v1/search', '/v1/sources', '/v1/stats']);
    expect(Object.keys(body.paths['/v1/search'].post.responses).sort()).toEqual(['200', '401', '403', '413', '422', '429']);
    expect(Object.keys(body.paths['/v1/documents/{document_id}'].get.responses).sort()).toEqual(['200', '401', '403', '404', '422', '429']);
    expect(body.components.securitySchemes.ProjectReadKey).toEqual(expect.objectContaining({ type: 'http', scheme: 'bearer' }));
    expect(body.paths['/v1/search'].post.security).toEqual([{}, { ProjectReadKey: [] }]);
    const params = body.components.schemas.SearchParameters;
    expect(params.properties.q).toMatchObject({ minLength: 1, maxLength: 400 });
    expect(params.properties.limit).toMatchObject({ minimum: 1, maximum: 50 });
    expect(params.required).toEqual(['q']);
    expect(body.paths['/v1/search'].post.responses['429'].headers['Retry-After'].schema.type).toBe('integer');
  });

  it('serves a documentation page', async () => {
    const response = await fetch(`${gateway.url}/docs`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/html');
    const html = await response.text();
    expect(html).toContain('/v1/search');
    expect(html).toContain('Retry-After');
  });

  it('answers unknown routes with the error shape', async () => {
    const response = await getJson(`${gateway.url}/v2/search`);
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ detail: 'Not found', code: 'ROUTE_NOT_FOUND' });
  });

  it('every response seen in these tests validates against the OpenAPI document', () => {
    expect(seen.length).toBeGreaterThan(40);
    const failures = seen.flatMap((r) => validate(r.path, r.method, r.status, r.body).map((e) => `${r.method} ${r.path} ${r.status}: ${e}`));
    expect(failures).toEqual([]);
  });

  it('never logs query text', () => {
    expect(gateway.logs()).toContain('"route":"/v1/search"');
    expect(gateway.logs()).not.toContain('Garten');
    expect(gateway.logs()).not.toContain('Kassenprüfung');
  });
});

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteKeyStore } from '../../services/access/key-store-sqlite.ts';
import { buildAdminApp } from '../../services/admin/app.ts';
import { CONTRACT_DOCS, makeDoc } from '../helpers/documents.ts';
import { getJson, postJson, startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { admitAllGuardForTests } from '../helpers/open-guard.ts';
import { redoclyProblems, spectralProblems } from '../helpers/openapi-lint.ts';
import { createResponseValidator } from '../helpers/openapi-validator.ts';
import { sampleFediverseFiles, startTestSearchWeb, type TestSearchWeb } from '../helpers/search-web.ts';

// Both OpenAPI documents, fetched from started servers, through the ecosystem's own linters
// (Redocly recommended-strict, Spectral oas) and against the servers' real answers.

let gateway: TestGateway;
let web: TestSearchWeb;
let gatewayDoc: any;
let webDoc: any;

const SAFE_BOUND = String(Number.MAX_SAFE_INTEGER);

beforeAll(async () => {
  gateway = await startTestGateway(CONTRACT_DOCS.map(makeDoc));
  web = await startTestSearchWeb({ webDocs: CONTRACT_DOCS.map(makeDoc), fediverseFiles: sampleFediverseFiles(), guard: admitAllGuardForTests() });
  gatewayDoc = (await getJson(`${gateway.url}/openapi.json`)).body;
  webDoc = (await getJson(`${web.url}/api/openapi.json`)).body;
});

afterAll(async () => {
  await gateway?.close();
  await web?.close();
});

function operations(doc: any): [string, string, any][] {
  return Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]): [string, string, any] => [path, method, op]),
  );
}

describe.each([
  ['gateway /openapi.json', () => gatewayDoc],
  ['web /api/openapi.json', () => webDoc],
])('%s', (_name, doc) => {
  it('passes Redocly recommended-strict with no problem at all', async () => {
    expect(await redoclyProblems(doc())).toEqual([]);
  });

  it('passes Spectral oas with no error and no warning', async () => {
    expect(await spectralProblems(doc())).toEqual([]);
  });

  it('names its licence and a contact', () => {
    expect(doc().info.license).toEqual({ name: 'MIT', identifier: 'MIT' });
    expect(doc().info.contact.url).toMatch(/^http/);
  });

  it('has an example body for every operation, request and response', () => {
    for (const [path, method, op] of operations(doc())) {
      expect(op.responses['200'].content['application/json'].example, `${method} ${path}`).toBeDefined();
      if (op.requestBody) expect(Object.keys(op.requestBody.content['application/json'].examples ?? {}).length, `${method} ${path}`).toBeGreaterThan(0);
      for (const [status, response] of Object.entries<any>(op.responses)) expect(response.content['application/json'].example, `${method} ${path} ${status}`).toBeDefined();
    }
  });

  it('publishes no bound that is only JavaScript\'s (±MAX_SAFE_INTEGER)', () => {
    expect(JSON.stringify(doc())).not.toContain(SAFE_BOUND);
  });
});

describe('gateway document', () => {
  it('shows no JavaScript-only bound on /docs either', async () => {
    const html = (await getJson(`${gateway.url}/docs`)).body as string;
    expect(html).toContain('default 10');
    expect(html).not.toContain(SAFE_BOUND);
  });

  it('gives limit and offset their defaults, as FastAPI does', () => {
    const { properties } = gatewayDoc.components.schemas.SearchParameters;
    expect(properties.limit).toMatchObject({ type: 'integer', minimum: 1, maximum: 50, default: 10 });
    expect(properties.offset).toMatchObject({ type: 'integer', minimum: 0, maximum: 10000, default: 0 });
  });

  it('bounds response integers honestly', () => {
    const { properties } = gatewayDoc.components.schemas.SearchResponse;
    expect(properties.total.minimum).toBe(0);
    expect(properties.limit).toMatchObject({ minimum: 1, maximum: 50 });
    expect(gatewayDoc.components.schemas.StatsResponse.properties.documents.minimum).toBe(0);
  });

  it('makes the key optional on every operation and defines the scheme', () => {
    expect(gatewayDoc.components.securitySchemes.ProjectReadKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const [path, method, op] of operations(gatewayDoc)) expect(op.security, `${method} ${path}`).toEqual([{}, { ProjectReadKey: [] }]);
  });

  it('lists in DocumentRecord exactly the fields a real record has', async () => {
    const description: string = gatewayDoc.components.schemas.DocumentRecord.description;
    const listed = /Fields: ([^;]+);/.exec(description)![1].split(', ');
    const hit = (await postJson(`${gateway.url}/v1/search`, { q: 'Haus' })).body.results[0];
    const record = (await getJson(`${gateway.url}/v1/documents/${encodeURIComponent(hit.document_id)}`)).body;
    expect(listed).toEqual(Object.keys(record));
    expect(description).toContain('requested_id');
    expect(description).not.toMatch(/\burls\b/);
  });

  it('has examples the real server accepts, and its answers match the documented schemas', async () => {
    const validate = createResponseValidator(gatewayDoc);
    for (const [name, example] of Object.entries<any>(gatewayDoc.paths['/v1/search'].post.requestBody.content['application/json'].examples)) {
      const answer = await postJson(`${gateway.url}/v1/search`, example.value);
      expect(answer.status, name).toBe(200);
      expect(validate('/v1/search', 'POST', 200, answer.body), name).toEqual([]);
    }
  });
});

describe('422 examples', () => {
  const example422 = (doc: any, path: string, method: string) => doc.paths[path][method].responses['422'].content['application/json'].example;

  it('are what the servers answer to those mistakes', async () => {
    expect((await postJson(`${gateway.url}/v1/search`, { q: 'Haus', limit: 500 })).body).toEqual(example422(gatewayDoc, '/v1/search', 'post'));
    expect((await getJson(`${gateway.url}/v1/documents/abc`)).body).toEqual(example422(gatewayDoc, '/v1/documents/{document_id}', 'get'));
    for (const [path, method, op] of operations(webDoc)) {
      if (!op.responses['422']) continue;
      const body = path === '/api/search' || path === '/api/fediverse/search' ? { q: 'Haus', offset: 5000 } : { offset: 5000 };
      expect((await postJson(`${web.url}${path}`, body)).body, path).toEqual(example422(webDoc, path, method));
    }
  });
});

describe('web document', () => {
  it('declares its operations public with security: [] and offset with its default', () => {
    for (const [path, method, op] of operations(webDoc)) expect(op.security, `${method} ${path}`).toEqual([]);
    expect(webDoc.components.schemas.WebSearchRequest.properties.offset).toMatchObject({ default: 0, maximum: 1000 });
  });

  it('has examples the real server accepts', async () => {
    const validate = createResponseValidator(webDoc);
    for (const [path, method, op] of operations(webDoc)) {
      if (method !== 'post') continue;
      for (const [name, example] of Object.entries<any>(op.requestBody.content['application/json'].examples)) {
        const answer = await postJson(`${web.url}${path}`, example.value);
        expect(answer.status, `${path} ${name}`).toBe(200);
        expect(validate(path, 'POST', 200, answer.body), `${path} ${name}`).toEqual([]);
      }
    }
  });
});

describe('a wrong method on a known path', () => {
  let admin: FastifyInstance;
  let adminUrl: string;
  let store: SqliteKeyStore;

  beforeAll(async () => {
    store = new SqliteKeyStore({ file: join(mkdtempSync(join(tmpdir(), 'fundus-405-')), 'keys.sqlite') });
    admin = await buildAdminApp({ keyStore: store, adminToken: 'panel-admin-token-0123456789', logLevel: 'silent' });
    adminUrl = await admin.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await admin?.close();
    await store?.close();
  });

  it.each([
    ['gateway', 'GET', '/v1/search', 'POST'],
    ['gateway', 'DELETE', '/v1/stats', 'GET, HEAD'],
    ['gateway', 'POST', '/v1/documents/urn:uuid:00000000-0000-0000-0000-000000000000', 'GET, HEAD'],
    ['gateway', 'PUT', '/openapi.json', 'GET, HEAD'],
    ['web', 'GET', '/api/search', 'POST'],
    ['web', 'POST', '/api/options', 'GET, HEAD'],
    ['web', 'DELETE', '/', 'GET, HEAD'],
    ['admin', 'GET', '/login', 'POST'],
    ['admin', 'DELETE', '/healthz', 'GET, HEAD'],
  ])('%s: %s %s answers 405 with Allow: %s (as FastAPI)', async (app, method, path, allow) => {
    const base = app === 'gateway' ? gateway.url : app === 'web' ? web.url : adminUrl;
    const response = await fetch(`${base}${path}`, { method, headers: method === 'GET' || method === 'DELETE' ? {} : { 'content-type': 'application/json' }, body: method === 'GET' || method === 'DELETE' ? undefined : '{}' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe(allow);
    expect(await response.json()).toEqual({ detail: 'Method not allowed', code: 'METHOD_NOT_ALLOWED' });
  });

  it.each([
    ['gateway', '/v1/nothing'],
    ['web', '/api/nothing'],
    ['admin', '/nothing'],
  ])('%s: an unknown path stays 404', async (app, path) => {
    const base = app === 'gateway' ? gateway.url : app === 'web' ? web.url : adminUrl;
    expect((await fetch(`${base}${path}`, { method: 'DELETE' })).status).toBe(404);
  });
});

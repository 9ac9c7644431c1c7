import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAccessGuard } from '../../services/access/access-guard.ts';
import { createMemoryBudgets } from '../../services/access/budgets.ts';
import type { RequestGuard } from '../../services/access/guard.ts';
import type { KeyStore } from '../../services/access/key-store.ts';
import { openSqliteKeyStore } from '../../services/access/key-store-sqlite.ts';
import { silentLog } from '../../services/access/log.ts';
import { createPublicGuard } from '../../services/access/public-guard.ts';
import { createHttpApp, guardRoutes } from '../../services/http/app-base.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

// Access control of the gateway through real HTTP (spec sections 5, 7, 8; DESIGN.md section 5):
// key (401) -> origin (403) -> budget (429) -> validation (422), with the real guard, a real
// SQLite key store and in-process budgets.

const ADMIN_TOKEN = 'admin-token-for-tests-0123456789';
const ALLOWED = 'https://app.example.org';
const EVIL = 'https://evil.example.net';
const VALID_SEARCH = JSON.stringify({ q: 'Rathaus' });

let dataDir: string;
let keyStore: KeyStore;
let gateway: TestGateway;

beforeEach(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'fundus-access-'));
  keyStore = openSqliteKeyStore(dataDir);
  const guard = createAccessGuard({
    config: { access: { allowedOrigins: [ALLOWED], anonymousLimit: { points: 1, durationSeconds: 1 } }, admin: { token: ADMIN_TOKEN } },
    keyStore,
    budgets: createMemoryBudgets(),
    log: silentLog,
  });
  gateway = await startTestGateway([], { guard });
});

afterEach(async () => {
  await gateway.close();
  await keyStore.close();
  rmSync(dataDir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

async function call(path: string, options: { method?: string; key?: string; authorization?: string; origin?: string; body?: string; headers?: Record<string, string> } = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  if (options.authorization !== undefined) headers.authorization = options.authorization;
  if (options.origin) headers.origin = options.origin;
  if (options.body !== undefined) headers['content-type'] ??= 'application/json';
  const response = await fetch(`${gateway.url}${path}`, { method: options.method ?? (options.body !== undefined ? 'POST' : 'GET'), headers, body: options.body });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // HTML or empty
  }
  return { status: response.status, headers: response.headers, body };
}

const search = (options: Parameters<typeof call>[1] = {}) => call('/v1/search', { body: VALID_SEARCH, ...options });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function expectRetryAfter(answer: Answer): number {
  expect(answer.status).toBe(429);
  const header = answer.headers.get('retry-after');
  expect(header).toMatch(/^\d+$/);
  const seconds = Number(header);
  expect(seconds).toBeGreaterThanOrEqual(1);
  expect(answer.body).toEqual({ detail: expect.any(String), code: 'RATE_LIMITED', retry_after: seconds });
  return seconds;
}

function expect401(answer: Answer): void {
  expect(answer.status).toBe(401);
  expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
  expect(answer.body).toEqual({ detail: expect.any(String), code: 'KEY_INVALID' });
}

describe('anonymous budget', () => {
  it('admits one call per second for all anonymous callers and endpoints together, with an honest Retry-After', async () => {
    expect((await call('/v1/stats')).status).toBe(200);
    const refused = await search();
    const seconds = expectRetryAfter(refused);
    expect((await call('/v1/sources')).status).toBe(429);
    await sleep(seconds * 1000);
    expect((await search()).status).toBe(200);
  });

  it('lets malformed calls consume the budget: validation comes after it (spec 7 rule 2)', async () => {
    const malformed = await call('/v1/search', { body: '{"q": ""}' });
    expect(malformed.status).toBe(422);
    expectRetryAfter(await search());
    expectRetryAfter(await call('/v1/search', { body: 'not json' }));
    expectRetryAfter(await call('/v1/documents/not-a-urn'));
  });

  it('lets a 404 consume the budget too', async () => {
    expect((await call('/v1/documents/urn:uuid:7e4b8c1a-0000-5000-8000-000000000000')).status).toBe(404);
    expectRetryAfter(await call('/v1/stats'));
  });

  it('charges nothing for /openapi.json and /docs (spec 8 rule 2)', async () => {
    expect((await call('/v1/stats')).status).toBe(200);
    for (let i = 0; i < 5; i += 1) {
      expect((await call('/openapi.json')).status).toBe(200);
      expect((await call('/docs')).status).toBe(200);
    }
    expect((await call('/v1/stats')).status).toBe(429);
  });

  it('charges nothing before the budget check: refused keys and origins leave the anonymous second alone', async () => {
    expect401(await search({ key: 'fk_' + 'x'.repeat(43) }));
    expect((await search({ origin: EVIL })).status).toBe(403);
    expect((await search()).status).toBe(200);
  });
});

describe('project keys', () => {
  it('gives a keyed caller its own limit, apart from the anonymous budget and from other keys', async () => {
    const { key } = await keyStore.create({ name: 'three per second', limit: '3/s' });
    const { key: other } = await keyStore.create({ name: 'other', limit: '1/s' });
    expect((await search()).status).toBe(200);
    expect((await search()).status).toBe(429);
    const keyed = [await search({ key }), await search({ key }), await search({ key })];
    expect(keyed.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(keyed.map((a) => a.headers.get('ratelimit-remaining'))).toEqual(['2', '1', '0']);
    expect(keyed[0].headers.get('ratelimit-limit')).toBe('3');
    const seconds = expectRetryAfter(await search({ key }));
    expect((await search({ key: other })).status).toBe(200);
    await sleep(seconds * 1000);
    expect((await search({ key })).status).toBe(200);
  });

  it('uses a changed limit at once', async () => {
    const { key, record } = await keyStore.create({ name: 'grows', limit: '1/min' });
    expect((await search({ key })).status).toBe(200);
    expect(expectRetryAfter(await search({ key }))).toBeGreaterThan(50);
    await keyStore.setLimit(record.id, '5/s');
    expect((await search({ key })).status).toBe(200);
  });

  it('lets an unlimited key through without counting', async () => {
    const { key } = await keyStore.create({ name: 'benchmark', limit: 'unlimited' });
    const statuses = await Promise.all(Array.from({ length: 30 }, () => search({ key }).then((a) => a.status)));
    expect(new Set(statuses)).toEqual(new Set([200]));
  });

  it('answers 401 with WWW-Authenticate for unknown, malformed and wrongly sent keys, never falling back to anonymous', async () => {
    const { key } = await keyStore.create({ name: 'real', limit: '10/s' });
    const wrongSecret = key.slice(0, -3) + (key.endsWith('AAA') ? 'BBB' : 'AAA');
    const attempts = [
      { key: 'fk_' + 'Q'.repeat(43) },
      { key: wrongSecret },
      { key: key.slice(0, 20) },
      { key: 'hello' },
      { authorization: `Basic ${Buffer.from('user:pass').toString('base64')}` },
      { authorization: 'Bearer' },
      { authorization: 'Bearer ' },
      { authorization: '' },
      { authorization: key },
    ];
    for (const attempt of attempts) {
      for (const path of ['/v1/search', '/v1/stats', '/v1/sources', '/v1/documents/x', '/openapi.json']) {
        const answer = path === '/v1/search' ? await search(attempt) : await call(path, attempt);
        expect401(answer);
      }
    }
    expect((await search()).status).toBe(200);
  });

  it('refuses a revoked key at once, also when revoked by another process (the CLI)', async () => {
    const { key, record } = await keyStore.create({ name: 'short-lived', limit: '10/s' });
    expect((await search({ key })).status).toBe(200);
    const cli = openSqliteKeyStore(dataDir);
    await cli.revoke(record.id);
    await cli.close();
    expect401(await search({ key }));
  });

  it('checks a key again on every request of one keep-alive connection: revocation, a new limit, another key, a wrong secret', async () => {
    // One socket for every request (a keep-alive client, or a proxy's pooled connection carrying many clients).
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const reused: boolean[] = [];
    const onOne = (key: string) =>
      new Promise<Answer>((resolve, reject) => {
        const request = http.request(`${gateway.url}/v1/search`, { agent, method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' } }, (response) => {
          let text = '';
          response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
          response.on('end', () => resolve({ status: response.statusCode!, headers: new Headers(response.headers as Record<string, string>), body: JSON.parse(text) }));
        });
        request.on('socket', () => reused.push(request.reusedSocket));
        request.on('error', reject);
        request.end(VALID_SEARCH);
      });
    try {
      const { key, record } = await keyStore.create({ name: 'pooled', limit: '2/min' });
      const { key: other } = await keyStore.create({ name: 'pooled other', limit: '1/min' });
      const wrongSecret = key.slice(0, -3) + (key.endsWith('AAA') ? 'BBB' : 'AAA');
      expect((await onOne(key)).status).toBe(200);
      expect401(await onOne(wrongSecret));
      expect((await onOne(key)).headers.get('ratelimit-remaining')).toBe('0');
      expectRetryAfter(await onOne(key));
      expect((await onOne(other)).status).toBe(200); // its own budget, not the first key's
      expectRetryAfter(await onOne(other));
      const cli = openSqliteKeyStore(dataDir);
      await cli.setLimit(record.id, '10/s');
      expect((await onOne(key)).headers.get('ratelimit-limit')).toBe('10');
      await cli.revoke(record.id);
      await cli.close();
      expect401(await onOne(key));
      expect401(await onOne(key));
      expect(reused.slice(1).every(Boolean)).toBe(true);
    } finally {
      agent.destroy();
    }
  });

  it('never accepts the admin token as a read key', async () => {
    expect401(await search({ key: ADMIN_TOKEN }));
    expect401(await call('/v1/stats', { key: ADMIN_TOKEN }));
  });

  it('records the day of last use, not more', async () => {
    const { key, record } = await keyStore.create({ name: 'used', limit: '10/s' });
    await search({ key });
    // The day is written after the answer, off the request's path: wait for it, a bounded number of times.
    let listed = await keyStore.find(record.id);
    for (let i = 0; i < 200 && !listed?.lastUsedDay; i++) {
      await sleep(50);
      listed = await keyStore.find(record.id);
    }
    expect(listed?.lastUsedDay).toBe(new Date().toISOString().slice(0, 10));
  });
});

describe('browser origins', () => {
  it('refuses a disallowed Origin with 403 and no CORS headers', async () => {
    const answer = await search({ origin: EVIL });
    expect(answer.status).toBe(403);
    expect(answer.body).toEqual({ detail: expect.any(String), code: 'ORIGIN_FORBIDDEN' });
    expect(answer.headers.get('access-control-allow-origin')).toBeNull();
    for (const origin of ['null', 'https://app.example.org.evil.example', 'http://app.example.org', 'https://app.example.org:8443']) {
      expect((await call('/v1/stats', { origin })).status).toBe(403);
    }
  });

  it('answers an allowed origin with its own CORS headers, never *', async () => {
    const answer = await search({ origin: ALLOWED });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(answer.headers.get('vary')).toMatch(/Origin/);
    expect(answer.headers.get('access-control-expose-headers')).toMatch(/Retry-After/);
    const refused = await search({ origin: ALLOWED });
    expectRetryAfter(refused);
    expect(refused.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    const unauthorised = await search({ origin: ALLOWED, key: 'fk_bad' });
    expect401(unauthorised);
    expect(unauthorised.headers.get('access-control-allow-origin')).toBe(ALLOWED);
  });

  it('answers preflights for allowed origins only, and charges nothing for them', async () => {
    const preflight = await call('/v1/search', {
      method: 'OPTIONS',
      origin: ALLOWED,
      headers: { 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(preflight.headers.get('access-control-allow-methods')).toMatch(/POST/);
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/Authorization/i);
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/Content-Type/i);
    expect(preflight.headers.get('access-control-allow-origin')).not.toBe('*');
    const refused = await call('/v1/search', { method: 'OPTIONS', origin: EVIL, headers: { 'access-control-request-method': 'POST' } });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
    expect((await search({ origin: ALLOWED })).status).toBe(200);
  });

  it('lets calls without Origin and same-origin calls through without CORS headers', async () => {
    const { key } = await keyStore.create({ name: 'server side', limit: '10/s' });
    const noOrigin = await search({ key });
    expect(noOrigin.status).toBe(200);
    expect(noOrigin.headers.get('access-control-allow-origin')).toBeNull();
    const sameOrigin = await search({ key, origin: gateway.url });
    expect(sameOrigin.status).toBe(200);
    expect(sameOrigin.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('never sends a blanket *', async () => {
    const answers = [await search({ origin: ALLOWED }), await call('/openapi.json', { origin: ALLOWED }), await search(), await search({ origin: EVIL })];
    for (const answer of answers) expect(answer.headers.get('access-control-allow-origin')).not.toBe('*');
  });
});

describe('order of checks: key -> origin -> budget -> validation', () => {
  it('answers 401 before 403', async () => {
    expect401(await search({ key: 'fk_' + 'Q'.repeat(43), origin: EVIL }));
    expect401(await call('/v1/search', { key: 'nonsense', origin: EVIL, body: '{' }));
  });

  it('answers 403 for a good key from a bad origin, even over budget', async () => {
    const { key } = await keyStore.create({ name: 'good', limit: '1/min' });
    expect((await search({ key, origin: EVIL })).status).toBe(403);
    expect((await search({ key })).status).toBe(200);
    expect((await search({ key, origin: EVIL })).status).toBe(403);
    expectRetryAfter(await search({ key }));
  });

  it('answers 401 and 403 before 429 when the anonymous budget is spent', async () => {
    expect((await search()).status).toBe(200);
    expect401(await search({ key: 'fk_' + 'Q'.repeat(43) }));
    expect((await search({ origin: EVIL })).status).toBe(403);
    expectRetryAfter(await search());
  });

  it('answers 429 before 422', async () => {
    expect((await search()).status).toBe(200);
    expectRetryAfter(await call('/v1/search', { body: '{"q": 5}' }));
    expectRetryAfter(await call('/v1/documents/bad-id'));
  });
});

describe('readiness', () => {
  it('reports the access stores in /readyz without charging the budget', async () => {
    const first = await call('/readyz');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ access: true });
    expect((await search()).status).toBe(200);
  });
});

describe('public guard (search front end)', () => {
  let app: Awaited<ReturnType<typeof createHttpApp>>;
  let url: string;
  let guard: RequestGuard;

  beforeEach(async () => {
    guard = createPublicGuard({ config: { access: { allowedOrigins: [ALLOWED], publicLimit: { points: 3, durationSeconds: 60 } } }, budgets: createMemoryBudgets() });
    app = createHttpApp({ logLevel: 'silent' });
    guardRoutes(app, guard, new Set(['/api/options']));
    app.post('/api/search', async () => ({ results: [] }));
    app.get('/api/options', async () => ({ sources: [] }));
    url = await app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterEach(async () => {
    await app.close();
  });

  it('shares one global budget among all callers, ignores bearer headers, and checks origins', async () => {
    const post = (headers: Record<string, string> = {}) =>
      fetch(`${url}/api/search`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{"q":"x"}' });
    expect((await post()).status).toBe(200);
    expect((await post({ authorization: 'Bearer whatever' })).status).toBe(200);
    expect((await post({ origin: EVIL })).status).toBe(403);
    const allowed = await post({ origin: ALLOWED });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    const refused = await post();
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(50);
    expect((await fetch(`${url}/api/options`)).status).toBe(200);
  });
});

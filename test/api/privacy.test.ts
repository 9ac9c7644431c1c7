import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Access, createAccess } from '../../services/access/access-guard.ts';
import type { AccessLog } from '../../services/access/log.ts';
import { buildAdminApp } from '../../services/admin/app.ts';
import { loadConfig } from '../../services/cli/config.ts';
import { buildGatewayApp } from '../../services/gateway/app.ts';
import { SqliteIndex } from '../../services/index/sqlite/sqlite-index.ts';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.ts';

// Privacy (spec 1 and 8 rule 1, issue 4): no component logs query text, request bodies or client
// IPs, and no counter stores them. A unique marker travels in q, in other body fields, in headers,
// in URL paths and query strings, through every endpoint reachable here (gateway REST, the admin
// panel; MCP joins when it is mounted). Clients connect from 127.0.0.7, an address nothing else
// uses, so that any stored client IP would be found. Logging runs at trace level, the most verbose.

const CLIENT_IP = '127.0.0.7';
const ADMIN_TOKEN = `privacy-admin-${randomUUID()}`;

interface Sent {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

function send(url: string, options: { method?: string; path: string; headers?: Record<string, string>; body?: string }): Promise<Sent> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: target.hostname, port: target.port, localAddress: CLIENT_IP, method: options.method ?? 'GET', path: options.path, headers: options.headers },
      (res) => {
        let body = '';
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
      },
    );
    req.on('error', reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

function capture(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk) => (text += chunk.toString()));
  return { stream, text: () => text };
}

function jsonLog(stream: NodeJS.WritableStream): AccessLog {
  const write = (level: string) => (object: object, message: string) => stream.write(`${JSON.stringify({ level, ...object, msg: message })}\n`);
  return { info: write('info'), warn: write('warn'), error: write('error') };
}

async function redisDump(url: string): Promise<string> {
  const client = new Redis(url);
  const parts: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await client.scan(cursor, 'COUNT', 1000);
    cursor = next;
    for (const key of keys) {
      const type = await client.type(key);
      let value: unknown;
      if (type === 'string') value = await client.get(key);
      else if (type === 'hash') value = await client.hgetall(key);
      else if (type === 'set') value = await client.smembers(key);
      else if (type === 'list') value = await client.lrange(key, 0, -1);
      else if (type === 'zset') value = await client.zrange(key, '0', '-1', 'WITHSCORES');
      else value = `(${type})`;
      parts.push(`${key} ${JSON.stringify(value)}`);
    }
  } while (cursor !== '0');
  client.disconnect();
  return parts.join('\n');
}

describe.each(['redis', 'sqlite'] as const)('privacy with the %s access stores', (backend) => {
  const marker = `mrk${randomUUID().replace(/-/g, '')}`;
  let redis: RedisServer | undefined;
  let dataDir: string;
  let access: Access;
  let gateway: FastifyInstance;
  let admin: FastifyInstance;
  let index: SqliteIndex;
  let gatewayUrl: string;
  let adminUrl: string;
  const logs = capture();
  const createdKeys: string[] = [];

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'fundus-privacy-'));
    if (backend === 'redis') redis = await startRedisServer();
    const env: NodeJS.ProcessEnv = { FUNDUS_ADMIN_TOKEN: ADMIN_TOKEN, FUNDUS_ALLOWED_ORIGINS: 'https://app.example.org' };
    if (redis) Object.assign(env, { REDIS_URL: redis.url, FUNDUS_KEY_PEPPER_FILE: join(dataDir, 'key-pepper') });
    const config = loadConfig({ data: dataDir }, env);
    access = await createAccess(config, jsonLog(logs.stream));
    index = new SqliteIndex({ file: join(dataDir, 'index.sqlite') });
    gateway = await buildGatewayApp({ index, guard: access.guard, countBudgetMs: 100, externalUrl: 'http://127.0.0.1:8082', logLevel: 'trace', logStream: logs.stream });
    gatewayUrl = await gateway.listen({ host: '127.0.0.1', port: 0 });
    admin = await buildAdminApp({ keyStore: access.keyStore, adminToken: ADMIN_TOKEN, logLevel: 'trace', logStream: logs.stream });
    adminUrl = await admin.listen({ host: '127.0.0.1', port: 0 });
  });

  afterAll(async () => {
    await gateway?.close();
    await admin?.close();
    await access?.close();
    await index?.close();
    await redis?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('sends the marker through every gateway endpoint', async () => {
    const { key } = await access.keyStore.create({ name: 'privacy probe', limit: '1000/s' });
    createdKeys.push(key);
    const headers = {
      'x-marker': marker,
      'user-agent': `agent-${marker}`,
      referer: `https://${marker}.example/page?q=${marker}`,
      cookie: `session=${marker}`,
      'x-forwarded-for': `203.0.113.9, ${marker}`,
      'x-real-ip': marker,
      forwarded: `for=${marker}`,
    };
    const json = { ...headers, 'content-type': 'application/json' };
    const keyed = { ...json, authorization: `Bearer ${key}` };
    const bodies = [
      JSON.stringify({ q: marker }),
      JSON.stringify({ q: `Rathaus ${marker}`, source: `${marker}.example`, topic: marker.slice(0, 30), limit: 5 }),
      JSON.stringify({ q: marker, limit: 500 }),
      JSON.stringify({ q: 5, [marker]: marker }),
      `{"q": "${marker}"`,
      marker,
    ];
    const statuses = new Set<number>();
    for (const body of bodies) {
      for (const h of [json, keyed, { ...json, authorization: `Bearer ${marker}` }, { ...json, origin: `https://${marker}.example` }, { ...json, origin: 'https://app.example.org' }]) {
        statuses.add((await send(gatewayUrl, { method: 'POST', path: `/v1/search?q=${marker}`, headers: h, body })).status);
      }
      statuses.add((await send(gatewayUrl, { method: 'POST', path: '/v1/search', headers: { ...keyed, 'content-type': 'text/plain' }, body })).status);
    }
    const paths = [
      `/v1/documents/${marker}`,
      `/v1/documents/urn:uuid:${randomUUID()}?marker=${marker}`,
      `/v1/sources?q=${marker}`,
      `/v1/stats?${marker}=1`,
      `/v1/${marker}`,
      `/${marker}`,
      `/openapi.json?q=${marker}`,
      `/docs?q=${marker}`,
      `/readyz?q=${marker}`,
    ];
    for (const path of paths) {
      for (const h of [headers, { ...headers, authorization: `Bearer ${key}` }, { ...headers, authorization: `Bearer fk_${marker}${marker}`.slice(0, 53) }]) {
        statuses.add((await send(gatewayUrl, { path, headers: h })).status);
      }
    }
    statuses.add(
      (await send(gatewayUrl, { method: 'OPTIONS', path: `/v1/search?q=${marker}`, headers: { ...headers, origin: 'https://app.example.org', 'access-control-request-method': 'POST', 'access-control-request-headers': marker } })).status,
    );
    statuses.add((await send(gatewayUrl, { method: 'DELETE', path: `/v1/search/${marker}`, headers })).status);
    // The probe reached success, validation, not-found, 401, 403 and 429 paths.
    for (const status of [200, 204, 401, 403, 404, 422, 429]) expect(statuses).toContain(status);
  });

  it('sends the marker through the admin panel', async () => {
    const headers = { 'x-marker': marker, 'user-agent': marker, 'x-forwarded-for': marker, 'content-type': 'application/x-www-form-urlencoded' };
    const loginPage = await send(adminUrl, { path: `/?q=${marker}`, headers });
    const loginCookie = String(loginPage.headers['set-cookie']?.[0] ?? '').split(';')[0];
    const loginCsrf = /name="csrf" value="([^"]+)"/.exec(loginPage.body)?.[1] ?? '';
    await send(adminUrl, { method: 'POST', path: '/login', headers: { ...headers, cookie: loginCookie }, body: new URLSearchParams({ csrf: loginCsrf, token: marker }).toString() });
    await send(adminUrl, { method: 'POST', path: `/login?${marker}`, headers, body: `token=${marker}&csrf=${marker}` });
    const signedIn = await send(adminUrl, { method: 'POST', path: '/login', headers: { ...headers, cookie: loginCookie }, body: new URLSearchParams({ csrf: loginCsrf, token: ADMIN_TOKEN }).toString() });
    const session = String(signedIn.headers['set-cookie']?.[0] ?? '').split(';')[0];
    expect(session).toMatch(/^fundus_admin_session=/);
    const panel = await send(adminUrl, { path: '/', headers: { ...headers, cookie: session } });
    const csrf = /name="csrf" value="([^"]+)"/.exec(panel.body)?.[1] ?? '';
    const created = await send(adminUrl, { method: 'POST', path: '/keys', headers: { ...headers, cookie: session }, body: new URLSearchParams({ csrf, name: 'admin privacy probe', limit: '5/s' }).toString() });
    const key = /id="new-key-value" class="secret">([^<]+)</.exec(created.body)?.[1];
    expect(key).toMatch(/^fk_/);
    createdKeys.push(key!);
    await send(adminUrl, { method: 'POST', path: '/keys', headers: { ...headers, cookie: session }, body: new URLSearchParams({ csrf, name: 'x', limit: marker }).toString() });
    await send(adminUrl, { method: 'POST', path: '/keys/limit', headers: { ...headers, cookie: session }, body: new URLSearchParams({ csrf, id: marker, limit: marker }).toString() });
    await send(adminUrl, { method: 'POST', path: '/keys/revoke', headers: { ...headers, cookie: session }, body: new URLSearchParams({ csrf, id: marker }).toString() });
    await send(adminUrl, { method: 'POST', path: '/keys/revoke', headers: { ...headers, cookie: `fundus_admin_session=${marker}` }, body: `csrf=${marker}` });
    await send(adminUrl, { path: `/${marker}`, headers });
    expect((await send(gatewayUrl, { path: '/v1/stats', headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
  });

  it('finds the marker, the client IP, the keys and the admin token in no log line', async () => {
    await new Promise((resolve) => setTimeout(resolve, 100)); // let pino flush
    const lines = logs.text().split('\n').filter(Boolean);
    expect(lines.length).toBeGreaterThan(50); // the logs were really captured
    const secrets = [marker, CLIENT_IP, ADMIN_TOKEN, ...createdKeys];
    for (const line of lines) for (const secret of secrets) expect(line).not.toContain(secret);
    for (const line of lines) {
      const entry = JSON.parse(line);
      for (const field of ['remoteAddress', 'remotePort', 'ip', 'ips', 'url', 'headers', 'body', 'query', 'q']) expect(entry).not.toHaveProperty(field);
    }
  });

  it('stores neither the marker nor the client IP nor a key', async () => {
    const secrets = [marker, CLIENT_IP, ...createdKeys.map((key) => key.slice(11))];
    if (redis) {
      const dump = await redisDump(redis.url);
      expect(dump).toContain('fundus:rl:'); // the counters are there, and only they and the key records
      for (const secret of secrets) expect(dump).not.toContain(secret);
    }
    for (const file of readdirSync(dataDir)) {
      const bytes = readFileSync(join(dataDir, file));
      for (const secret of secrets) expect(bytes.includes(Buffer.from(secret)), `${file} holds ${secret}`).toBe(false);
    }
  });
});

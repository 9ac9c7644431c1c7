import { rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { dirname } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteKeyStore } from '../../services/access/key-store-sqlite.ts';
import { loadConfig } from '../../services/cli/config.ts';
import { type RunningServices, startServices } from '../../services/cli/serve-command.ts';
import { SqliteIndex } from '../../services/index/sqlite/sqlite-index.ts';
import { fediverseIndexFile } from '../../services/ingest/fediverse/paths.ts';
import { CONTRACT_DOCS, makeDoc } from '../helpers/documents.ts';
import { connectClient, createIndexFile } from '../helpers/mcp-gateway.ts';

// Issue 19, the HTTP half: each attack of the audit reproduced against `fundus serve`'s own wiring
// (startServices with a configuration read from settings): JSON-RPC batches on /mcp, DNS rebinding,
// a flood of made-up keys, 30,000-deep arrays in a 422, invalid UTF-8, admin cookies behind HTTPS.

const ADMIN_TOKEN = 'hardening-admin-token-0123456789';

let dataDir: string;
let services: RunningServices;
let gateway: URL;
let web: URL;
let admin: URL;

beforeAll(async () => {
  dataDir = dirname(await createIndexFile(CONTRACT_DOCS.map(makeDoc)));
  await new SqliteIndex({ file: fediverseIndexFile(dataDir) }).close();
  const config = loadConfig(
    { data: dataDir, port: '0' },
    {
      FUNDUS_WEB_PORT: '0',
      FUNDUS_ADMIN_PORT: '0',
      FUNDUS_SEARCH_WORKERS: '0',
      FUNDUS_ANONYMOUS_LIMIT: '1000/s',
      FUNDUS_PUBLIC_LIMIT: '1000/min',
      FUNDUS_INVALID_KEY_LIMIT: '5/min',
      FUNDUS_EXTERNAL_URL: 'https://search.example.org',
      FUNDUS_ADMIN_EXTERNAL_URL: 'https://admin.example.org',
      FUNDUS_ALLOWED_HOSTS: 'intranet.example',
      FUNDUS_ADMIN_TOKEN: ADMIN_TOKEN,
      FUNDUS_LOG_LEVEL: 'warn',
    },
  );
  services = await startServices(config, new PassThrough().resume());
  gateway = new URL(services.urls.gateway);
  web = new URL(services.urls.web);
  admin = new URL(services.urls.admin);
});

afterAll(async () => {
  await services?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** One HTTP request with headers fetch would not let us set (Host), or a body of raw bytes. */
function raw(base: URL, path: string, options: { method?: string; headers?: Record<string, string>; body?: Buffer | string } = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: base.hostname, port: base.port, path, method: options.method ?? (options.body ? 'POST' : 'GET'), headers: options.headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

function searchCall(id: number) {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'search_index', arguments: { query: 'Haus' } } };
}

describe('JSON-RPC batches on /mcp', () => {
  it('refuses an anonymous batch of 100 search_index calls with one JSON-RPC error, not 100 results', async () => {
    const batch = JSON.stringify(Array.from({ length: 100 }, (_, i) => searchCall(i + 1)));
    for (const body of [batch, `  \n${batch}`, `\uFEFF${batch}`]) {
      const answer = await raw(gateway, '/mcp', { headers: MCP_HEADERS, body });
      expect(answer.status).toBe(400);
      const parsed = JSON.parse(answer.text);
      expect(parsed).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringMatching(/batch requests are not supported/) } });
      expect(answer.text).not.toContain('"result"');
    }
  });

  it('answers a body over the size limit with a JSON-RPC error and status 413', async () => {
    const answer = await raw(gateway, '/mcp', { headers: MCP_HEADERS, body: JSON.stringify({ ...searchCall(1), pad: 'x'.repeat(70_000) }) });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.text)).toMatchObject({ jsonrpc: '2.0', id: null, error: { data: { code: 'BODY_TOO_LARGE', status: 413 } } });
  });

  it('still serves one message per request, through the SDK client', async () => {
    const { client } = await connectClient(new URL('/mcp', gateway));
    const result = await client.callTool({ name: 'search_index', arguments: { query: 'Haus' } });
    expect(result.isError).toBeFalsy();
    await client.close();
  });
});

describe('DNS rebinding: the Host header must name this service', () => {
  it('refuses a foreign host name on every role, with or without a matching Origin', async () => {
    const evil = (base: URL) => `rebind.evil.example:${base.port}`;
    const stats = await raw(gateway, '/v1/stats', { headers: { host: evil(gateway) } });
    expect(stats.status).toBe(403);
    expect(JSON.parse(stats.text)).toMatchObject({ code: 'HOST_FORBIDDEN' });
    // The rebinding page calls "same-origin": Origin equals Host. That proves nothing.
    const sameOrigin = await raw(gateway, '/v1/search', {
      headers: { host: evil(gateway), origin: `http://${evil(gateway)}`, 'content-type': 'application/json' },
      body: JSON.stringify({ q: 'Haus' }),
    });
    expect(sameOrigin.status).toBe(403);
    const mcp = await raw(gateway, '/mcp', { headers: { ...MCP_HEADERS, host: evil(gateway), origin: `http://${evil(gateway)}` }, body: JSON.stringify(searchCall(1)) });
    expect(mcp.status).toBe(403);
    expect(JSON.parse(mcp.text)).toMatchObject({ jsonrpc: '2.0', error: { code: -32003, data: { code: 'HOST_FORBIDDEN' } } });
    expect((await raw(web, '/api/options', { headers: { host: evil(web) } })).status).toBe(403);
    expect((await raw(web, '/', { headers: { host: evil(web) } })).status).toBe(403);
    expect((await raw(admin, '/', { headers: { host: evil(admin) } })).status).toBe(403);
  });

  it('serves loopback names, IP literals, the external URLs\' hosts and FUNDUS_ALLOWED_HOSTS', async () => {
    const port = gateway.port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, 'search.example.org', `intranet.example:${port}`, 'LOCALHOST.']) {
      expect((await raw(gateway, '/v1/stats', { headers: { host } })).status, host).toBe(200);
    }
    // Same-origin calls of the service's own pages still pass without CORS configuration.
    const own = await raw(gateway, '/v1/stats', { headers: { host: `localhost:${port}`, origin: `http://localhost:${port}` } });
    expect(own.status).toBe(200);
    expect((await raw(admin, '/', { headers: { host: 'admin.example.org' } })).status).toBe(200);
  });

  it('answers probes under any Host, as an orchestrator or proxy dials a replica by container name', async () => {
    for (const base of [gateway, web, admin]) expect((await raw(base, '/readyz', { headers: { host: 'fundus-gateway-1:8082' } })).status).toBe(200);
  });
});

describe('made-up keys', () => {
  it('answers 401 until the invalid-key budget is spent, then 429 with Retry-After; valid keys and anonymous calls go on', async () => {
    const store = openSqliteKeyStore(dataDir);
    const { key } = await store.create({ name: 'steady client', limit: '100/s' });
    await store.close();
    const statuses: number[] = [];
    let last: Response | null = null;
    for (let i = 0; i < 8; i += 1) {
      last = await fetch(new URL('/v1/stats', gateway), { headers: { authorization: `Bearer fk_${String(i).padStart(43, 'x')}` } });
      statuses.push(last.status);
      if (last.status === 401) expect(last.headers.get('www-authenticate')).toMatch(/^Bearer/);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(last!.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect((await fetch(new URL('/v1/stats', gateway), { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
    expect((await fetch(new URL('/v1/stats', gateway))).status).toBe(200);
  });
});

/** How deep arrays and objects nest in `value` (iteratively: the value may be deep). */
function depthOf(value: unknown): number {
  let deepest = 0;
  const work: [unknown, number][] = [[value, 0]];
  while (work.length) {
    const [item, depth] = work.pop()!;
    deepest = Math.max(deepest, depth);
    if (item && typeof item === 'object') for (const child of Object.values(item)) work.push([child, depth + 1]);
  }
  return deepest;
}

describe('hostile JSON bodies', () => {
  const deep = '['.repeat(30_000) + ']'.repeat(30_000);

  it('answers 30,000-deep arrays with a 422 whose echo is bounded, on REST and the public API', async () => {
    for (const [base, path, body] of [
      [gateway, '/v1/search', `{"q":${deep}}`],
      [gateway, '/v1/search', `{"x":${deep}}`],
      [web, '/api/search', `{"q":${deep}}`],
    ] as const) {
      const answer = await raw(base, path, { headers: { 'content-type': 'application/json' }, body });
      expect(answer.status, `${path} ${body.slice(0, 5)}`).toBe(422);
      const { detail } = JSON.parse(answer.text);
      expect(detail.length).toBeGreaterThan(0);
      for (const issue of detail) expect(depthOf(issue.input)).toBeLessThanOrEqual(4);
      expect(answer.text.length).toBeLessThan(5000);
    }
  });

  it('answers 30,000-deep tool arguments on /mcp with an invalid-arguments tool error', async () => {
    const body = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"search_index","arguments":{"query":${deep}}}}`;
    const answer = await raw(gateway, '/mcp', { headers: MCP_HEADERS, body });
    expect(answer.status).toBe(200);
    const { result } = JSON.parse(answer.text);
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toMatch(/^Invalid arguments for search_index/);
    expect(answer.text.length).toBeLessThan(5000);
  });

  it('cuts long echoed strings', async () => {
    const answer = await raw(gateway, '/v1/search', { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ q: 'x'.repeat(50_000) }) });
    expect(answer.status).toBe(422);
    const [issue] = JSON.parse(answer.text).detail;
    expect(issue.type).toBe('string_too_long');
    expect(issue.input.length).toBeLessThanOrEqual(1001);
  });

  it('answers invalid UTF-8 with 422 json_invalid on REST and the public API, and with a JSON-RPC parse error on /mcp', async () => {
    const body = Buffer.concat([Buffer.from('{"q":"Rat'), Buffer.from([0xff, 0xfe]), Buffer.from('haus"}')]);
    for (const [base, path] of [
      [gateway, '/v1/search'],
      [web, '/api/search'],
    ] as const) {
      const answer = await raw(base, path, { headers: { 'content-type': 'application/json' }, body });
      expect(answer.status, path).toBe(422);
      expect(JSON.parse(answer.text).detail).toEqual([{ type: 'json_invalid', loc: ['body', 9], msg: 'JSON decode error', input: {}, ctx: { error: 'Invalid UTF-8 in the request body' } }]);
    }
    // A well-formed call except for one byte in the query: decoded leniently it would be searched.
    const [before, after] = JSON.stringify(searchCall(1)).split('Haus');
    const mcp = await raw(gateway, '/mcp', { headers: MCP_HEADERS, body: Buffer.concat([Buffer.from(`${before}Ha`), Buffer.from([0xff]), Buffer.from(`us${after}`)]) });
    expect(mcp.status).toBe(400);
    expect(JSON.parse(mcp.text)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
  });
});

describe('admin cookies', () => {
  it('are Secure when the panel is reached over HTTPS (FUNDUS_ADMIN_EXTERNAL_URL)', async () => {
    const answer = await raw(admin, '/');
    const cookies = [answer.headers['set-cookie'] ?? []].flat();
    expect(cookies.length).toBeGreaterThan(0);
    for (const cookie of cookies) expect(cookie).toMatch(/; Secure(;|$)/);
  });
});

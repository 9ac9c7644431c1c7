import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/redis-server.ts';
import { detectEngine, sh } from './lib/engine.ts';
import { buildImages, ComposeKit } from './lib/kit.ts';
import { drive, type Origin, type Tally } from './lib/origin.ts';

// The kit, live (issue 18): the image built from this tree, the embedded-mode compose deployment
// brought up with podman-compose, and every check made through Caddy's HTTPS origin on loopback,
// trusting only Caddy's local root certificate.

const engine = detectEngine();
if (!engine.ok) console.warn(`\n*** kit suite SKIPPED: ${engine.reason} ***\n`);

const GATEWAYS = ['gateway-1', 'gateway-2', 'gateway-3'];
const WEBS = ['web-1', 'web-2'];
const SERVICES = ['caddy', ...GATEWAYS, ...WEBS, 'admin', 'redis', 'ingest'];
const MARKER = `kitmarker${randomBytes(6).toString('hex')}`;

let kit: ComposeKit;
let origin: Origin;
let loadKey = '';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/**
 * What the admin container sees of Redis when a command could not reach it: name resolution (with
 * its time), Redis' restarts, the serve process's Redis log lines, and ioredis' own trace of one
 * connection attempt (lines that carry the password left out).
 */
async function redisDiagnosis(): Promise<string> {
  const started = Date.now();
  const hosts = await sh('podman', ['exec', kit.container('admin'), 'getent', 'hosts', 'redis'], { timeoutMs: 30_000 });
  const resolved = `getent hosts redis: ${hosts.code === 0 ? hosts.stdout.trim() : `failed (${hosts.code})`} in ${Date.now() - started} ms`;
  const state = await sh('podman', ['inspect', '-f', 'restarts {{.RestartCount}}, started {{.State.StartedAt}}, {{.State.Status}}', kit.container('redis')]);
  const serveLog = (await kit.logs('admin')).split('\n').filter((line) => /redis/i.test(line)).slice(-5).join('\n');
  const trace = await sh('podman', ['exec', '-e', 'DEBUG=ioredis:*', kit.container('admin'), 'node', 'bin/fundus.js', 'keys', 'list'], { timeoutMs: 60_000 });
  const traced = trace.stderr.split('\n').filter((line) => line && !/hello\(|auth/i.test(line)).slice(-25).join('\n');
  return `${resolved}\nredis container: ${state.stdout.trim()}\nadmin serve log:\n${serveLog}\nioredis trace of keys list (exit ${trace.code}):\n${traced}`;
}

/** `fundus keys create` in the admin container: the key is the last line printed. */
async function createKey(name: string, limit: string): Promise<string> {
  const args = ['exec', kit.container('admin'), 'node', 'bin/fundus.js', 'keys', 'create', '--name', name, '--limit', limit];
  // Right after `up`, the admin container sometimes cannot reach Redis for a while although Redis
  // answers in its own container (seen in 3 of 8 runs; cause not yet found, see the session note):
  // the command refuses cleanly and changes nothing, so it is run again, a bounded number of times.
  let result = await sh('podman', args, { timeoutMs: 120_000 });
  for (let attempt = 1; attempt < 6 && result.code !== 0 && /not reachable/.test(result.stderr); attempt += 1) {
    console.log(`kit: keys create found Redis unreachable (attempt ${attempt}); again in 5 s\n${await redisDiagnosis()}`);
    await sleep(5000);
    result = await sh('podman', args, { timeoutMs: 120_000 });
  }
  expect(result.code, result.stderr).toBe(0);
  const key = result.stdout.trim().split('\n').pop()!.trim();
  expect(key).toMatch(/^fk_/);
  return key;
}

/** GET path on one replica directly, from inside its own container: the status code. */
async function statusOnReplica(service: string, port: number, path: string, headers: Record<string, string>): Promise<number> {
  const script = `fetch('http://127.0.0.1:${port}${path}',{headers:${JSON.stringify(headers)}}).then(r=>console.log(r.status),e=>console.log('error '+e.message))`;
  const out = await kit.exec(service, ['node', '-e', script]);
  return Number(out.trim());
}

/** How many requests each gateway logged for a route (its own request lines; flushed within a second). */
async function routeCounts(route: string): Promise<number[]> {
  await sleep(1500);
  return Promise.all(GATEWAYS.map(async (g) => (await kit.logs(g)).split('\n').filter((line) => line.includes(`"route":"${route}"`)).length));
}

/** Anonymous clients for `ms`: how many were admitted, against the seconds the window spans. */
async function anonymousWindow(ms: number): Promise<{ tally: Tally; seconds: number }> {
  const started = Date.now();
  const tally = await drive(origin, () => ({ method: 'GET', path: '/v1/stats' }), { clients: 6, until: () => Date.now() - started > ms, maxPerClient: 2000, pauseMs: 20 });
  return { tally, seconds: (Date.now() - started) / 1000 };
}

const keyedMix = (key: string) => (client: number, i: number) =>
  (client + i) % 2 === 0
    ? { method: 'GET', path: '/v1/stats', headers: bearer(key) }
    : { method: 'POST', path: '/v1/search', body: JSON.stringify({ q: 'Miete' }), headers: bearer(key) };

describe.skipIf(!engine.ok)('the kit, live: embedded mode with podman-compose, through Caddy over HTTPS', () => {
  beforeAll(async () => {
    await buildImages();
    kit = new ComposeKit({ project: `fundus-kit-${process.pid}`, httpPort: await freePort(), httpsPort: await freePort() });
    await kit.up();
    // The ingest job writes the index; the replicas serve as soon as they are up.
    const waited = await sh('podman', ['wait', kit.container('ingest')], { timeoutMs: 300_000 });
    expect(waited.stdout.trim(), await kit.logs('ingest')).toBe('0');
    origin = await kit.httpsOrigin();
    await kit.waitFor('/openapi.json', [200]);
    for (const service of GATEWAYS) await kit.waitReady(service, 8082);
    for (const service of WEBS) await kit.waitReady(service, 8080);
    // Readiness does not wait for Redis (a replica serves on its fallback budgets without it), but
    // `keys create` needs it: wait (bounded) until Redis answers.
    for (let i = 0; i < 60; i += 1) {
      const ping = await sh('podman', ['exec', kit.container('redis'), 'redis-cli', 'ping'], { timeoutMs: 10_000 });
      if (ping.stdout.includes('PONG')) break;
      await sleep(1000);
    }
    // Far above what the load below can send: its requests go through the budget (in Redis) and
    // are never refused by it. At 1000/s a faster kit met the key's own limit in the rolling stop.
    loadKey = await createKey('kit-load', '1000000/s');
    // Caddy's health checks (every 3 s) have seen every replica ready.
    await sleep(4000);
  }, 1_500_000);

  afterAll(async () => {
    await kit?.destroy();
  }, 300_000);

  it('serves REST v1, /mcp, /openapi.json, /docs, the page and /api/* with a certificate from Caddy’s local CA', async () => {
    const stats = await origin.request('GET', '/v1/stats', { headers: bearer(loadKey) });
    expect(stats.status).toBe(200);
    expect(JSON.parse(stats.body).documents).toBeGreaterThan(10);
    const search = await origin.request('POST', '/v1/search', { body: JSON.stringify({ q: 'Miete' }), headers: bearer(loadKey) });
    expect(search.status).toBe(200);
    const hit = JSON.parse(search.body).results[0];
    expect(hit.document_id).toBeTruthy();
    expect((await origin.request('GET', `/v1/documents/${encodeURIComponent(hit.document_id)}`, { headers: bearer(loadKey) })).status).toBe(200);
    expect((await origin.request('GET', '/v1/sources', { headers: bearer(loadKey) })).status).toBe(200);

    const openapi = await origin.request('GET', '/openapi.json');
    expect(JSON.parse(openapi.body).servers[0].url).toBe(kit.env.FUNDUS_PUBLIC_URL);
    const docs = await origin.request('GET', '/docs');
    expect(docs.status).toBe(200);
    expect(docs.headers['content-type']).toMatch(/text\/html/);

    const mcp = await origin.request('POST', '/mcp', {
      headers: { ...bearer(loadKey), accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'kit', version: '1' } } }),
    });
    expect(mcp.status).toBe(200);
    expect(mcp.body).toContain('"serverInfo"');

    const page = await origin.request('GET', '/');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.headers['x-frame-options']).toBe('DENY');
    const options = await origin.request('GET', '/api/options');
    expect(options.status).toBe(200);
    const webSearch = await origin.request('POST', '/api/search', { body: JSON.stringify({ q: 'Miete' }) });
    expect(webSearch.status).toBe(200);
    expect(JSON.parse(webSearch.body).results.length).toBeGreaterThan(0);
  });

  it('is verified against Caddy’s root only: a client without it refuses the certificate', async () => {
    const error = await fetch(`${origin.url}/openapi.json`).then(
      () => null,
      (e: Error & { cause?: { code?: string } }) => e.cause?.code ?? e.message,
    );
    // fetch resolves "localhost" to loopback; the default trust store does not know Caddy's local CA.
    expect(error).toMatch(/CERT|certificate|UNABLE|SELF_SIGNED/i);
  });

  it('never routes the admin panel or the health and readiness probes', async () => {
    for (const path of ['/admin', '/admin/', '/admin/keys', '/healthz', '/readyz', '/metrics']) {
      expect((await origin.request('GET', path)).status, path).toBe(404);
    }
  });

  it('spreads requests over the three gateway replicas', async () => {
    const before = await routeCounts('/v1/sources');
    for (let i = 0; i < 30; i++) expect((await origin.request('GET', '/v1/sources', { headers: bearer(loadKey) })).status).toBe(200);
    const after = await routeCounts('/v1/sources');
    const served = after.map((count, i) => count - before[i]);
    console.log(`kit: 30 requests served by the gateways as ${served.join('/')}`);
    expect(served.reduce((a, b) => a + b, 0)).toBe(30);
    for (const count of served) expect(count).toBeGreaterThanOrEqual(3);
  });

  it('holds the anonymous budget (1/s) across the replicas: 200s over a window vs 429s', async () => {
    await sleep(1100);
    const { tally, seconds } = await anonymousWindow(6000);
    console.log(`kit: anonymous, 6 clients over ${seconds.toFixed(1)} s: ${JSON.stringify(tally.byStatus)}`);
    expect(tally.failures).toEqual([]);
    expect(tally.byStatus[200] ?? 0).toBeGreaterThanOrEqual(1);
    // One budget for everyone: at most one admission per started second (plus the window's edges).
    expect(tally.byStatus[200] ?? 0).toBeLessThanOrEqual(Math.ceil(seconds) + 1);
    expect(tally.byStatus[429] ?? 0).toBeGreaterThan(tally.byStatus[200] ?? 0);
  });

  it('a key created through the admin role works on every replica; revoked, it stops within 2 s', async () => {
    const key = await createKey('kit-revoke', '20/s');
    for (const g of GATEWAYS) expect(await statusOnReplica(g, 8082, '/v1/stats', bearer(key)), g).toBe(200);
    await kit.exec('admin', ['node', 'bin/fundus.js', 'keys', 'revoke', 'kit-revoke']);
    await sleep(2000);
    for (const g of GATEWAYS) expect(await statusOnReplica(g, 8082, '/v1/stats', bearer(key)), g).toBe(401);
    expect((await origin.request('GET', '/v1/stats', { headers: bearer(key) })).status).toBe(401);
    // The other key is untouched.
    expect((await origin.request('GET', '/v1/stats', { headers: bearer(loadKey) })).status).toBe(200);
  });

  it('loses nothing when Redis is killed and restored under load (no 5xx), and the budgets return to Redis', async () => {
    let stop = false;
    const keyed = drive(origin, keyedMix(loadKey), { clients: 4, until: () => stop, maxPerClient: 20_000, pauseMs: 10 });
    const anonymous = drive(origin, () => ({ method: 'GET', path: '/v1/stats' }), { clients: 2, until: () => stop, maxPerClient: 20_000, pauseMs: 20 });
    await sleep(2000);
    await sh('podman', ['kill', kit.container('redis')]);
    await sleep(5000);
    await sh('podman', ['start', kit.container('redis')]);
    const end = Date.now() + 60_000;
    while ((await sh('podman', ['exec', kit.container('redis'), 'redis-cli', 'ping'])).stdout.trim() !== 'PONG' && Date.now() < end) await sleep(250);
    await sleep(5000);
    stop = true;
    const [k, a] = await Promise.all([keyed, anonymous]);
    console.log(`kit: Redis killed and restored: keyed ${JSON.stringify(k.byStatus)}, anonymous ${JSON.stringify(a.byStatus)}`);
    expect([...k.failures, ...a.failures]).toEqual([]);
    for (const status of Object.keys({ ...k.byStatus, ...a.byStatus })) expect(['200', '429']).toContain(status);

    // Back on Redis: one global anonymous budget again, kept in Redis.
    await sleep(2000);
    const { tally, seconds } = await anonymousWindow(5000);
    expect(tally.failures).toEqual([]);
    expect(tally.byStatus[200] ?? 0).toBeLessThanOrEqual(Math.ceil(seconds) + 1);
    const keys = await kit.exec('redis', ['redis-cli', '--scan']);
    expect(keys.trim().split('\n').filter(Boolean).length).toBeGreaterThan(0);
  }, 180_000);

  it('loses no request (GET or POST) while each gateway in turn is stopped and started under load', async () => {
    let stop = false;
    const caddyLogBefore = (await kit.logs('caddy')).length;
    const load = drive(origin, keyedMix(loadKey), { clients: 8, until: () => stop, maxPerClient: 50_000, pauseMs: 5 });
    await sleep(2000);
    for (const g of GATEWAYS) {
      // What `docker compose stop` / `podman-compose stop -t 25` send: SIGTERM, then a grace period.
      const stopped = await sh('podman', ['stop', '-t', '25', kit.container(g)], { timeoutMs: 60_000 });
      expect(stopped.code, stopped.stderr).toBe(0);
      expect(await kit.logs(g)).toContain('draining: not ready, still serving');
      await sh('podman', ['start', kit.container(g)]);
      await kit.waitReady(g, 8082);
      // Caddy's next health check (3 s) takes it back before the next one stops.
      await sleep(4000);
    }
    stop = true;
    const tally = await load;
    console.log(`kit: rolling stop of 3 gateways under load: ${tally.total} requests ${JSON.stringify(tally.byStatus)}`);
    // What Caddy saw meanwhile: failed health checks and dials by cause (a failed name lookup is
    // aardvark-dns restarting as a container starts or stops; README "Container DNS").
    const seen: Record<string, number> = {};
    for (const line of (await kit.logs('caddy')).slice(caddyLogBefore).split('\n')) {
      const error = /"error":"((?:[^"\\]|\\.)*)"/.exec(line)?.[1]?.replace(/\\"/g, "'");
      if (!error) continue;
      const cause = error.replace(/\d+\.\d+\.\d+\.\d+(:\d+)?/g, 'ADDR').slice(0, 160);
      seen[cause] = (seen[cause] ?? 0) + 1;
    }
    console.log(`kit: Caddy's errors during the rolling stop: ${JSON.stringify(seen)}`);
    expect(tally.failures).toEqual([]);
    expect(tally.byStatus[200]).toBe(tally.total);
  }, 400_000);

  it('writes the text of requests into no container log and no Redis key', async () => {
    const h = bearer(loadKey);
    const sent = [
      await origin.request('POST', '/v1/search', { headers: h, body: JSON.stringify({ q: MARKER }) }),
      await origin.request('POST', '/v1/search', { headers: h, body: JSON.stringify({ q: MARKER, limit: 999 }) }),
      await origin.request('GET', `/v1/documents/${MARKER}`, { headers: h }),
      await origin.request('GET', `/v1/stats?${MARKER}=1`, { headers: { ...h, 'x-forwarded-for': '203.0.113.77', 'user-agent': MARKER } }),
      await origin.request('POST', '/mcp', {
        headers: { ...h, accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'search_index', arguments: { q: MARKER } } }),
      }),
      await origin.request('POST', '/api/search', { body: JSON.stringify({ q: MARKER }) }),
      await origin.request('POST', '/api/news', { body: JSON.stringify({ q: MARKER }) }),
      await origin.request('GET', `/?q=${MARKER}`),
      await origin.request('GET', `/admin/${MARKER}`),
    ];
    for (const answer of sent) expect(answer.status).toBeLessThan(500);
    await sleep(2000); // the replicas flush their logs at least every second
    for (const service of SERVICES) {
      const logs = await kit.logs(service);
      expect(logs.includes(MARKER), `${service} logged the marker`).toBe(false);
      expect(logs.includes('203.0.113.77'), `${service} logged a client address`).toBe(false);
    }
    const keys = await kit.exec('redis', ['redis-cli', '--scan']);
    expect(keys).not.toContain(MARKER);
  });

  it('keeps the index and the keys across `down` and `up`', async () => {
    const before = JSON.parse((await origin.request('GET', '/v1/stats', { headers: bearer(loadKey) })).body);
    await kit.down();
    kit.resetOrigin();
    await kit.up();
    await sh('podman', ['wait', kit.container('ingest')], { timeoutMs: 300_000 });
    origin = await kit.httpsOrigin();
    for (const service of GATEWAYS) await kit.waitReady(service, 8082);
    // Every replica must answer, not just the first: six 200s in a row go round all three (bounded).
    // A replica whose first Redis lookup was lost (aardvark-dns, README "Container DNS") answers
    // keyed calls with an error for a few seconds after `up`; what is seen is printed.
    const seen: Record<number, number> = {};
    let inRow = 0;
    let last = '';
    for (const deadline = Date.now() + 120_000; inRow < 6 && Date.now() < deadline; ) {
      const answer = await origin.request('GET', '/v1/stats', { headers: bearer(loadKey) });
      seen[answer.status] = (seen[answer.status] ?? 0) + 1;
      inRow = answer.status === 200 ? inRow + 1 : 0;
      last = answer.body;
      if (inRow === 0) await sleep(500);
    }
    console.log(`kit: /v1/stats after down and up: ${JSON.stringify(seen)}`);
    expect(inRow, `six 200s in a row; seen ${JSON.stringify(seen)}, last ${last.slice(0, 200)}`).toBe(6);
    const after = JSON.parse(last);
    expect(after.documents).toBe(before.documents);
    expect(after.documents).toBeGreaterThan(10);
  }, 600_000);
});

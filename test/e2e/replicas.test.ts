import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Access, createAccess } from '../../services/access/access-guard.ts';
import { silentLog } from '../../services/access/log.ts';
import { loadConfig } from '../../services/cli/config.ts';
import { buildGatewayApp } from '../../services/gateway/app.ts';
import { SqliteIndex } from '../../services/index/sqlite/sqlite-index.ts';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.ts';

// Two gateway replicas on one real redis-server (issue 4, "How it is checked"). They run in this
// process on their own ports, each with its own access layer and Redis connection, exactly as two
// `fundus serve --role gateway` processes would (those are started by the CLI e2e tests once the
// serve command exists). The anonymous budget must be shared, not multiplied; revocation must
// reach the other replica within a second; a Redis outage must degrade, not hang, and recover.

interface Replica {
  url: string;
  access: Access;
  app: FastifyInstance;
  index: SqliteIndex;
}

let redis: RedisServer;
let dataDir: string;
let replicas: Replica[] = [];
const ADMIN_TOKEN = 'replica-admin-token-0123456789';

async function startReplica(name: string): Promise<Replica> {
  const config = loadConfig({ data: join(dataDir, name) }, { REDIS_URL: redis.url, FUNDUS_KEY_PEPPER_FILE: join(dataDir, 'key-pepper'), FUNDUS_FALLBACK_SHARE: '0.5', FUNDUS_ADMIN_TOKEN: ADMIN_TOKEN });
  const access = await createAccess(config, silentLog);
  const index = new SqliteIndex({ file: join(dataDir, `${name}-index.sqlite`) });
  const app = await buildGatewayApp({ index, guard: access.guard, countBudgetMs: 100, externalUrl: 'http://127.0.0.1', logLevel: 'silent' });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return { url, access, app, index };
}

interface Tally {
  admitted: number;
  refused: number;
  other: number;
  maxLatencyMs: number;
}

/** N clients per replica calling without pause (but one at a time each) for `durationMs`. */
async function drive(urls: string[], clientsPerUrl: number, durationMs: number, headers: Record<string, string> = {}): Promise<Tally> {
  const tally: Tally = { admitted: 0, refused: 0, other: 0, maxLatencyMs: 0 };
  const end = Date.now() + durationMs;
  const client = async (url: string) => {
    while (Date.now() < end) {
      const started = Date.now();
      const response = await fetch(`${url}/v1/stats`, { headers, signal: AbortSignal.timeout(5000) });
      await response.arrayBuffer();
      tally.maxLatencyMs = Math.max(tally.maxLatencyMs, Date.now() - started);
      if (response.status === 200) tally.admitted += 1;
      else if (response.status === 429) tally.refused += 1;
      else tally.other += 1;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  await Promise.all(urls.flatMap((url) => Array.from({ length: clientsPerUrl }, () => client(url))));
  return tally;
}

async function waitFor(check: () => Promise<boolean>, withinMs: number): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > withinMs) throw new Error(`not within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return Date.now() - started;
}

const statusOf = async (url: string, key?: string) => (await fetch(`${url}/v1/stats`, { headers: key ? { authorization: `Bearer ${key}` } : {} })).status;

beforeAll(async () => {
  redis = await startRedisServer();
  dataDir = mkdtempSync(join(tmpdir(), 'fundus-replicas-'));
  replicas = [await startReplica('a'), await startReplica('b')];
});

afterAll(async () => {
  for (const replica of replicas) {
    await replica.app.close();
    await replica.access.close();
    await replica.index.close();
  }
  await redis?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('two gateway replicas on one Redis', () => {
  it('share one anonymous budget of 1 request per second instead of multiplying it', async () => {
    await new Promise((resolve) => setTimeout(resolve, 1100)); // a fresh window
    const seconds = 3;
    const tally = await drive(replicas.map((r) => r.url), 4, seconds * 1000);
    // Fixed windows of 1 s starting at the first call: at most one admission per started second.
    expect(tally.admitted).toBeGreaterThanOrEqual(seconds - 1);
    expect(tally.admitted).toBeLessThanOrEqual(seconds + 1);
    expect(tally.refused).toBeGreaterThan(tally.admitted * 10);
    expect(tally.other).toBe(0);
  });

  it('show a key created on one replica to the other, and refuse it there within a second of its revocation', async () => {
    const [a, b] = replicas;
    const { key, record } = await a.access.keyStore.create({ name: 'cross-replica', limit: '100/s' });
    // Replicas read keys through a cache of at most 500 ms: once that much time has passed (a lower
    // bound, whatever the machine's speed), the very next call on the other replica sees the change.
    const pastTheCache = () => new Promise((resolve) => setTimeout(resolve, 600));
    await pastTheCache();
    expect(await statusOf(b.url, key)).toBe(200);
    expect(await a.access.keyStore.revoke(record.id)).toBe(true);
    await pastTheCache();
    expect(await statusOf(b.url, key)).toBe(401);
    expect(await statusOf(a.url, key)).toBe(401);
  });

  it('keeps answering on the insurance limiter when redis-server dies, without hanging, and recovers when it returns', async () => {
    const [a] = replicas;
    const { key } = await a.access.keyStore.create({ name: 'through the outage', limit: '1000/s' });
    expect(await statusOf(replicas[1].url, key)).toBe(200);

    await redis.kill();
    let outage: Tally;
    let keyedDuringOutage: number;
    try {
      outage = await drive(replicas.map((r) => r.url), 3, 2500);
      keyedDuringOutage = await statusOf(replicas[1].url, key);
    } finally {
      await redis.start();
    }
    expect(outage.other).toBe(0); // every call got 200 or 429, none a 5xx
    expect(outage.maxLatencyMs).toBeLessThan(1000); // no request waited on the dead Redis
    expect(outage.admitted).toBeGreaterThan(0); // degraded, not down
    // Each replica grants max(1, floor(1 * 0.5)) = 1 call per second alone: bounded by 2/s in total.
    expect(outage.admitted).toBeLessThanOrEqual(2 * 4);
    expect(keyedDuringOutage).toBe(200); // a key read shortly before the outage keeps working

    // Back on Redis: both replicas' budgets are shared again (the restarted test Redis is empty).
    await waitFor(async () => (await Promise.all(replicas.map((r) => r.access.keyStore.ping()))).every(Boolean), 5000);
    await new Promise((resolve) => setTimeout(resolve, 1100)); // let the insurance windows end
    const recovered = await drive(replicas.map((r) => r.url), 4, 2000);
    expect(recovered.other).toBe(0);
    expect(recovered.admitted).toBeGreaterThanOrEqual(1);
    expect(recovered.admitted).toBeLessThanOrEqual(3);
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Access, createAccess } from '../../services/access/access-guard.ts';
import { silentLog } from '../../services/access/log.ts';
import { loadConfig } from '../../services/cli/config.ts';
import { buildGatewayApp } from '../../services/gateway/app.ts';
import { SqliteIndex } from '../../services/index/sqlite/sqlite-index.ts';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.ts';

// A stalled Redis (issue 19): redis-server stopped with SIGSTOP keeps its connections open, so each
// command waits for its timeout. With the circuit breaker only the first request after the stall
// waits; the rest are answered from the in-memory insurance (budgets) and the recent records (keys)
// without reaching Redis, which counts the commands it was sent. After SIGCONT the budgets are
// counted in Redis again.

let redis: RedisServer;
let dataDir: string;
let access: Access;
let app: FastifyInstance;
let index: SqliteIndex;
let url: string;

beforeAll(async () => {
  redis = await startRedisServer();
  dataDir = mkdtempSync(join(tmpdir(), 'fundus-stall-'));
  const config = loadConfig({ data: dataDir }, { REDIS_URL: redis.url, FUNDUS_KEY_PEPPER_FILE: join(dataDir, 'key-pepper'), FUNDUS_ANONYMOUS_LIMIT: '1000/min' });
  access = await createAccess(config, silentLog);
  index = new SqliteIndex({ file: join(dataDir, 'index.sqlite') });
  app = await buildGatewayApp({ index, guard: access.guard, countBudgetMs: 100, externalUrl: 'http://127.0.0.1', logLevel: 'silent' });
  url = await app.listen({ host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  redis?.resume();
  await app?.close();
  await access?.close();
  await index?.close();
  await redis?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

async function evalCalls(admin: Redis): Promise<number> {
  const stats = await admin.info('commandstats');
  return [...stats.matchAll(/^cmdstat_(evalsha|eval|hgetall):calls=(\d+)/gm)].reduce((sum, [, , n]) => sum + Number(n), 0);
}

describe('a stalled Redis (SIGSTOP)', () => {
  it('is skipped after the first timeout, anonymous and keyed calls go on, and budgets return to Redis after SIGCONT', async () => {
    const { key } = await access.keyStore.create({ name: 'steady', limit: '1000/min' });
    const keyed = { authorization: `Bearer ${key}` };
    expect((await fetch(`${url}/v1/stats`, { headers: keyed })).status).toBe(200);
    expect((await fetch(`${url}/v1/stats`)).status).toBe(200);
    const admin = new Redis(redis.url);
    await admin.config('RESETSTAT');
    redis.pause();
    const statuses: number[] = [];
    try {
      for (let i = 0; i < 20; i += 1) {
        statuses.push((await fetch(`${url}/v1/stats`, { signal: AbortSignal.timeout(10_000) })).status);
        statuses.push((await fetch(`${url}/v1/stats`, { headers: keyed, signal: AbortSignal.timeout(10_000) })).status);
      }
    } finally {
      redis.resume();
    }
    expect(statuses).toEqual(Array(40).fill(200));
    // Wait (bounded) until the breaker has closed: a call is then counted in Redis again.
    const before = Number(await admin.get('fundus:rl:1000:60:anon'));
    let counted = false;
    for (let attempt = 0; attempt < 100 && !counted; attempt += 1) {
      expect((await fetch(`${url}/v1/stats`)).status).toBe(200);
      counted = Number(await admin.get('fundus:rl:1000:60:anon')) > before;
      if (!counted) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(counted).toBe(true);
    // Of the 40 calls during the stall, only the first reached Redis (a budget script or a key read).
    const reachedDuringStall = (await evalCalls(admin)) - 1;
    expect(reachedDuringStall).toBeLessThanOrEqual(2);
    admin.disconnect();
  }, 60_000);
});

import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANONYMOUS_BUDGET, type Budgets, createRedisBudgets, insuranceLimit } from '../../services/access/budgets.ts';
import { RedisBreaker } from '../../services/access/redis-breaker.ts';
import { silentLog } from '../../services/access/log.ts';
import { connectRedis, createRedisClient } from '../../services/access/redis-client.ts';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.ts';
import { budgetContract } from './budget-contract.ts';

let server: RedisServer;

beforeAll(async () => {
  server = await startRedisServer();
});
afterAll(async () => {
  await server?.stop();
});

async function openBudgets(fallbackShare = 1): Promise<Budgets> {
  const client = createRedisClient(server.url, silentLog);
  if (!(await connectRedis(client, 3000))) throw new Error('test redis-server not reachable');
  return createRedisBudgets({ client, fallbackShare, breaker: new RedisBreaker(client), ownsClient: true });
}

async function waitUntil(check: () => Promise<boolean>, withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

budgetContract('redis', async () => {
  const admin = new Redis(server.url);
  await admin.flushall();
  admin.disconnect();
  const budgets = await openBudgets();
  return { budgets, cleanup: () => budgets.close() };
});

describe('redis budgets specifics', () => {
  it('is one budget for all replicas: two processes share the anonymous second', async () => {
    const [a, b] = [await openBudgets(), await openBudgets()];
    const limit = { points: 4, durationSeconds: 10 };
    const outcomes = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).consume('shared-test', limit)));
    expect(outcomes.filter((o) => o.admitted)).toHaveLength(4);
    await a.close();
    await b.close();
  });

  it('stores nothing but the budget name and a count', async () => {
    const budgets = await openBudgets();
    await budgets.consume(ANONYMOUS_BUDGET, { points: 1, durationSeconds: 1 });
    const client = new Redis(server.url);
    const keys = await client.keys('fundus:rl:*');
    expect(keys).toContain('fundus:rl:1:1:anon');
    for (const key of keys) expect(await client.get(key)).toMatch(/^\d+$/);
    client.disconnect();
    await budgets.close();
  });

  it('falls back to the per-replica insurance share at once when Redis dies, and returns to Redis', async () => {
    const budgets = await openBudgets(0.5);
    const limit = { points: 10, durationSeconds: 60 };
    expect((await budgets.consume('outage-test', limit)).admitted).toBe(true);
    await server.kill();
    try {
      const started = Date.now();
      const outcomes = [];
      for (let i = 0; i < 8; i += 1) outcomes.push(await budgets.consume('outage-test', limit));
      // No request waits for the dead Redis: eight calls that each waited for the 500 ms command
      // timeout would take 4 s; answered from the fallback they take milliseconds.
      expect(Date.now() - started).toBeLessThan(4000);
      expect(outcomes.filter((o) => o.admitted)).toHaveLength(insuranceLimit(limit, 0.5).points);
      await waitUntil(async () => !(await budgets.ping()), 2000); // the client notices the loss
    } finally {
      await server.start();
    }
    await waitUntil(() => budgets.ping(), 5000);
    // Back on the (restarted, empty) Redis: a fresh shared window with the full 10 points.
    const outcomes = [];
    for (let i = 0; i < 11; i += 1) outcomes.push(await budgets.consume('outage-test', limit));
    expect(outcomes.filter((o) => o.admitted)).toHaveLength(10);
    const client = new Redis(server.url);
    expect(await client.get('fundus:rl:10:60:outage-test')).toBe('10');
    client.disconnect();
    await budgets.close();
  });

  it('grants a share below one call per window as one call per longer window', () => {
    expect(insuranceLimit({ points: 1, durationSeconds: 1 }, 0.34)).toEqual({ points: 1, durationSeconds: 3 });
    expect(insuranceLimit({ points: 1, durationSeconds: 1 }, 0.5)).toEqual({ points: 1, durationSeconds: 2 });
    expect(insuranceLimit({ points: 60, durationSeconds: 60 }, 0.25)).toEqual({ points: 15, durationSeconds: 60 });
    expect(insuranceLimit({ points: 7, durationSeconds: 1 }, 1)).toEqual({ points: 7, durationSeconds: 1 });
  });

  it('gives three replicas sharing 1/s no more than one call per 3 s each while Redis is down', async () => {
    const budgets = await openBudgets(0.34);
    const limit = { points: 1, durationSeconds: 1 };
    await server.kill();
    try {
      const first = await budgets.consume('fraction-test', limit);
      const second = await budgets.consume('fraction-test', limit);
      expect(first.admitted).toBe(true);
      expect(second.admitted).toBe(false);
      // The honest wait is the rest of this replica's 3 s window, not the global 1 s one.
      expect(second.resetSeconds).toBeGreaterThanOrEqual(2);
      expect(second.resetSeconds).toBeLessThanOrEqual(3);
    } finally {
      await server.start();
    }
    await budgets.close();
  });

  it('skips a stalled Redis (SIGSTOP) after the first timeout, and counts in Redis again after SIGCONT', async () => {
    const admin = new Redis(server.url);
    await admin.flushall();
    const budgets = await openBudgets(1);
    const limit = { points: 1000, durationSeconds: 60 };
    expect((await budgets.consume('stall-test', limit)).admitted).toBe(true);
    await admin.config('RESETSTAT');
    server.pause();
    try {
      // All 30 calls are answered (from the insurance share); only the first one waited for Redis.
      for (let i = 0; i < 30; i += 1) expect((await budgets.consume('stall-test', limit)).admitted).toBe(true);
    } finally {
      server.resume();
    }
    await waitUntil(() => budgets.ping(), 15_000);
    // Counted by Redis itself: the calls made during the stall never reached it, except the first.
    const stats = await admin.info('commandstats');
    const calls = [...stats.matchAll(/^cmdstat_(evalsha|eval):calls=(\d+)/gm)].reduce((sum, [, , n]) => sum + Number(n), 0);
    expect(calls, stats).toBeLessThanOrEqual(2);
    // Back on Redis: the next call is counted there.
    const before = Number(await admin.get('fundus:rl:1000:60:stall-test'));
    expect((await budgets.consume('stall-test', limit)).admitted).toBe(true);
    expect(Number(await admin.get('fundus:rl:1000:60:stall-test'))).toBe(before + 1);
    admin.disconnect();
    await budgets.close();
  });
});

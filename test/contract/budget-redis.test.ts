import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANONYMOUS_BUDGET, type Budgets, createRedisBudgets, insurancePoints } from '../../services/access/budgets.ts';
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
  return createRedisBudgets({ client, fallbackShare, ownsClient: true });
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
      expect(outcomes.filter((o) => o.admitted)).toHaveLength(insurancePoints(10, 0.5));
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

  it('grants at least one call per window from the insurance share', () => {
    expect(insurancePoints(1, 0.5)).toBe(1);
    expect(insurancePoints(60, 0.25)).toBe(15);
    expect(insurancePoints(7, 1)).toBe(7);
  });
});

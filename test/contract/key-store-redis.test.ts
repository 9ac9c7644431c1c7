import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisKeyStore } from '../../services/access/key-store-redis.ts';
import { silentLog } from '../../services/access/log.ts';
import { connectRedis, createRedisClient } from '../../services/access/redis-client.ts';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.ts';
import { keyStoreContract } from './key-store-contract.ts';

let server: RedisServer;

beforeAll(async () => {
  server = await startRedisServer();
});
afterAll(async () => {
  await server?.stop();
});

async function openStore(): Promise<RedisKeyStore> {
  const client = createRedisClient(server.url, silentLog);
  if (!(await connectRedis(client, 3000))) throw new Error('test redis-server not reachable');
  return new RedisKeyStore({ client, ownsClient: true });
}

async function everything(): Promise<string> {
  const client = new Redis(server.url);
  const parts: string[] = [];
  for (const key of await client.keys('*')) {
    const type = await client.type(key);
    const value = type === 'hash' ? await client.hgetall(key) : type === 'set' ? await client.smembers(key) : await client.get(key);
    parts.push(key, JSON.stringify(value));
  }
  client.disconnect();
  return parts.join('\n');
}

keyStoreContract('redis', async () => {
  const admin = new Redis(server.url);
  await admin.flushall();
  admin.disconnect();
  const store = await openStore();
  return { store, openPeer: openStore, cleanup: () => store.close() };
});

describe('redis key store specifics', () => {
  it('stores no key, only its hash', async () => {
    const store = await openStore();
    const { key } = await store.create({ name: 'scan me', limit: '1/s' });
    const dump = await everything();
    expect(dump).toContain('scan me');
    expect(dump).not.toContain(key.slice(11));
    await store.close();
  });

  it('keeps honouring recently seen keys while Redis is down, fails fast on unseen ones, and recovers', async () => {
    const store = await openStore();
    const { key } = await store.create({ name: 'outage', limit: '1/s' });
    expect(await store.verify(key)).not.toBeNull();
    await server.kill();
    try {
      await new Promise((resolve) => setTimeout(resolve, 700)); // past the read-through cache
      expect((await store.verify(key))?.name).toBe('outage');
      const started = Date.now();
      await expect(store.verify('fk_' + 'Z'.repeat(43))).rejects.toMatchObject({ code: 'UNAVAILABLE' });
      await expect(store.create({ name: 'during outage', limit: '1/s' })).rejects.toMatchObject({ code: 'UNAVAILABLE' });
      // They fail instead of waiting for Redis to come back (it comes back only after this block);
      // the bound is far above the 500 ms command timeout, so a loaded machine does not trip it.
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(await store.ping()).toBe(false);
    } finally {
      await server.start();
    }
    // The restarted test server is empty (no persistence), so the old key is gone; new ones work.
    const deadline = Date.now() + 5000;
    while (!(await store.ping()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    const fresh = await store.create({ name: 'after outage', limit: '1/s' });
    expect((await store.verify(fresh.key))?.name).toBe('after outage');
    await store.close();
  });
});

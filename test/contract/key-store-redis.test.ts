import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisKeyStore } from '../../services/access/key-store-redis.ts';
import { generateKey, generatePepper, hashKey, keyIdOf } from '../../services/access/keys.ts';
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

// The pepper of the deployment, from configuration as every replica gets it (never from Redis).
const PEPPER = generatePepper();

async function openStore(pepper = PEPPER): Promise<RedisKeyStore> {
  const client = createRedisClient(server.url, silentLog);
  if (!(await connectRedis(client, 3000))) throw new Error('test redis-server not reachable');
  return new RedisKeyStore({ client, pepper, ownsClient: true });
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

  it('keeps the pepper out of Redis: a copy of Redis holds neither it nor anything that verifies a key without it', async () => {
    const admin = new Redis(server.url);
    await admin.flushall();
    const store = await openStore();
    const { key } = await store.create({ name: 'pepper test', limit: '1/s' });
    const dump = await everything();
    expect(dump).not.toContain(PEPPER.toString('base64url'));
    expect(await admin.keys('*pepper')).toEqual([]);
    // A replica with another pepper is refused loudly instead of silently answering 401 to every key.
    const stranger = await openStore(generatePepper());
    await expect(stranger.verify(key)).rejects.toMatchObject({ code: 'UNAVAILABLE', message: expect.stringMatching(/pepper/) });
    expect((await store.verify(key))?.name).toBe('pepper test');
    await Promise.all([store.close(), stranger.close()]);
    admin.disconnect();
  });

  it('refuses to work on a store whose pepper is still kept in Redis, naming the migration', async () => {
    const admin = new Redis(server.url);
    await admin.flushall();
    await admin.set('fundus:{keys}:v1:pepper', generatePepper().toString('base64url'));
    const store = await openStore();
    await expect(store.create({ name: 'old store', limit: '1/s' })).rejects.toMatchObject({ code: 'UNAVAILABLE', message: expect.stringMatching(/FUNDUS_KEY_PEPPER/) });
    await expect(store.verify('fk_' + 'A'.repeat(43))).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    await store.close();
    await admin.flushall();
    admin.disconnect();
  });

  it('keeps the keys of an old store valid after the migration the README describes', async () => {
    // An old store: the pepper beside the hashes in Redis.
    const admin = new Redis(server.url);
    await admin.flushall();
    const oldPepper = generatePepper();
    const key = generateKey();
    const id = keyIdOf(key);
    await admin.set('fundus:{keys}:v1:pepper', oldPepper.toString('base64url'));
    await admin.hset(`fundus:{keys}:v1:rec:${id}`, { id, name: 'from before', hash: hashKey(key, oldPepper), limit: '1/s', created_at: '2026-01-01T00:00:00.000Z' });
    await admin.sadd('fundus:{keys}:v1:ids', id);
    await admin.hset('fundus:{keys}:v1:names', 'from before', id);
    // README "Security": GET the value into FUNDUS_KEY_PEPPER (or a file), then DEL it from Redis.
    const moved = Buffer.from((await admin.get('fundus:{keys}:v1:pepper'))!, 'base64url');
    await admin.del('fundus:{keys}:v1:pepper');
    const store = await openStore(moved);
    expect((await store.verify(key))?.name).toBe('from before');
    expect(await admin.keys('*:pepper')).toEqual([]);
    await store.close();
    await admin.flushall();
    admin.disconnect();
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

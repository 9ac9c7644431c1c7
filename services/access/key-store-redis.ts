import type { ChainableCommander, Redis } from 'ioredis';
import { generateKey, isWellFormedKey, keyIdOf, hashKey, keyMatchesHash, pepperCheckOf } from './keys.ts';
import {
  type CreatedKey,
  type KeyRecord,
  type KeyStore,
  KeyStoreError,
  nameTaken,
  newestFirst,
  normaliseKeyLimit,
  normaliseKeyName,
  pickRecord,
} from './key-store.ts';
import type { RedisBreaker } from './redis-breaker.ts';
import { closeRedis } from './redis-client.ts';

// The shared key store of a deployment. Every replica reads a key's record through a cache of at
// most CACHE_MS, so a key created or revoked on one replica is seen by all within a second
// (issue 4). While Redis is unreachable a replica keeps honouring records it read recently
// (STALE_MS) instead of failing every keyed call; a key it never saw cannot be checked and fails.
// The `{keys}` hash tag keeps all records in one slot, so the scripts stay atomic on a cluster too.
//
// The pepper (the HMAC key of the hashes) is never stored in Redis (issue 19): a copy of Redis alone
// cannot test a key. It comes from configuration (FUNDUS_KEY_PEPPER or FUNDUS_KEY_PEPPER_FILE), the
// same on every replica. Redis keeps only a check value (an HMAC under the pepper of a fixed text),
// written by the first store to use it, so that a replica with a different pepper fails loudly
// instead of refusing every key in silence. Stores made before this kept the pepper at PEPPER: that
// value must be moved into the configuration once (README "Security"); until then the store refuses.

const CACHE_MS = 500;
const STALE_MS = 15 * 60_000;
const CACHE_ENTRIES = 10_000; // unknown ids are cached too, so a flood of made-up keys cannot grow memory
const PREFIX = 'fundus:{keys}:v1';
const IDS = `${PREFIX}:ids`;
const NAMES = `${PREFIX}:names`;
const LEGACY_PEPPER = `${PREFIX}:pepper`;
const PEPPER_CHECK = `${PREFIX}:pepper-check`;
const recordKey = (id: string) => `${PREFIX}:rec:${id}`;

const CREATE = `
if redis.call('exists', KEYS[1]) == 1 then return -1 end
if redis.call('hsetnx', KEYS[3], ARGV[2], ARGV[1]) == 0 then return 0 end
redis.call('hset', KEYS[1], 'id', ARGV[1], 'name', ARGV[2], 'hash', ARGV[3], 'limit', ARGV[4], 'created_at', ARGV[5])
redis.call('sadd', KEYS[2], ARGV[1])
return 1`;
const REVOKE = `
if redis.call('exists', KEYS[1]) == 0 or redis.call('hexists', KEYS[1], 'revoked_at') == 1 then return 0 end
redis.call('hset', KEYS[1], 'revoked_at', ARGV[2])
local name = redis.call('hget', KEYS[1], 'name')
if redis.call('hget', KEYS[2], name) == ARGV[1] then redis.call('hdel', KEYS[2], name) end
return 1`;
const SET_LIMIT = `
if redis.call('exists', KEYS[1]) == 0 or redis.call('hexists', KEYS[1], 'revoked_at') == 1 then return 0 end
redis.call('hset', KEYS[1], 'limit', ARGV[1])
return 1`;
const TOUCH = `
if redis.call('exists', KEYS[1]) == 0 then return 0 end
local last = redis.call('hget', KEYS[1], 'last_used_day')
if last and last >= ARGV[1] then return 0 end
redis.call('hset', KEYS[1], 'last_used_day', ARGV[1])
return 1`;

interface StoredRecord extends KeyRecord {
  hash: string;
}

interface CacheEntry {
  record: StoredRecord | null;
  at: number;
}

/** The replies of a pipeline, throwing its first error. */
async function replies(pipeline: ChainableCommander): Promise<unknown[]> {
  const results = (await pipeline.exec()) ?? [];
  for (const [error] of results) if (error) throw error;
  return results.map(([, reply]) => reply);
}

function fromHash(hash: Record<string, string>): StoredRecord | null {
  if (!hash.id || !hash.hash) return null;
  return {
    id: hash.id,
    name: hash.name ?? '',
    hash: hash.hash,
    limit: hash.limit ?? '1/s',
    createdAt: hash.created_at ?? '',
    revokedAt: hash.revoked_at ?? null,
    lastUsedDay: hash.last_used_day ?? null,
  };
}

function publicRecord({ hash: _hash, ...record }: StoredRecord): KeyRecord {
  return record;
}

export interface RedisKeyStoreOptions {
  client: Redis;
  /** The HMAC key of the stored hashes, from configuration (never from Redis). */
  pepper: Buffer;
  /** Skips Redis while it stalls (shared with the budgets); recent records keep being honoured. */
  breaker?: RedisBreaker;
  /** Closes the client with the store (the CLI owns its client; a server shares one). */
  ownsClient?: boolean;
  now?: () => Date;
  clock?: () => number;
}

export class RedisKeyStore implements KeyStore {
  private readonly client: Redis;
  private readonly pepper: Buffer;
  private readonly pepperCheck: string;
  private readonly breaker: RedisBreaker | null;
  private pepperAgreed = false;
  private readonly ownsClient: boolean;
  private readonly now: () => Date;
  private readonly clock: () => number;
  private readonly cache = new Map<string, CacheEntry>();

  constructor(options: RedisKeyStoreOptions) {
    this.client = options.client;
    this.pepper = options.pepper;
    this.pepperCheck = pepperCheckOf(options.pepper);
    this.breaker = options.breaker ?? null;
    this.ownsClient = options.ownsClient ?? false;
    this.now = options.now ?? (() => new Date());
    this.clock = options.clock ?? Date.now;
  }

  /**
   * Checks once per store that the configured pepper is the one the keys were hashed with: the first
   * store writes the check value (SET NX), every other compares. A pepper still kept in Redis (a store
   * from before) or a different check value stops key handling with a message saying what to do.
   */
  private async agreePepper(): Promise<void> {
    if (this.pepperAgreed) return;
    const [legacy, , check] = await replies(this.client.pipeline().exists(LEGACY_PEPPER).set(PEPPER_CHECK, this.pepperCheck, 'NX').get(PEPPER_CHECK));
    if (Number(legacy) > 0) {
      throw new KeyStoreError('UNAVAILABLE', `the key pepper is still stored in Redis (${LEGACY_PEPPER}): move it into FUNDUS_KEY_PEPPER or FUNDUS_KEY_PEPPER_FILE and delete it from Redis (README "Security")`);
    }
    if (check !== this.pepperCheck) {
      throw new KeyStoreError('UNAVAILABLE', 'the configured key pepper (FUNDUS_KEY_PEPPER / FUNDUS_KEY_PEPPER_FILE) is not the one the keys in Redis were made with');
    }
    this.pepperAgreed = true;
  }

  private async run<T>(action: () => Promise<T>): Promise<T> {
    try {
      return await action();
    } catch (error) {
      if (error instanceof KeyStoreError) throw error;
      throw new KeyStoreError('UNAVAILABLE', 'the key store (Redis) is not reachable', { cause: error });
    }
  }

  private async fetch(id: string): Promise<CacheEntry> {
    if (this.breaker?.open) throw new Error('redis skipped while the breaker is open');
    try {
      await this.agreePepper();
      const hash = await this.client.hgetall(recordKey(id));
      const entry = { record: fromHash(hash), at: this.clock() };
      if (this.cache.size >= CACHE_ENTRIES) this.cache.clear();
      this.cache.set(id, entry);
      return entry;
    } catch (error) {
      if (!(error instanceof KeyStoreError)) this.breaker?.trip();
      throw error;
    }
  }

  async create(input: { name: string; limit: string }): Promise<CreatedKey> {
    const name = normaliseKeyName(input.name);
    const limit = normaliseKeyLimit(input.limit);
    const createdAt = this.now().toISOString();
    return this.run(async () => {
      await this.agreePepper();
      const pepper = this.pepper;
      for (;;) {
        const key = generateKey();
        const id = keyIdOf(key);
        const outcome = Number(await this.client.eval(CREATE, 3, recordKey(id), IDS, NAMES, id, name, hashKey(key, pepper), limit, createdAt));
        if (outcome === -1) continue; // 48-bit id collision: draw again
        if (outcome === 0) throw nameTaken(name);
        this.cache.delete(id);
        return { key, record: { id, name, limit, createdAt, revokedAt: null, lastUsedDay: null } };
      }
    });
  }

  async list(): Promise<KeyRecord[]> {
    return this.run(async () => {
      const ids = await this.client.smembers(IDS);
      if (!ids.length) return [];
      const pipeline = this.client.pipeline();
      for (const id of ids) pipeline.hgetall(recordKey(id));
      const records: KeyRecord[] = [];
      for (const hash of await replies(pipeline)) {
        const record = fromHash(hash as Record<string, string>);
        if (record) records.push(publicRecord(record));
      }
      return records.sort(newestFirst);
    });
  }

  async verify(key: string): Promise<KeyRecord | null> {
    if (!isWellFormedKey(key)) return null;
    const id = keyIdOf(key);
    let entry = this.cache.get(id);
    if (!entry || this.clock() - entry.at >= CACHE_MS) {
      try {
        entry = await this.fetch(id);
      } catch (error) {
        if (error instanceof KeyStoreError) throw error;
        if (!entry || this.clock() - entry.at > STALE_MS) throw new KeyStoreError('UNAVAILABLE', 'the key store (Redis) is not reachable', { cause: error });
      }
    }
    const { record } = entry;
    if (!record || record.revokedAt) return null;
    return keyMatchesHash(key, record.hash, this.pepper) ? publicRecord(record) : null;
  }

  async find(idOrName: string): Promise<KeyRecord | null> {
    return pickRecord(await this.list(), idOrName);
  }

  async revoke(id: string): Promise<boolean> {
    const done = await this.run(() => this.client.eval(REVOKE, 2, recordKey(id), NAMES, id, this.now().toISOString()));
    this.cache.delete(id);
    return Number(done) === 1;
  }

  async setLimit(id: string, limit: string): Promise<boolean> {
    const normalised = normaliseKeyLimit(limit);
    const done = await this.run(() => this.client.eval(SET_LIMIT, 1, recordKey(id), normalised));
    this.cache.delete(id);
    return Number(done) === 1;
  }

  async touch(id: string, day: string): Promise<void> {
    await this.run(() => this.client.eval(TOUCH, 1, recordKey(id), day));
  }

  async ping(): Promise<boolean> {
    try {
      return (await this.client.ping()) === 'PONG';
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    this.cache.clear();
    if (this.ownsClient) await closeRedis(this.client);
  }
}

import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { AccessConfig, AccessSettings, RateLimit } from './settings.ts';
import { AppError } from '../core/errors.ts';
import { ANONYMOUS_BUDGET, type Budgets, createMemoryBudgets, createRedisBudgets, INVALID_KEY_BUDGET, keyBudget } from './budgets.ts';
import type { GuardDecision, GuardRequest, Principal, RequestGuard } from './guard.ts';
import { type KeyRecord, type KeyStore, KeyStoreError } from './key-store.ts';
import { RedisKeyStore } from './key-store-redis.ts';
import { openSqliteKeyStore } from './key-store-sqlite.ts';
import { secretsEqual } from './keys.ts';
import { parseKeyLimit } from './limits.ts';
import type { AccessLog } from './log.ts';
import { HostPolicy } from './hosts.ts';
import { OriginPolicy, type OriginVerdict } from './origins.ts';
import { loadPepper } from './pepper-file.ts';
import { createPublicGuard } from './public-guard.ts';
import { RedisBreaker } from './redis-breaker.ts';
import { closeRedis, connectRedis, createRedisClient } from './redis-client.ts';
import { budgetHeaders, hostForbidden, keyInvalid, originForbidden, rateLimited } from './refusals.ts';

// The gateway's guard (spec sections 5, 7, 8; DESIGN.md section 5). Order of checks: host (403) ->
// key (401) -> origin (403) -> budget (429). Whatever is wrong with a presented key, the answer is
// 401: a request that carries credentials is never served as anonymous. Refused keys draw on a
// global budget of their own (FUNDUS_INVALID_KEY_LIMIT): beyond it they get 429, so guessing keys
// costs the guesser time, while valid keys are never slowed by someone else's guessing.

export interface AccessGuardOptions {
  config: {
    access: Pick<AccessSettings, 'allowedOrigins' | 'anonymousLimit'> & Partial<Pick<AccessSettings, 'invalidKeyLimit' | 'allowedHosts'>>;
    admin: AccessConfig['admin'];
  };
  keyStore: KeyStore;
  budgets: Budgets;
  log: AccessLog;
  /** Report ready while the key store is unreachable (Redis: the guard degrades instead of failing). */
  readyWithoutStore?: boolean;
  now?: () => Date;
}

const BEARER = /^Bearer +([!-~]+) *$/i;
const DEFAULT_INVALID_KEY_LIMIT: RateLimit = { points: 60, durationSeconds: 60 };
/** How long a connection's verified key is checked without its HMAC (it bounds how long the header is held, not revocation). */
const KNOWN_KEY_MS = 60_000;
const DAY_MS = 86_400_000;

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export function createAccessGuard(options: AccessGuardOptions): RequestGuard {
  const { keyStore, budgets, log } = options;
  const hosts = new HostPolicy(options.config.access.allowedHosts ?? []);
  const origins = new OriginPolicy(options.config.access.allowedOrigins, hosts);
  const invalidKeyLimit = options.config.access.invalidKeyLimit ?? DEFAULT_INVALID_KEY_LIMIT;
  const adminToken = options.config.admin.token;
  const anonymousLimit = options.config.access.anonymousLimit;
  const now = options.now ?? (() => new Date());
  const touchedOn = new Map<string, string>();

  /**
   * A key verified on a connection, for its next requests there (a keep-alive client sends the same
   * header every time): when the same header comes again within KNOWN_KEY_MS, the key store checks
   * that the key's row still holds the verified hash and is not revoked — read again after any
   * change, as `verify` does — without computing the HMAC again. The presented header is kept in
   * memory only with its connection (never stored or logged) and compared in constant time: behind
   * a proxy, one connection carries many clients' requests.
   */
  const knownKeys = new WeakMap<object, { presented: Buffer; record: KeyRecord; until: number }>();

  function knownKeyOf(connection: object | undefined, authorization: string): { principal: Principal; limit: RateLimit | 'unlimited' } | null {
    if (!connection || !keyStore.recheck) return null;
    const known = knownKeys.get(connection);
    if (!known) return null;
    const same =
      known.presented.length === authorization.length && Date.now() < known.until && timingSafeEqual(known.presented, Buffer.from(authorization, 'latin1'));
    const record = same ? keyStore.recheck(known.record) : null;
    const limit = record ? parseKeyLimit(record.limit) : null;
    if (!record || !limit) {
      knownKeys.delete(connection);
      return null;
    }
    known.record = record;
    noteUse(record.id);
    return { principal: { kind: 'key', keyId: record.id, name: record.name }, limit };
  }

  async function authenticate(headers: IncomingHttpHeaders, cors: Record<string, string>, connection?: object): Promise<{ principal: Principal; limit: RateLimit | 'unlimited' }> {
    const authorization = headerValue(headers.authorization);
    if (authorization === undefined) return { principal: { kind: 'anonymous' }, limit: anonymousLimit };
    let known;
    try {
      known = knownKeyOf(connection, authorization);
    } catch (error) {
      if (!(error instanceof KeyStoreError)) throw error;
      known = null; // verify below meets the same failure and answers it
    }
    if (known) return known;
    const token = BEARER.exec(authorization)?.[1];
    if (!token) throw await refusedKey(cors);
    // Admin tokens are never read keys (spec 5 rule 1), even if one happened to look like a key.
    if (adminToken && secretsEqual(token, adminToken)) throw await refusedKey(cors);
    let record;
    try {
      record = await keyStore.verify(token);
    } catch (error) {
      if (!(error instanceof KeyStoreError)) throw error;
      log.warn({ component: 'access', reason: error.code }, 'project key could not be checked');
      throw new AppError('ACCESS_UNAVAILABLE', { headers: { ...cors, 'retry-after': '1' }, cause: error });
    }
    const limit = record ? parseKeyLimit(record.limit) : null;
    if (!record || !limit) throw await refusedKey(cors);
    noteUse(record.id);
    if (connection && keyStore.recheck) knownKeys.set(connection, { presented: Buffer.from(authorization, 'latin1'), record, until: Date.now() + KNOWN_KEY_MS });
    return { principal: { kind: 'key', keyId: record.id, name: record.name }, limit };
  }

  /** 401 for a refused key, or 429 once refused keys have used up their global budget. */
  async function refusedKey(cors: Record<string, string>): Promise<AppError> {
    const outcome = await budgets.consume(INVALID_KEY_BUDGET, invalidKeyLimit);
    return outcome.admitted ? keyInvalid(cors) : rateLimited(outcome, cors);
  }

  // The day of last use is written at most once a day per key and process, off the request path.
  let today = '';
  let todayEnds = 0;
  function noteUse(keyId: string): void {
    const time = now().getTime();
    // The UTC day as text, made again only when the day changes (a toISOString per request otherwise).
    if (time >= todayEnds || time < todayEnds - DAY_MS) {
      today = new Date(time).toISOString().slice(0, 10);
      todayEnds = (Math.floor(time / DAY_MS) + 1) * DAY_MS;
    }
    const day = today;
    if (touchedOn.get(keyId) === day) return;
    touchedOn.set(keyId, day);
    keyStore.touch(keyId, day).catch(() => {
      touchedOn.delete(keyId);
      log.warn({ component: 'access' }, 'could not record the day of last key use');
    });
  }

  function checkOrigin(verdict: OriginVerdict): void {
    if (verdict.kind === 'forbidden') throw originForbidden();
  }

  return {
    async admit(request: GuardRequest): Promise<GuardDecision> {
      if (!hosts.allowsRequest(request.headers)) throw hostForbidden();
      const verdict = origins.judge(request.headers);
      const cors = origins.responseHeaders(verdict);
      const { principal, limit } = await authenticate(request.headers, cors, request.connection);
      checkOrigin(verdict);
      if (!request.consumesBudget || limit === 'unlimited') return { principal, headers: cors };
      const budget = principal.kind === 'key' ? keyBudget(principal.keyId) : ANONYMOUS_BUDGET;
      const outcome = await budgets.consume(budget, limit);
      if (!outcome.admitted) throw rateLimited(outcome, cors);
      return { principal, headers: { ...cors, ...budgetHeaders(outcome) } };
    },

    async preflight(request) {
      if (!hosts.allowsRequest(request.headers)) throw hostForbidden();
      const verdict = origins.judge(request.headers);
      if (verdict.kind !== 'allowed') throw originForbidden();
      return origins.preflightHeaders(verdict);
    },

    async ping() {
      if (options.readyWithoutStore) return true;
      const [store, budget] = await Promise.all([keyStore.ping(), budgets.ping()]);
      return store && budget;
    },

    async close() {},
  };
}

// Builds the access layer of one process from configuration (DESIGN.md section 5): Redis for keys
// and budgets when REDIS_URL is set, else SQLite under the data dir and in-process budgets.

export interface Access {
  /** The gateway's guard: project keys, origins, anonymous and per-key budgets. */
  guard: RequestGuard;
  /** The public search endpoints' guard: origins and the global public budget, no keys. */
  publicGuard: RequestGuard;
  keyStore: KeyStore;
  /** The process's budgets (serving threads ask them through services/access/budgets-port.ts). */
  budgets: Budgets;
  /** Closes the stores; closing both guards does the same. */
  close(): Promise<void>;
}

export type { AccessConfig };

/** How long start-up waits for Redis before serving from the in-process fallback. */
const REDIS_STARTUP_WAIT_MS = 3000;

/**
 * `sharedBudgets`: a serving thread's budgets, answered by the main thread (budgets-port.ts) — one
 * budget per client for the whole process, whichever thread a request reaches.
 */
export async function createAccess(config: AccessConfig, log: AccessLog, options: { sharedBudgets?: Budgets } = {}): Promise<Access> {
  let keyStore: KeyStore;
  let budgets: Budgets;
  let closeStores: () => Promise<void>;
  const redisUrl = config.access.redisUrl;
  if (redisUrl) {
    const client = createRedisClient(redisUrl, log);
    if (!(await connectRedis(client, REDIS_STARTUP_WAIT_MS))) log.warn({ component: 'access' }, 'redis not reachable at start-up: serving with in-process budgets until it is');
    const breaker = new RedisBreaker(client);
    keyStore = new RedisKeyStore({ client, pepper: loadPepper(config.access.keyPepper), breaker });
    budgets = options.sharedBudgets ?? createRedisBudgets({ client, fallbackShare: config.access.fallbackShare, breaker });
    closeStores = async () => {
      breaker.stop();
      await closeRedis(client);
      await options.sharedBudgets?.close();
    };
  } else {
    keyStore = openSqliteKeyStore(config.dataDir, undefined, loadPepper(config.access.keyPepper));
    budgets = options.sharedBudgets ?? createMemoryBudgets();
    closeStores = async () => {
      await keyStore.close();
      await options.sharedBudgets?.close();
    };
  }

  let closing: Promise<void> | null = null;
  const close = () => (closing ??= closeStores());
  let openGuards = 2;
  const closeWithLastGuard = (guard: RequestGuard): RequestGuard => {
    let closed = false;
    return {
      ...guard,
      async close() {
        if (!closed) openGuards -= 1;
        closed = true;
        if (openGuards === 0) await close();
      },
    };
  };
  const readyWithoutStore = Boolean(redisUrl);
  return {
    guard: closeWithLastGuard(createAccessGuard({ config, keyStore, budgets, log, readyWithoutStore })),
    publicGuard: closeWithLastGuard(createPublicGuard({ config, budgets, readyWithoutStore })),
    keyStore,
    budgets,
    close,
  };
}

import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RedisBreaker } from './redis-breaker.ts';
import type { RateLimit } from './settings.ts';
import { closeRedis } from './redis-client.ts';

// Request budgets (spec section 8, DESIGN.md section 5), counted with rate-limiter-flexible in
// fixed windows. A budget is named by what it serves, never by who calls: `anon` (all anonymous
// callers together), `public` (the public search endpoints), `key:<id>` (one project key),
// `badkey` (all requests with a refused key together). No IP address and no user identifier ever
// becomes part of a counter.

export const ANONYMOUS_BUDGET = 'anon';
export const PUBLIC_BUDGET = 'public';
export const INVALID_KEY_BUDGET = 'badkey';
export const keyBudget = (keyId: string): string => `key:${keyId}`;

export interface BudgetOutcome {
  admitted: boolean;
  limit: number;
  remaining: number;
  /**
   * Whole seconds until the window ends (at least 1): with a 429 this is the honest Retry-After,
   * because the fixed window frees its points exactly then.
   */
  resetSeconds: number;
}

export interface Budgets {
  consume(budget: string, limit: RateLimit): Promise<BudgetOutcome>;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

export function secondsUntil(msBeforeNext: number): number {
  return Math.max(1, Math.ceil(msBeforeNext / 1000));
}

function outcomeOf(result: RateLimiterRes, admitted: boolean, limit: RateLimit): BudgetOutcome {
  return { admitted, limit: limit.points, remaining: Math.max(0, result.remainingPoints), resetSeconds: secondsUntil(result.msBeforeNext) };
}

/** Budgets over limiters made per limit (a project key's limit can change; a new limit starts a new window). */
class LimiterBudgets implements Budgets {
  private readonly limiters = new Map<string, RateLimiterAbstract>();
  private readonly makeLimiter: (limit: RateLimit, prefix: string) => RateLimiterAbstract;
  private readonly onPing: () => Promise<boolean>;
  private readonly onClose: () => Promise<void>;

  constructor(makeLimiter: (limit: RateLimit, prefix: string) => RateLimiterAbstract, onPing: () => Promise<boolean>, onClose: () => Promise<void>) {
    this.makeLimiter = makeLimiter;
    this.onPing = onPing;
    this.onClose = onClose;
  }

  private limiterFor(limit: RateLimit): RateLimiterAbstract {
    const prefix = `fundus:rl:${limit.points}:${limit.durationSeconds}`;
    let limiter = this.limiters.get(prefix);
    if (!limiter) {
      limiter = this.makeLimiter(limit, prefix);
      this.limiters.set(prefix, limiter);
    }
    return limiter;
  }

  async consume(budget: string, limit: RateLimit): Promise<BudgetOutcome> {
    try {
      return outcomeOf(await this.limiterFor(limit).consume(budget, 1), true, limit);
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) return outcomeOf(rejection, false, limit);
      throw rejection;
    }
  }

  ping(): Promise<boolean> {
    return this.onPing();
  }

  close(): Promise<void> {
    return this.onClose();
  }
}

/** In-process budgets: one gateway process is the whole deployment (spec 8 rule 3). */
export function createMemoryBudgets(): Budgets {
  return new LimiterBudgets(
    (limit, keyPrefix) => new RateLimiterMemory({ keyPrefix, points: limit.points, duration: limit.durationSeconds }),
    async () => true,
    async () => {},
  );
}

/**
 * The limit one replica grants on its own while Redis is unreachable: its share of the global
 * limit, which may be a fraction of a call per window (1/s shared by three replicas: one call per
 * 3 s each), so that N replicas together never grant more than the global limit.
 */
export function insuranceLimit(limit: RateLimit, fallbackShare: number): RateLimit {
  const points = limit.points * fallbackShare;
  if (points >= 1) return { points: Math.floor(points), durationSeconds: limit.durationSeconds };
  return { points: 1, durationSeconds: Math.ceil(limit.durationSeconds / points) };
}

export interface RedisBudgetsOptions {
  client: Redis;
  /** Share of each budget a replica grants alone while Redis is down (FUNDUS_FALLBACK_SHARE). */
  fallbackShare: number;
  /** Skips Redis after a failure until it answers again; shared with the key store. */
  breaker: RedisBreaker;
  ownsClient?: boolean;
}

interface LimiterPair {
  shared: RateLimiterRedis;
  insurance: RateLimiterMemory;
}

/**
 * Budgets shared by all replicas through Redis. When Redis is unreachable or stalls, the breaker
 * opens and each consume goes to the in-memory insurance limiter (this replica's share) without
 * touching Redis; once a probe gets an answer, Redis counts again. No request waits for Redis twice.
 */
export function createRedisBudgets(options: RedisBudgetsOptions): Budgets {
  const { breaker } = options;
  const pairs = new Map<string, LimiterPair>();

  function pairFor(limit: RateLimit): LimiterPair {
    const keyPrefix = `fundus:rl:${limit.points}:${limit.durationSeconds}`;
    let pair = pairs.get(keyPrefix);
    if (!pair) {
      const insurance = insuranceLimit(limit, options.fallbackShare);
      pair = {
        shared: new RateLimiterRedis({
          storeClient: options.client,
          keyPrefix,
          points: limit.points,
          duration: limit.durationSeconds,
          rejectIfRedisNotReady: true,
          // Once a window is exhausted, this replica answers 429 from memory until the window ends,
          // instead of asking Redis again for every refused call.
          inMemoryBlockOnConsumed: limit.points,
        }),
        insurance: new RateLimiterMemory({ keyPrefix: `${keyPrefix}:insurance`, points: insurance.points, duration: insurance.durationSeconds }),
      };
      pairs.set(keyPrefix, pair);
    }
    return pair;
  }

  async function consumeWith(limiter: RateLimiterAbstract, budget: string, limit: RateLimit): Promise<BudgetOutcome> {
    try {
      return outcomeOf(await limiter.consume(budget, 1), true, limit);
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) return outcomeOf(rejection, false, limit);
      throw rejection;
    }
  }

  return {
    async consume(budget, limit) {
      const pair = pairFor(limit);
      if (!breaker.open) {
        try {
          return await consumeWith(pair.shared, budget, limit);
        } catch {
          breaker.trip();
        }
      }
      return consumeWith(pair.insurance, budget, limit);
    },
    async ping() {
      return options.client.status === 'ready' && !breaker.open;
    },
    async close() {
      if (options.ownsClient) {
        breaker.stop();
        await closeRedis(options.client);
      }
    },
  };
}

import { isRetryable } from './errors.ts';

// Writes (imports, upserts, deletes) are idempotent here (upsert by id, delete by id or filter), so
// they may be repeated. The typesense client already fails over between nodes within one call (5xx
// and network errors only); this adds exponential back-off across calls, for a cluster that is
// electing a leader, restarting, short of resources or rate-limiting (408, 429, 503 and "running
// out of resource" are retried too, see errors.ts).

export interface RetryPolicy {
  /** Hard ceiling of attempts. */
  attempts: number;
  /**
   * Keep retrying until this much time has passed since the first attempt (the attempts ceiling
   * still applies). A Raft election takes about 5 s (Typesense's election timeout), so writes need
   * a budget well past that; without a budget only `attempts` counts.
   */
  budgetMs?: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** Injected for tests; real waits otherwise. */
  sleep?: (ms: number) => Promise<void>;
  /** Injected for tests; Date.now otherwise. */
  now?: () => number;
  /** Injected for tests; Math.random otherwise. Full jitter keeps many writers from retrying in step. */
  random?: () => number;
  onRetry?: (attempt: number, delayMs: number, error: unknown) => void;
}

/** Up to 30 s of retries (several elections), at most 2 s apart. */
export const WRITE_RETRY: RetryPolicy = { attempts: 60, budgetMs: 30_000, baseDelayMs: 200, maxDelayMs: 2_000 };

export function backoffDelay(policy: RetryPolicy, attempt: number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(ceiling * (policy.random ?? Math.random)());
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function withRetry<T>(policy: RetryPolicy, operation: (attempt: number) => Promise<T>): Promise<T> {
  const now = policy.now ?? Date.now;
  const started = now();
  for (let attempt = 1; ; attempt++) {
    try {
      return await operation(attempt);
    } catch (error) {
      if (!isRetryable(error) || attempt >= policy.attempts) throw error;
      if (policy.budgetMs === undefined ? false : now() - started >= policy.budgetMs) throw error;
      const delay = backoffDelay(policy, attempt);
      policy.onRetry?.(attempt, delay, error);
      await (policy.sleep ?? realSleep)(delay);
    }
  }
}

import { isRetryable } from './errors.ts';

// Writes (imports, upserts, deletes) are idempotent here (upsert by id, delete by id or filter), so
// they may be repeated. The typesense client already fails over between nodes within one call; this
// adds exponential back-off across calls, for a cluster that is electing a leader or restarting.

export interface RetryPolicy {
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** Injected for tests; real waits otherwise. */
  sleep?: (ms: number) => Promise<void>;
  /** Injected for tests; Math.random otherwise. Full jitter keeps many writers from retrying in step. */
  random?: () => number;
  onRetry?: (attempt: number, delayMs: number, error: unknown) => void;
}

export const WRITE_RETRY: RetryPolicy = { attempts: 6, baseDelayMs: 250, maxDelayMs: 8_000 };

export function backoffDelay(policy: RetryPolicy, attempt: number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(ceiling * (policy.random ?? Math.random)());
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function withRetry<T>(policy: RetryPolicy, operation: (attempt: number) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await operation(attempt);
    } catch (error) {
      if (attempt >= policy.attempts || !isRetryable(error)) throw error;
      const delay = backoffDelay(policy, attempt);
      policy.onRetry?.(attempt, delay, error);
      await (policy.sleep ?? realSleep)(delay);
    }
  }
}

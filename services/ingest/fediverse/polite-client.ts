// A polite HTTP client for one instance's public API: a pause before every request, 429 answered by
// waiting the Retry-After (or the X-RateLimit-Reset Mastodon sends), a few retries on 5xx and network
// errors, and a hard time limit for the whole run. Waiting is injected so tests can record it.
// Requests go only to public addresses unless the policy allows more (guarded-fetch.ts); an
// injected fetch (tests) replaces that guard along with the network.

import { ADDRESS_REFUSED, type AddressPolicy } from '../sources/address-guard.ts';
import { guardedFetch } from './guarded-fetch.ts';

export type StopReason = 'end' | 'max_posts' | 'time_limit' | 'rate_limited' | 'http_error' | 'network_error' | 'address_refused';

export interface PoliteClientOptions extends AddressPolicy {
  delayMs: number;
  timeLimitMs: number;
  userAgent: string;
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  /** Monotonic milliseconds (for the time limit). */
  clock?: () => number;
  requestTimeoutMs?: number;
}

/** reason: why an address was refused (stop 'address_refused'). */
export type GetResult = { ok: true; status: number; headers: Headers; body: unknown } | { ok: false; status: number | null; stop: StopReason; reason?: string };

const RETRIES = 2;
const DEFAULT_RETRY_AFTER_S = 30;

/** Seconds from a Retry-After header: an integer or an HTTP date. */
export function retryAfterMs(value: string | null, nowMs: number): number {
  if (!value) return DEFAULT_RETRY_AFTER_S * 1000;
  if (/^\s*\d+\s*$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? DEFAULT_RETRY_AFTER_S * 1000 : Math.max(0, date - nowMs);
}

export class PoliteClient {
  requests = 0;
  waitedMs = 0;
  private readonly options: Required<Omit<PoliteClientOptions, 'fetch' | keyof AddressPolicy>> & { fetch: typeof fetch };
  private readonly deadline: number;
  private readonly closeAgent: () => Promise<void>;

  constructor(options: PoliteClientOptions) {
    const guarded = options.fetch ? null : guardedFetch({ allowPrivate: options.allowPrivate, allowedNetworks: options.allowedNetworks });
    this.closeAgent = guarded?.close ?? (async () => {});
    this.options = {
      fetch: options.fetch ?? guarded!.fetch,
      sleep: options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
      clock: options.clock ?? (() => performance.now()),
      requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
      delayMs: options.delayMs,
      timeLimitMs: options.timeLimitMs,
      userAgent: options.userAgent,
    };
    this.deadline = this.options.clock() + options.timeLimitMs;
  }

  /** Waits `ms` unless that would pass the time limit. */
  private async wait(ms: number): Promise<boolean> {
    if (this.options.clock() + ms > this.deadline) return false;
    if (ms > 0) {
      this.waitedMs += ms;
      await this.options.sleep(ms);
    }
    return true;
  }

  async getJson(url: string): Promise<GetResult> {
    let failures = 0;
    for (;;) {
      if (this.requests > 0 && !(await this.wait(this.options.delayMs))) return { ok: false, status: null, stop: 'time_limit' };
      this.requests++;
      let response: Response;
      try {
        response = await this.options.fetch(url, {
          headers: { accept: 'application/json', 'user-agent': this.options.userAgent },
          signal: AbortSignal.timeout(this.options.requestTimeoutMs),
        });
      } catch (error) {
        if ((error as { code?: string }).code === ADDRESS_REFUSED) {
          this.requests += ((error as { sent?: number }).sent ?? 0) - 1; // only the hops that went out count
          return { ok: false, status: null, stop: 'address_refused', reason: (error as Error).message };
        }
        if (++failures > RETRIES) return { ok: false, status: null, stop: 'network_error' };
        if (!(await this.wait(1000 * 2 ** failures))) return { ok: false, status: null, stop: 'time_limit' };
        continue;
      }
      if (response.status === 429) {
        await response.body?.cancel();
        const wait = retryAfterMs(response.headers.get('retry-after'), Date.now());
        if (!(await this.wait(wait))) return { ok: false, status: 429, stop: 'rate_limited' };
        continue;
      }
      if (response.status >= 500) {
        await response.body?.cancel();
        if (++failures > RETRIES) return { ok: false, status: response.status, stop: 'http_error' };
        if (!(await this.wait(1000 * 2 ** failures))) return { ok: false, status: response.status, stop: 'time_limit' };
        continue;
      }
      if (!response.ok) {
        await response.body?.cancel();
        return { ok: false, status: response.status, stop: 'http_error' };
      }
      let body: unknown;
      try {
        body = await response.json();
      } catch {
        return { ok: false, status: response.status, stop: 'http_error' };
      }
      await this.respectRateLimitHeaders(response.headers);
      return { ok: true, status: response.status, headers: response.headers, body };
    }
  }

  /** Closes the connections of the run. */
  close(): Promise<void> {
    return this.closeAgent();
  }

  /** Mastodon announces its own budget; when it is spent, wait for its reset instead of running into 429s. */
  private async respectRateLimitHeaders(headers: Headers): Promise<void> {
    if (headers.get('x-ratelimit-remaining') !== '0') return;
    const reset = Date.parse(headers.get('x-ratelimit-reset') ?? '');
    if (!Number.isNaN(reset)) await this.wait(Math.max(0, reset - Date.now()));
  }
}

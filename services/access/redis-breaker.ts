import type { Redis } from 'ioredis';

// A circuit breaker in front of Redis (issue 19). A stalled Redis (SIGSTOP, a full network buffer)
// keeps its connection "ready", so every command waits the full command timeout: without a breaker
// each request paid those 500 ms. After one failure or timeout the breaker opens: budgets go to the
// in-memory insurance and the key store to its recent records at once, while a background PING
// probes Redis about once a second; the first answer closes the breaker and Redis is used again.

export const PROBE_INTERVAL_MS = 1000;

export class RedisBreaker {
  private readonly client: Redis;
  private readonly probeMs: number;
  private opened = false;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(client: Redis, options: { probeMs?: number } = {}) {
    this.client = client;
    this.probeMs = options.probeMs ?? PROBE_INTERVAL_MS;
  }

  /** True while Redis is to be skipped. */
  get open(): boolean {
    return this.opened;
  }

  /** Records a failed or timed-out command: skip Redis until a probe succeeds. */
  trip(): void {
    this.opened = true;
    this.scheduleProbe();
  }

  private scheduleProbe(): void {
    if (this.timer || this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.client.ping().then(
        () => {
          this.opened = false;
        },
        () => this.scheduleProbe(),
      );
    }, this.probeMs);
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}

// Politeness per host: one request at a time, and a pause between the end of one request and the
// start of the next (the configured delay, or a larger robots.txt Crawl-delay, or Retry-After).

interface Lane {
  delayMs: number;
  lastEnd: number;
  pausedUntil: number;
  /** Settles when the request queued last on this host has ended. */
  tail: Promise<void>;
}

export class HostLanes {
  #lanes = new Map<string, Lane>();
  #defaultDelayMs: number;
  #signal: AbortSignal;

  constructor(defaultDelayMs: number, signal: AbortSignal) {
    this.#defaultDelayMs = defaultDelayMs;
    this.#signal = signal;
  }

  /** When the next request to this host may start (ms since the epoch). */
  readyAt(host: string): number {
    const lane = this.#lanes.get(host);
    return lane ? Math.max(lane.lastEnd + lane.delayMs, lane.pausedUntil) : 0;
  }

  /** Crawl-delay only ever lengthens the configured delay. */
  raiseDelay(host: string, delayMs: number): void {
    const lane = this.#lane(host);
    lane.delayMs = Math.max(lane.delayMs, delayMs);
  }

  pause(host: string, ms: number): void {
    const lane = this.#lane(host);
    lane.pausedUntil = Math.max(lane.pausedUntil, Date.now() + ms);
  }

  /**
   * Waits for the host's turn and for its pause to pass. The returned release must be called when
   * the request is over, body included: the next pause is measured from then.
   */
  async acquire(host: string): Promise<() => void> {
    const lane = this.#lane(host);
    const previous = lane.tail;
    let free = () => {};
    lane.tail = new Promise<void>((resolve) => (free = resolve));
    await previous;
    // Timers may fire a little early against Date.now(): wait until the time has really come.
    for (let wait = this.readyAt(host) - Date.now(); wait > 0 && !this.#signal.aborted; wait = this.readyAt(host) - Date.now()) {
      await sleep(wait, this.#signal);
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      lane.lastEnd = Date.now();
      free();
    };
  }

  #lane(host: string): Lane {
    let lane = this.#lanes.get(host);
    if (!lane) {
      lane = { delayMs: this.#defaultDelayMs, lastEnd: -Infinity, pausedUntil: 0, tail: Promise.resolve() };
      this.#lanes.set(host, lane);
    }
    return lane;
  }
}

/** Resolves after ms, or at once when the signal aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

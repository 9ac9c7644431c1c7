import { isIP } from 'node:net';
import { hostEntryOf, hostMatcher } from './allowed-hosts.ts';
import { CRAWL_DEFAULTS, type CrawlEvent, type CrawlOptions } from './crawl-options.ts';
import type { CrawlStateEntry } from './crawl-state.ts';
import { hasNonDocumentExtension, isDocumentResponse, isHtml, mediaTypeOf } from './document-filter.ts';
import { HostLanes } from './host-lanes.ts';
import { createCrawlAgent, sendRequest, type HttpResponse, type RequestSettings } from './http-fetch.ts';
import { withoutEncodingHeaders } from './http-message.ts';
import { decodeHtml, extractLinks, resolveUrl } from './links.ts';
import type { FetchedResource } from './resource.ts';
import { RobotsCache } from './robots-cache.ts';
import { parseXRobotsTag } from './robots-tags.ts';
import { MAX_SITEMAP_BYTES, parseSitemap, SitemapError } from './sitemap.ts';
import { defaultUserAgent, productTokenOf } from './user-agent.ts';

// A polite crawler: from seeds and sitemaps, inside the allowed hosts, one request at a time per
// host with a pause between requests, robots.txt first, every redirect hop checked again. It only
// fetches; what to do with a document is the consumer's business. A search never calls this.

export type { CrawlEvent, CrawlOptions } from './crawl-options.ts';
export { CRAWL_DEFAULTS } from './crawl-options.ts';

const MAX_REDIRECTS = 5;
const MAX_SITEMAP_NESTING = 3;
const MAX_SITEMAPS = 1000;
const MAX_RETRY_AFTER_MS = 120_000;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

type Task = { kind: 'page'; url: string; depth: number } | { kind: 'sitemap'; url: string; level: number };

/** An event and what to remember once the consumer has taken it. */
interface Delivery {
  event: CrawlEvent;
  commit?: () => void;
}

/** A page task's claim on the maxPages budget until its first request is made. */
interface PageSlot {
  starting: boolean;
}

type Followed =
  | { kind: 'response'; url: string; response: HttpResponse; prior: CrawlStateEntry | undefined }
  | { kind: 'skipped'; reason: string }
  | { kind: 'not_started' };

export async function* crawl(options: CrawlOptions): AsyncGenerator<CrawlEvent> {
  const run = new CrawlRun(options);
  try {
    run.start();
    for (;;) {
      run.pump();
      const delivery = run.next();
      if (delivery) {
        yield delivery.event;
        // Remember a page only after the consumer took it: a crash before that means a full re-fetch.
        delivery.commit?.();
        continue;
      }
      if (run.finished) return;
      await run.changed();
    }
  } finally {
    await run.close();
  }
}

class CrawlRun {
  readonly #options: CrawlOptions;
  readonly #limits: { maxPages: number; maxDepth: number; maxBytes: number; concurrency: number };
  readonly #settings: RequestSettings;
  readonly #token: string;
  readonly #isAllowedHost: (url: string) => boolean;
  readonly #stop = new AbortController();
  readonly #lanes: HostLanes;
  readonly #queues = new Map<string, Task[]>();
  readonly #busy = new Set<string>();
  readonly #seen = new Set<string>();
  readonly #sitemapsSeen = new Set<string>();
  readonly #robots: RobotsCache;
  readonly #running = new Set<Promise<void>>();
  readonly #deliveries: Delivery[] = [];
  #bufferedDocuments = 0;
  /** Page tasks running that have not made their first request yet. */
  #pagesStarting = 0;
  #pagesRequested = 0;
  #wake: (() => void) | null = null;
  #timers: NodeJS.Timeout[] = [];
  #wakeTimer: NodeJS.Timeout | null = null;
  #onExternalAbort = () => this.#halt('crawl stopped');

  constructor(options: CrawlOptions) {
    this.#options = options;
    this.#limits = {
      maxPages: options.maxPages ?? CRAWL_DEFAULTS.maxPages,
      maxDepth: options.maxDepth ?? CRAWL_DEFAULTS.maxDepth,
      maxBytes: options.maxBytes ?? CRAWL_DEFAULTS.maxBytes,
      concurrency: Math.max(1, options.concurrency ?? CRAWL_DEFAULTS.concurrency),
    };
    const userAgent = options.userAgent ?? defaultUserAgent();
    this.#token = productTokenOf(userAgent);
    const agent = createCrawlAgent({ allowPrivate: options.allowPrivate, allowedNetworks: options.allowedNetworks });
    this.#settings = { userAgent, timeoutMs: options.timeoutMs ?? CRAWL_DEFAULTS.timeoutMs, signal: this.#stop.signal, ...agent };
    this.#lanes = new HostLanes(options.delayMs ?? CRAWL_DEFAULTS.delayMs, this.#stop.signal);
    this.#robots = new RobotsCache(this.#lanes, this.#settings, this.#token);
    const startHosts = [...(options.seeds ?? []), ...(options.sitemaps ?? [])].flatMap((url) => {
      const resolved = resolveUrl(url);
      return resolved ? [hostEntryOf(resolved)] : [];
    });
    this.#isAllowedHost = hostMatcher(options.allowedHosts ?? startHosts);
  }

  start(): void {
    if (this.#options.signal?.aborted) return this.#halt('crawl stopped');
    this.#options.signal?.addEventListener('abort', this.#onExternalAbort, { once: true });
    if (this.#options.timeLimitMs !== undefined) {
      this.#timers.push(setTimeout(() => this.#halt('time limit reached'), this.#options.timeLimitMs));
    }
    for (const sitemap of this.#options.sitemaps ?? []) this.#enqueueSitemap(sitemap, 0);
    for (const seed of this.#options.seeds ?? []) {
      if (!resolveUrl(seed)) this.#skip(seed, 'invalid URL');
      else this.#enqueuePage(seed, 0);
    }
  }

  get finished(): boolean {
    if (this.#running.size > 0) return false;
    return this.#stop.signal.aborted || this.#pagesRequested >= this.#limits.maxPages || this.#queues.size === 0;
  }

  next(): Delivery | undefined {
    const delivery = this.#deliveries.shift();
    if (delivery?.event.kind === 'fetched') this.#bufferedDocuments--;
    return delivery;
  }

  changed(): Promise<void> {
    return new Promise((resolve) => (this.#wake = resolve));
  }

  /** Starts every task that may start now; sets a timer for the first host whose pause ends later. */
  pump(): void {
    if (this.#stop.signal.aborted) return;
    if (this.#pagesRequested >= this.#limits.maxPages) this.#queues.clear();
    const now = Date.now();
    let wakeAt = Infinity;
    // Fetched documents wait in memory until taken: do not run far ahead of the consumer.
    while (this.#running.size < this.#limits.concurrency && this.#bufferedDocuments < this.#limits.concurrency * 2) {
      let picked: string | null = null;
      for (const [host, tasks] of this.#queues) {
        if (this.#busy.has(host)) continue;
        if (tasks[0].kind === 'page' && this.#pagesRequested + this.#pagesStarting >= this.#limits.maxPages) continue;
        const readyAt = this.#lanes.readyAt(host);
        if (readyAt > now) {
          wakeAt = Math.min(wakeAt, readyAt);
          continue;
        }
        picked = host;
        break;
      }
      if (picked === null) break;
      // Round robin: the host goes to the back of the line.
      const tasks = this.#queues.get(picked)!;
      this.#queues.delete(picked);
      const task = tasks.shift()!;
      if (tasks.length) this.#queues.set(picked, tasks);
      this.#launch(picked, task);
    }
    if (this.#wakeTimer) clearTimeout(this.#wakeTimer);
    this.#wakeTimer = wakeAt < Infinity ? setTimeout(() => this.#notify(), wakeAt - now) : null;
  }

  async close(): Promise<void> {
    this.#halt('crawl stopped');
    this.#options.signal?.removeEventListener('abort', this.#onExternalAbort);
    for (const timer of this.#timers) clearTimeout(timer);
    if (this.#wakeTimer) clearTimeout(this.#wakeTimer);
    await Promise.allSettled([...this.#running]);
    await this.#settings.dispatcher.close().catch(() => {});
  }

  #launch(host: string, task: Task): void {
    this.#busy.add(host);
    const slot: PageSlot = { starting: task.kind === 'page' };
    if (slot.starting) this.#pagesStarting++;
    const work = (task.kind === 'page' ? this.#crawlPage(task, slot) : this.#crawlSitemap(task))
      .catch((error: unknown) => this.#skip(task.url, `internal error: ${error instanceof Error ? error.message : String(error)}`))
      .finally(() => {
        this.#busy.delete(host);
        if (slot.starting) this.#pagesStarting--;
        this.#running.delete(work);
        this.#notify();
      });
    this.#running.add(work);
  }

  async #crawlPage(task: Extract<Task, { kind: 'page' }>, slot: PageSlot): Promise<void> {
    const followed = await this.#follow(task.url, slot);
    if (followed.kind === 'not_started') return;
    if (followed.kind === 'skipped') return this.#skip(task.url, followed.reason);
    const { url, response, prior } = followed;
    const { status, headers } = response;
    const remember = (entry: Partial<CrawlStateEntry>) => () =>
      this.#options.state?.set(url, { etag: null, lastModified: null, lastStatus: status, fetchedAt: response.fetchedAt, links: [], ...entry });

    if (status === 304 && prior && (prior.etag || prior.lastModified)) {
      await response.discard();
      this.#deliver({ kind: 'not_modified', url }, remember({ ...prior, lastStatus: 304, fetchedAt: response.fetchedAt }));
      this.#followLinks(prior.links, task.depth); // the page is unchanged, so are its links
      return;
    }
    if (status === 429 || status === 503) this.#backOff(url, headers['retry-after']);
    const refuse = async (reason: string) => {
      await response.discard();
      this.#deliver({ kind: 'skipped', url: task.url, reason }, remember({}));
    };
    if (status !== 200) return refuse(`http status ${status}`);
    const contentType = headers['content-type'];
    if (!isDocumentResponse(contentType, url)) return refuse(`non-document content type ${mediaTypeOf(contentType) || '(none)'}`);
    if (Number(headers['content-length']) > this.#limits.maxBytes) return refuse(`too large (over ${this.#limits.maxBytes} bytes)`);
    const directives = parseXRobotsTag(headers['x-robots-tag'], this.#token);
    const html = isHtml(contentType);
    // noindex with follow: the page is not a document, but its links still count.
    if (directives.noindex && !(html && !directives.nofollow)) return refuse('noindex (x-robots-tag)');

    const body = await response.readBody(this.#limits.maxBytes);
    if (!body.ok) return this.#skip(task.url, body.reason);
    const links = html && !directives.nofollow ? extractLinks(decodeHtml(body.bytes, contentType), url, this.#token).links : [];
    this.#followLinks(links, task.depth);
    if (directives.noindex) {
      this.#deliver({ kind: 'skipped', url: task.url, reason: 'noindex (x-robots-tag)' }, remember({ links }));
      return;
    }
    const resource: FetchedResource = { url, bytes: body.bytes, headers: withoutEncodingHeaders(headers), fetchedAt: response.fetchedAt, status };
    this.#deliver({ kind: 'fetched', resource }, remember({ etag: headers.etag ?? null, lastModified: headers['last-modified'] ?? null, links }));
  }

  async #crawlSitemap(task: Extract<Task, { kind: 'sitemap' }>): Promise<void> {
    const followed = await this.#follow(task.url, null);
    if (followed.kind === 'not_started') return;
    if (followed.kind === 'skipped') return this.#skip(task.url, `sitemap: ${followed.reason}`);
    const { response } = followed;
    if (response.status !== 200) {
      await response.discard();
      return this.#skip(task.url, `sitemap: http status ${response.status}`);
    }
    const body = await response.readBody(MAX_SITEMAP_BYTES);
    if (!body.ok) return this.#skip(task.url, `sitemap: ${body.reason}`);
    try {
      const sitemap = parseSitemap(body.bytes);
      if (sitemap.kind === 'index') for (const child of sitemap.sitemaps) this.#enqueueSitemap(child, task.level + 1, followed.url);
      else for (const url of sitemap.urls) this.#enqueuePage(url, 0, followed.url);
    } catch (error) {
      if (!(error instanceof SitemapError)) throw error;
      this.#skip(task.url, `sitemap: ${error.message}`);
    }
  }

  /**
   * Requests a URL and follows redirects by hand: each hop must stay inside the allowed hosts, be
   * allowed by its robots.txt and not loop. A page counts against maxPages once, at its first request.
   */
  async #follow(startUrl: string, slot: PageSlot | null): Promise<Followed> {
    const isPage = slot !== null;
    const chain = [startUrl];
    let url = startUrl;
    for (let hop = 0; ; hop++) {
      const target = new URL(url);
      // An address literal is judged before robots.txt is asked for: the reason then names it.
      const literal = target.hostname.replace(/^\[|\]$/g, '');
      const refused = isIP(literal) ? this.#settings.checkAddress(literal) : null;
      if (refused) return hop === 0 ? { kind: 'skipped', reason: refused } : { kind: 'skipped', reason: `redirect target: ${refused}` };
      const robots = await this.#robots.rulesFor(target.origin);
      if (this.#stop.signal.aborted) return hop === 0 ? { kind: 'not_started' } : { kind: 'skipped', reason: this.#stopReason() };
      if (robots.refused) return { kind: 'skipped', reason: hop === 0 ? robots.refused : `redirect target: ${robots.refused}` };
      if (!robots.isAllowed(target.pathname + target.search)) {
        const reason = `${hop === 0 ? '' : 'redirect target '}disallowed by robots.txt`;
        return { kind: 'skipped', reason: robots.unavailable ? `${reason} (${robots.unavailable})` : reason };
      }
      if (robots.crawlDelayMs !== null) this.#lanes.raiseDelay(target.hostname, robots.crawlDelayMs);
      if (slot?.starting) {
        slot.starting = false;
        this.#pagesStarting--;
        if (this.#pagesRequested >= this.#limits.maxPages) return { kind: 'not_started' };
        this.#pagesRequested++;
      }
      const prior = isPage ? this.#options.state?.get(url) : undefined;
      const conditional: Record<string, string> = {};
      if (prior?.etag) conditional['if-none-match'] = prior.etag;
      if (prior?.lastModified) conditional['if-modified-since'] = prior.lastModified;
      const release = await this.#lanes.acquire(target.hostname);
      const outcome = await sendRequest(url, this.#settings, conditional, release);
      if (!outcome.ok) return { kind: 'skipped', reason: outcome.reason };
      const { response } = outcome;
      if (!REDIRECT_STATUSES.has(response.status)) return { kind: 'response', url, response, prior };

      await response.discard();
      const location = response.headers.location;
      if (!location) return { kind: 'skipped', reason: `http status ${response.status} without Location` };
      const next = resolveUrl(location, url);
      if (!next) return { kind: 'skipped', reason: 'redirect to a URL that is not http(s)' };
      if (chain.includes(next)) return { kind: 'skipped', reason: 'redirect loop' };
      if (hop + 1 > MAX_REDIRECTS) return { kind: 'skipped', reason: `too many redirects (more than ${MAX_REDIRECTS})` };
      if (!this.#isAllowedHost(next)) return { kind: 'skipped', reason: 'redirect outside allowed hosts' };
      if (isPage) {
        if (this.#seen.has(next)) return { kind: 'skipped', reason: 'redirect to a URL already queued or fetched' };
        this.#seen.add(next);
      }
      chain.push(next);
      url = next;
    }
  }

  #enqueuePage(raw: string, depth: number, base?: string): void {
    const url = resolveUrl(raw, base);
    if (!url || this.#seen.has(url)) return;
    this.#seen.add(url);
    const host = new URL(url).hostname;
    if (!this.#isAllowedHost(url)) return this.#skip(url, 'outside allowed hosts');
    if (hasNonDocumentExtension(url)) return this.#skip(url, 'non-document file extension');
    this.#queue(host).push({ kind: 'page', url, depth });
  }

  #enqueueSitemap(raw: string, level: number, base?: string): void {
    const url = resolveUrl(raw, base);
    if (!url) return this.#skip(raw, 'sitemap: invalid URL');
    if (this.#sitemapsSeen.has(url)) return;
    this.#sitemapsSeen.add(url);
    if (level > MAX_SITEMAP_NESTING) return this.#skip(url, 'sitemap: nested too deeply');
    if (this.#sitemapsSeen.size > MAX_SITEMAPS) return this.#skip(url, `sitemap: more than ${MAX_SITEMAPS} sitemaps`);
    const host = new URL(url).hostname;
    if (!this.#isAllowedHost(url)) return this.#skip(url, 'outside allowed hosts');
    this.#queue(host).push({ kind: 'sitemap', url, level });
  }

  #followLinks(links: string[], depth: number): void {
    if (depth >= this.#limits.maxDepth) return;
    for (const link of links) this.#enqueuePage(link, depth + 1);
  }

  #queue(host: string): Task[] {
    let tasks = this.#queues.get(host);
    if (!tasks) this.#queues.set(host, (tasks = []));
    return tasks;
  }

  #backOff(url: string, retryAfter: string | undefined): void {
    const seconds = Number(retryAfter);
    const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(retryAfter ?? '') - Date.now();
    if (ms > 0) this.#lanes.pause(new URL(url).hostname, Math.min(ms, MAX_RETRY_AFTER_MS));
  }

  #skip(url: string, reason: string): void {
    this.#deliver({ kind: 'skipped', url, reason });
  }

  #deliver(event: CrawlEvent, commit?: () => void): void {
    this.#deliveries.push({ event, commit });
    if (event.kind === 'fetched') this.#bufferedDocuments++;
    this.#notify();
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = null;
    wake?.();
  }

  #halt(reason: string): void {
    if (!this.#stop.signal.aborted) this.#stop.abort(new Error(reason));
    this.#queues.clear();
    this.#notify();
  }

  #stopReason(): string {
    const reason = this.#stop.signal.reason;
    return reason instanceof Error ? reason.message : 'crawl stopped';
  }
}

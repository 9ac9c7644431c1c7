import type { DocumentIndex } from '../../core/index-port.ts';
import { addSummaries, applyVerdicts, emptySummary, type ApplySummary } from './apply.ts';
import { statusVerdict } from './mastodon.ts';
import { PoliteClient, type PoliteClientOptions, type StopReason } from './polite-client.ts';
import type { PostContent } from './post-document.ts';

// `fundus fediverse fetch`: pages an instance's public local timeline
// (/api/v1/timelines/public?local=true&limit=40, then max_id / the Link rel="next" URL) politely.
//
// Deletions: a post missing from the pages we read proves nothing (it may just be older than the
// window). So after paging, stored posts of this instance whose creation time lies inside the window
// we read but that did not appear are looked up one by one (/api/v1/statuses/:id); only an explicit
// 404 or 410 removes one, and a post that comes back changed is updated (or removed when it is no
// longer public or its author opted out).

export const PAGE_SIZE = 40;

export interface FetchTimelineOptions extends Partial<Omit<PoliteClientOptions, 'userAgent'>> {
  /** Instance host name, e.g. "social.example". */
  instance: string;
  /** Where its API is; default https://<instance>. Tests pass http://127.0.0.1:PORT (with allowedNetworks). */
  baseUrl?: string;
  maxPosts?: number;
  /** At most this many missing posts are looked up per run. */
  recheckLimit?: number;
  userAgent?: string;
  now?: () => Date;
  onPage?: (page: { number: number; statuses: number }) => void;
}

export interface FetchSummary extends ApplySummary {
  requests: number;
  pages: number;
  seen: number;
  rechecked: number;
  waitedMs: number;
  stopped: StopReason;
  httpStatus: number | null;
  /** Why an address was refused (stopped: 'address_refused'), else null. */
  refused: string | null;
}

export const DEFAULT_USER_AGENT = 'Fundus/0.1 (read-only search of public posts; honours indexable, discoverable, noindex and #nobot)';

export const DEFAULT_FETCH = { maxPosts: 400, delayMs: 1000, timeLimitMs: 300_000, recheckLimit: 40 } as const;

/** The rel="next" URL of a Link header, when it stays on the same origin. */
export function nextLink(header: string | null, origin: string): string | null {
  for (const part of (header ?? '').split(',')) {
    const match = /<([^>]+)>\s*;(?:[^;]*;)*\s*rel="?([^";]*)"?/.exec(part.trim());
    if (!match || !match[2].split(/\s+/).includes('next')) continue;
    try {
      const url = new URL(match[1], origin);
      return url.origin === origin ? url.href : null;
    } catch {
      return null;
    }
  }
  return null;
}

function statusIdOf(status: unknown): string | null {
  const id = (status as { id?: unknown } | null)?.id;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : null;
}

export async function fetchTimeline(index: DocumentIndex, options: FetchTimelineOptions): Promise<FetchSummary> {
  const base = new URL(options.baseUrl ?? `https://${options.instance}`);
  const origin = base.origin;
  const client = new PoliteClient({
    delayMs: options.delayMs ?? DEFAULT_FETCH.delayMs,
    timeLimitMs: options.timeLimitMs ?? DEFAULT_FETCH.timeLimitMs,
    userAgent: options.userAgent ?? DEFAULT_USER_AGENT,
    fetch: options.fetch,
    sleep: options.sleep,
    clock: options.clock,
    allowPrivate: options.allowPrivate,
    allowedNetworks: options.allowedNetworks,
  });
  try {
    return await readInstance(index, options, client, origin);
  } finally {
    await client.close();
  }
}

async function readInstance(index: DocumentIndex, options: FetchTimelineOptions, client: PoliteClient, origin: string): Promise<FetchSummary> {
  const now = options.now ?? (() => new Date());
  const maxPosts = options.maxPosts ?? DEFAULT_FETCH.maxPosts;
  const applied = emptySummary();
  const seen = new Set<string>();
  let window = null as { oldest: number; newest: number } | null;
  let pages = 0;
  let stopped: StopReason = 'end';
  let httpStatus: number | null = null;
  let refused: string | null = null;
  let url: string | null = new URL(`/api/v1/timelines/public?local=true&limit=${PAGE_SIZE}`, origin).href;

  while (url) {
    const result = await client.getJson(url);
    if (!result.ok) {
      stopped = result.stop;
      httpStatus = result.status;
      refused = result.reason ?? null;
      break;
    }
    const statuses = Array.isArray(result.body) ? result.body : [];
    const fresh = statuses.filter((status) => {
      const id = statusIdOf(status);
      return id !== null && !seen.has(id);
    });
    if (fresh.length === 0) break;
    pages++;
    options.onPage?.({ number: pages, statuses: fresh.length });
    const batch = fresh.slice(0, maxPosts - seen.size);
    for (const status of batch) {
      seen.add(statusIdOf(status)!);
      const created = Date.parse((status as { created_at?: string }).created_at ?? '');
      if (!Number.isNaN(created)) window = { oldest: Math.min(window?.oldest ?? created, created), newest: Math.max(window?.newest ?? created, created) };
    }
    addSummaries(applied, await applyVerdicts(index, batch.map((status) => statusVerdict(status, { instance: options.instance })), now()));
    if (seen.size >= maxPosts) {
      stopped = 'max_posts';
      break;
    }
    const lastId = statusIdOf(statuses.at(-1));
    url = nextLink(result.headers.get('link'), origin) ?? (lastId ? `${origin}/api/v1/timelines/public?local=true&limit=${PAGE_SIZE}&max_id=${encodeURIComponent(lastId)}` : null);
  }

  let rechecked = 0;
  if (window && (stopped === 'end' || stopped === 'max_posts')) {
    const missing = await storedButUnseen(index, options.instance, window, seen, options.recheckLimit ?? DEFAULT_FETCH.recheckLimit);
    for (const statusId of missing) {
      const result = await client.getJson(`${origin}/api/v1/statuses/${encodeURIComponent(statusId.status)}`);
      if (!result.ok && (result.status === 404 || result.status === 410)) {
        if (await index.remove(statusId.documentId)) applied.removed++;
      } else if (result.ok) {
        addSummaries(applied, await applyVerdicts(index, [statusVerdict(result.body, { instance: options.instance })], now()));
      } else if (result.stop !== 'http_error') {
        if (result.stop === 'address_refused') [stopped, refused] = [result.stop, result.reason ?? null];
        break; // time limit, rate limit or a refused address: leave the rest for the next run
      }
      rechecked++;
    }
  }
  return { ...applied, requests: client.requests, pages, seen: seen.size, rechecked, waitedMs: client.waitedMs, stopped, httpStatus, refused };
}

const SCAN_PAGE = 100;
const SCAN_MAX = 5000;

/** Stored posts of this instance created inside the window we read that did not show up in it. */
async function storedButUnseen(
  index: DocumentIndex,
  instance: string,
  window: { oldest: number; newest: number },
  seen: Set<string>,
  limit: number,
): Promise<{ status: string; documentId: string }[]> {
  const missing: { status: string; documentId: string }[] = [];
  for (let offset = 0; offset < SCAN_MAX && missing.length < limit; offset += SCAN_PAGE) {
    const page = await index.search({ terms: [], host: instance, order: 'newest', limit: SCAN_PAGE, offset, countBudgetMs: 1 });
    for (const { document } of page.hits) {
      const created = Date.parse(document.publishedAt ?? '');
      if (created < window.oldest) return missing;
      const statusId = (document.content as Partial<PostContent>).status_id;
      if (created <= window.newest && statusId && !seen.has(statusId) && missing.length < limit) missing.push({ status: statusId, documentId: document.id });
    }
    if (!page.hasMore) break;
  }
  return missing;
}

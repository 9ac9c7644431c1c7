import type { CrawlState } from './crawl-state.ts';
import type { FetchedResource } from './resource.ts';

// What a crawl is told and what it reports.

export type CrawlEvent =
  | { kind: 'fetched'; resource: FetchedResource }
  | { kind: 'not_modified'; url: string }
  | { kind: 'skipped'; url: string; reason: string };

export interface CrawlOptions {
  seeds?: string[];
  sitemaps?: string[];
  /** Host names with optional port; "*.example.org" also allows its subdomains (allowed-hosts.ts). Default: the hosts and ports of seeds and sitemaps. */
  allowedHosts?: string[];
  /** Connect to non-public addresses too (loopback, private, link-local...): an intranet crawl. */
  allowPrivate?: boolean;
  /** CIDR ranges allowed although not public ("10.1.0.0/16"); narrower than allowPrivate. */
  allowedNetworks?: string[];
  /** Page requests at most (robots.txt and sitemaps not counted). */
  maxPages?: number;
  /** Link hops from a seed or sitemap entry (0: those pages only). */
  maxDepth?: number;
  /** Larger responses are aborted while being read. */
  maxBytes?: number;
  /** Per request, headers and body together. */
  timeoutMs?: number;
  /** The whole crawl; requests still running then are aborted. */
  timeLimitMs?: number;
  /** Pause between requests to one host; a larger robots.txt Crawl-delay wins. */
  delayMs?: number;
  userAgent?: string;
  /** Hosts crawled at the same time (never more than one request per host). */
  concurrency?: number;
  /** Validators from earlier runs, for conditional requests; written as events are consumed. */
  state?: CrawlState;
  /** Stops the crawl from outside. */
  signal?: AbortSignal;
}

export const CRAWL_DEFAULTS = {
  maxPages: 1000,
  maxDepth: 5,
  maxBytes: 50 * 1024 * 1024,
  timeoutMs: 30_000,
  delayMs: 1000,
  concurrency: 4,
} as const;

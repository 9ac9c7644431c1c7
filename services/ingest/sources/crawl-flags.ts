import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parseNetwork } from './address-guard.ts';
import type { CrawlState } from './crawl-state.ts';
import { CRAWL_DEFAULTS, type CrawlEvent, type CrawlOptions } from './crawl-options.ts';
import type { WarcWriter } from './warc-writer.ts';

// The flags of `fundus crawl`, parsed into typed options. The CLI's main wires them to the crawler,
// the crawl state file in the data directory, the optional WARC archive and the ingest pipeline.

export const CRAWL_USAGE = `fundus crawl --data DIR (--seed URL | --sitemap URL)... [options]

Fetches documents from the web into the index in DIR: from seed URLs (following links) and
sitemaps, inside the allowed hosts, obeying robots.txt, noindex and a pause per host. Pages
fetched before are re-fetched conditionally (ETag / Last-Modified).

  --seed URL          start page (repeatable)
  --sitemap URL       sitemap or sitemap index, .xml or .xml.gz (repeatable)
  --allow-host HOST   host to stay in, with its port if not 80/443 (repeatable;
                      "*.example.org" for subdomains, "intra.example:8080" for a port);
                      default: the hosts and ports of the seeds and sitemaps
  --allow-private     also connect to loopback, private, link-local and other non-public
                      addresses (an intranet crawl); default: public addresses only, checked
                      after DNS resolution on every request, link and redirect
  --allow-net CIDR    allow one non-public network only, e.g. 10.1.0.0/16 (repeatable)
  --max-pages N       page requests at most (default ${CRAWL_DEFAULTS.maxPages})
  --max-depth N       link hops from a seed (default ${CRAWL_DEFAULTS.maxDepth}; 0: seeds only)
  --delay-ms N        pause between requests to one host (default ${CRAWL_DEFAULTS.delayMs}; a longer
                      robots.txt Crawl-delay wins)
  --timeout-ms N      per request (default ${CRAWL_DEFAULTS.timeoutMs})
  --max-bytes N       larger responses are aborted (default ${CRAWL_DEFAULTS.maxBytes})
  --time-limit-s N    stop the whole crawl after N seconds
  --concurrency N     hosts crawled at once (default ${CRAWL_DEFAULTS.concurrency})
  --user-agent TEXT   default "FundusBot/<version> (+<homepage>)"
  --warc-out FILE     also archive every fetched document in a WARC file (.warc.gz)`;

export interface CrawlArgs {
  help: boolean;
  seeds: string[];
  sitemaps: string[];
  /** Undefined: the crawler's default, the hosts of seeds and sitemaps. */
  allowedHosts: string[] | undefined;
  allowPrivate: boolean;
  allowedNetworks: string[];
  maxPages: number;
  maxDepth: number;
  delayMs: number;
  timeoutMs: number;
  maxBytes: number;
  timeLimitMs: number | undefined;
  concurrency: number;
  userAgent: string | undefined;
  warcOut: string | undefined;
  dataDir: string | undefined;
}

const FLAGS = {
  seed: { type: 'string', multiple: true },
  sitemap: { type: 'string', multiple: true },
  'allow-host': { type: 'string', multiple: true },
  'allow-private': { type: 'boolean' },
  'allow-net': { type: 'string', multiple: true },
  'max-pages': { type: 'string' },
  'max-depth': { type: 'string' },
  'delay-ms': { type: 'string' },
  'timeout-ms': { type: 'string' },
  'max-bytes': { type: 'string' },
  'time-limit-s': { type: 'string' },
  concurrency: { type: 'string' },
  'user-agent': { type: 'string' },
  'warc-out': { type: 'string' },
  data: { type: 'string' },
  help: { type: 'boolean' },
} as const;

/** Throws an Error whose message starts with the bad flag. */
export function parseCrawlArgs(argv: string[]): CrawlArgs {
  const { values, positionals } = parseFlags(argv);
  if (positionals.length) throw new Error(`unexpected argument "${positionals[0]}": pages to crawl are given with --seed URL`);
  const args: CrawlArgs = {
    help: values.help ?? false,
    seeds: (values.seed ?? []).map((url) => httpUrl('seed', url)),
    sitemaps: (values.sitemap ?? []).map((url) => httpUrl('sitemap', url)),
    allowedHosts: values['allow-host']?.map(hostName),
    allowPrivate: values['allow-private'] ?? false,
    allowedNetworks: (values['allow-net'] ?? []).map(network),
    maxPages: integer('max-pages', values['max-pages'], CRAWL_DEFAULTS.maxPages, 1),
    maxDepth: integer('max-depth', values['max-depth'], CRAWL_DEFAULTS.maxDepth, 0),
    delayMs: integer('delay-ms', values['delay-ms'], CRAWL_DEFAULTS.delayMs, 0),
    timeoutMs: integer('timeout-ms', values['timeout-ms'], CRAWL_DEFAULTS.timeoutMs, 1),
    maxBytes: integer('max-bytes', values['max-bytes'], CRAWL_DEFAULTS.maxBytes, 1),
    timeLimitMs: values['time-limit-s'] === undefined ? undefined : integer('time-limit-s', values['time-limit-s'], 0, 1) * 1000,
    concurrency: integer('concurrency', values.concurrency, CRAWL_DEFAULTS.concurrency, 1),
    userAgent: nonEmpty('user-agent', values['user-agent']),
    warcOut: nonEmpty('warc-out', values['warc-out']),
    dataDir: nonEmpty('data', values.data),
  };
  if (!args.help && args.seeds.length === 0 && args.sitemaps.length === 0) {
    throw new Error('--seed: give at least one --seed URL or --sitemap URL');
  }
  return args;
}

/** The crawler's options for these flags; the state store is opened by the caller (crawlStateFile). */
export function crawlOptionsFrom(args: CrawlArgs, state?: CrawlState, signal?: AbortSignal): CrawlOptions {
  return {
    seeds: args.seeds,
    sitemaps: args.sitemaps,
    allowedHosts: args.allowedHosts,
    allowPrivate: args.allowPrivate,
    allowedNetworks: args.allowedNetworks,
    maxPages: args.maxPages,
    maxDepth: args.maxDepth,
    delayMs: args.delayMs,
    timeoutMs: args.timeoutMs,
    maxBytes: args.maxBytes,
    timeLimitMs: args.timeLimitMs,
    concurrency: args.concurrency,
    userAgent: args.userAgent,
    state,
    signal,
  };
}

/** Where a data directory keeps the crawler's memory of validators. */
export function crawlStateFile(dataDir: string): string {
  return join(dataDir, 'crawl-state.sqlite');
}

/** Passes every event on and archives each fetched document first (--warc-out). */
export async function* archiveFetched(events: AsyncIterable<CrawlEvent>, writer: WarcWriter): AsyncGenerator<CrawlEvent> {
  for await (const event of events) {
    if (event.kind === 'fetched') await writer.write(event.resource);
    yield event;
  }
}

/** parseArgs' own TypeError (code ERR_PARSE_ARGS_*) already names the flag: "Unknown option '--x'". */
function parseFlags(argv: string[]) {
  return parseArgs({ args: argv, options: FLAGS, allowPositionals: true, strict: true });
}

function integer(flag: string, raw: string | undefined, fallback: number, min: number): number {
  if (raw === undefined) return fallback;
  const value = Number(raw.trim());
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(value) || value < min) {
    throw new Error(`--${flag}: must be a whole number of at least ${min}, got "${raw}"`);
  }
  return value;
}

function httpUrl(flag: string, raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new Error(`--${flag}: not a URL: "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`--${flag}: only http and https URLs can be crawled, got "${raw}"`);
  return url.href;
}

function hostName(raw: string): string {
  const value = raw.trim().toLowerCase();
  const name = value.replace(/^\*\./, '');
  if (!/^[\p{L}\p{N}.-]+(:\d{1,5})?$/u.test(name) && !/^\[[0-9a-f:.]+\](:\d{1,5})?$/.test(name)) {
    throw new Error(`--allow-host: not a host name: "${raw}" (give e.g. example.org, example.org:8080 or *.example.org, no scheme or path)`);
  }
  return value;
}

function network(raw: string): string {
  try {
    parseNetwork(raw);
  } catch (error) {
    throw new Error(`--allow-net: ${(error as Error).message}`);
  }
  return raw.trim();
}

function nonEmpty(flag: string, raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  if (raw.trim() === '') throw new Error(`--${flag}: must not be empty`);
  return raw;
}

import { describe, expect, it } from 'vitest';
import { crawlOptionsFrom, crawlStateFile, parseCrawlArgs } from '../../services/ingest/sources/crawl-flags.ts';
import { CRAWL_DEFAULTS } from '../../services/ingest/sources/crawler.ts';

describe('parseCrawlArgs', () => {
  it('reads every flag, repeatable ones as lists', () => {
    const args = parseCrawlArgs([
      '--seed', 'https://example.org/', '--seed', 'https://www.example.org/start',
      '--sitemap', 'https://example.org/sitemap.xml.gz',
      '--allow-host', 'example.org', '--allow-host', '*.Example.org',
      '--max-pages', '50', '--max-depth', '0', '--delay-ms', '2000', '--timeout-ms', '10000',
      '--max-bytes', '1048576', '--time-limit-s', '60', '--concurrency', '2',
      '--user-agent', 'FundusBot/1 (+https://fundus.example/bot)', '--warc-out', 'out.warc.gz', '--data', 'data',
    ]);
    expect(args).toEqual({
      help: false,
      seeds: ['https://example.org/', 'https://www.example.org/start'],
      sitemaps: ['https://example.org/sitemap.xml.gz'],
      allowedHosts: ['example.org', '*.example.org'],
      allowPrivate: false,
      allowedNetworks: [],
      maxPages: 50,
      maxDepth: 0,
      delayMs: 2000,
      timeoutMs: 10000,
      maxBytes: 1048576,
      timeLimitMs: 60_000,
      concurrency: 2,
      userAgent: 'FundusBot/1 (+https://fundus.example/bot)',
      warcOut: 'out.warc.gz',
      dataDir: 'data',
    });
  });

  it('fills in the defaults', () => {
    const args = parseCrawlArgs(['--sitemap', 'https://example.org/sitemap.xml']);
    expect(args).toMatchObject({ seeds: [], allowedHosts: undefined, maxPages: CRAWL_DEFAULTS.maxPages, delayMs: CRAWL_DEFAULTS.delayMs, timeLimitMs: undefined, warcOut: undefined });
    expect(crawlOptionsFrom(args)).toMatchObject({ sitemaps: ['https://example.org/sitemap.xml'], maxDepth: CRAWL_DEFAULTS.maxDepth, state: undefined });
  });

  it.each([
    [['--seed', 'https://e.org/', '--max-pages', 'zehn'], /^--max-pages: /],
    [['--seed', 'https://e.org/', '--max-pages', '0'], /^--max-pages: /],
    [['--seed', 'https://e.org/', '--delay-ms', '-5'], /--delay-ms/],
    [['--seed', 'https://e.org/', '--time-limit-s', '1.5'], /^--time-limit-s: /],
    [['--seed', 'ftp://e.org/'], /^--seed: /],
    [['--seed', 'kein url'], /^--seed: /],
    [['--sitemap', 'sitemap.xml'], /^--sitemap: /],
    [['--seed', 'https://e.org/', '--allow-host', 'https://e.org/x'], /^--allow-host: /],
    [['--seed', 'https://e.org/', '--warc-out', ''], /^--warc-out: /],
    [['--seed', 'https://e.org/', '--allow-net', '10.0.0.0/33'], /^--allow-net: /],
    [['--seed', 'https://e.org/', '--allow-net', 'intranet'], /^--allow-net: /],
    [['--seed', 'https://e.org/', '--speed', '3'], /--speed/],
    [['--seed'], /--seed/],
    [['--max-pages', '3'], /^--seed: /],
    [['https://e.org/'], /--seed URL/],
  ])('rejects %j naming the flag', (argv, message) => {
    expect(() => parseCrawlArgs(argv)).toThrow(message);
  });

  it('reads --allow-private, --allow-net and host:port entries', () => {
    const args = parseCrawlArgs(['--seed', 'http://10.1.2.3:8080/', '--allow-private', '--allow-net', '10.1.0.0/16', '--allow-net', 'fd00::1', '--allow-host', 'intra.example:8080', '--allow-host', '[fd00::1]:81']);
    expect(args).toMatchObject({ allowPrivate: true, allowedNetworks: ['10.1.0.0/16', 'fd00::1'], allowedHosts: ['intra.example:8080', '[fd00::1]:81'] });
    expect(crawlOptionsFrom(args)).toMatchObject({ allowPrivate: true, allowedNetworks: ['10.1.0.0/16', 'fd00::1'] });
  });

  it('lets --help through without seeds', () => {
    expect(parseCrawlArgs(['--help']).help).toBe(true);
  });

  it('keeps the crawl state in the data directory', () => {
    expect(crawlStateFile('/var/lib/fundus')).toBe('/var/lib/fundus/crawl-state.sqlite');
  });
});

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import zlib from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { crawl, type CrawlEvent, type CrawlOptions } from '../../services/ingest/sources/crawler.ts';
import { createMemoryCrawlState, openCrawlState, type CrawlState } from '../../services/ingest/sources/crawl-state.ts';
import { archiveFetched } from '../../services/ingest/sources/crawl-flags.ts';
import { createWarcWriter } from '../../services/ingest/sources/warc-writer.ts';
import { readWarc } from '../../services/ingest/sources/warc-reader.ts';

// Every test crawls a server of its own on 127.0.0.1; hosts outside it are only ever linked to
// (other.invalid), never contacted: the crawler must refuse them before any request.

type Route = (req: IncomingMessage, res: ServerResponse) => void;

interface TestSite {
  origin: string;
  /** Paths in the order the server received them, with arrival times (ms). */
  requests: { path: string; at: number; headers: IncomingMessage['headers'] }[];
  close(): Promise<void>;
}

const sites: TestSite[] = [];
afterEach(async () => {
  await Promise.all(sites.splice(0).map((site) => site.close()));
});

async function startSite(routes: Record<string, Route>): Promise<TestSite> {
  const requests: TestSite['requests'] = [];
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    requests.push({ path, at: Date.now(), headers: req.headers });
    const route = routes[path] ?? (path === '/robots.txt' ? text('', 404) : text('not found', 404));
    route(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const site: TestSite = {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  sites.push(site);
  return site;
}

function text(body: string | Buffer, status = 200, headers: Record<string, string> = {}): Route {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers });
    res.end(body);
  };
}

function html(body: string, headers: Record<string, string> = {}, status = 200): Route {
  return text(`<!DOCTYPE html><html lang="de"><head><title>Seite</title></head><body>${body}</body></html>`, status, { 'content-type': 'text/html; charset=utf-8', ...headers });
}

function redirect(location: string, status = 301): Route {
  return (_req, res) => {
    res.writeHead(status, { location });
    res.end();
  };
}

async function collect(options: CrawlOptions): Promise<CrawlEvent[]> {
  const events: CrawlEvent[] = [];
  for await (const event of crawl({ allowPrivate: true, delayMs: 0, timeoutMs: 5000, userAgent: 'FundusBot/test (+https://fundus.invalid/bot)', ...options })) events.push(event);
  return events;
}

const fetchedPaths = (events: CrawlEvent[]) =>
  events.flatMap((e) => (e.kind === 'fetched' ? [new URL(e.resource.url).pathname] : [])).sort();
const skipped = (events: CrawlEvent[]) =>
  Object.fromEntries(events.flatMap((e) => (e.kind === 'skipped' ? [[e.url.replace(/^http:\/\/127\.0\.0\.1:\d+/, ''), e.reason]] : [])));
const requested = (site: TestSite) => site.requests.map((r) => r.path);

describe('robots.txt', () => {
  it('obeys Disallow with the longest match and Allow winning over a shorter Disallow', async () => {
    const site = await startSite({
      '/robots.txt': text('User-agent: *\nDisallow: /private/\nAllow: /private/open\n\nUser-agent: otherbot\nDisallow: /\n'),
      '/': html('<a href="/private/secret">x</a> <a href="/private/open.html">y</a> <a href="/public">z</a>'),
      '/private/open.html': html('offen'),
      '/public': html('öffentlich'),
      '/private/secret': html('geheim'),
    });
    const events = await collect({ seeds: [`${site.origin}/`] });
    expect(fetchedPaths(events)).toEqual(['/', '/private/open.html', '/public']);
    expect(skipped(events)).toEqual({ '/private/secret': 'disallowed by robots.txt' });
    expect(requested(site)).not.toContain('/private/secret');
    expect(requested(site).filter((path) => path === '/robots.txt')).toHaveLength(1); // cached per host
  });

  it('treats a missing robots.txt (404) as allow all', async () => {
    const site = await startSite({ '/': html('<a href="/a">a</a>'), '/a': html('a') });
    expect(fetchedPaths(await collect({ seeds: [`${site.origin}/`] }))).toEqual(['/', '/a']);
  });

  it('treats a robots.txt server error (500) as disallow all', async () => {
    const site = await startSite({ '/robots.txt': text('kaputt', 500), '/': html('hallo') });
    const events = await collect({ seeds: [`${site.origin}/`] });
    expect(events).toEqual([{ kind: 'skipped', url: `${site.origin}/`, reason: 'disallowed by robots.txt (robots.txt answered http status 500)' }]);
    expect(requested(site)).toEqual(['/robots.txt']);
  });

  it('treats an unreachable host as disallow all, saying why', async () => {
    const gone = await startSite({});
    await gone.close();
    const events = await collect({ seeds: [`${gone.origin}/`] });
    expect(events).toEqual([{ kind: 'skipped', url: `${gone.origin}/`, reason: expect.stringMatching(/^disallowed by robots\.txt \(robots\.txt unreachable: network error \(ECONNREFUSED\)\)$/) }]);
  });

  it('waits at least the Crawl-delay between requests when it is longer than the configured delay', async () => {
    const site = await startSite({
      '/robots.txt': text('User-agent: FundusBot\nCrawl-delay: 0.25\n'),
      '/': html('<a href="/a">a</a><a href="/b">b</a>'),
      '/a': html('a'),
      '/b': html('b'),
    });
    await collect({ seeds: [`${site.origin}/`], delayMs: 10 });
    expect(site.requests).toHaveLength(4);
    for (let i = 1; i < site.requests.length; i++) expect(site.requests[i].at - site.requests[i - 1].at).toBeGreaterThanOrEqual(250);
  });

  it('sends its user agent', async () => {
    const site = await startSite({ '/': html('x') });
    await collect({ seeds: [`${site.origin}/`] });
    expect(site.requests.every((r) => r.headers['user-agent'] === 'FundusBot/test (+https://fundus.invalid/bot)')).toBe(true);
  });
});

describe('per-host delay', () => {
  it('leaves at least delayMs between the requests to one host, across ports too', async () => {
    const other = await startSite({ '/b': html('b') });
    const site = await startSite({ '/': html(`<a href="/a1">1</a><a href="/a2">2</a><a href="${other.origin}/b">b</a>`), '/a1': html('1'), '/a2': html('2') });
    const events = await collect({ seeds: [`${site.origin}/`], allowedHosts: [new URL(site.origin).host, new URL(other.origin).host], delayMs: 150 });
    expect(fetchedPaths(events)).toEqual(['/', '/a1', '/a2', '/b']);
    const all = [...site.requests, ...other.requests].sort((a, b) => a.at - b.at);
    expect(all.length).toBe(6); // two robots.txt, four pages
    for (let i = 1; i < all.length; i++) expect(all[i].at - all[i - 1].at).toBeGreaterThanOrEqual(150);
  });
});

describe('sitemaps', () => {
  it('reads a sitemap index with plain and gzip sitemaps', async () => {
    let origin = '';
    const urlset = (paths: string[]) => `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${paths.map((p) => `<url><loc>${origin}${p}</loc><lastmod>2024-01-01</lastmod></url>`).join('')}</urlset>`;
    const site = await startSite({
      '/sitemap-index.xml': (req, res) =>
        text(`<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<sitemap><loc>${origin}/sitemap-a.xml</loc></sitemap><sitemap><loc>${origin}/sitemap-b.xml.gz</loc></sitemap></sitemapindex>`, 200, { 'content-type': 'application/xml' })(req, res),
      '/sitemap-a.xml': (req, res) => text(urlset(['/s1', '/s2?x=1&amp;y=2']), 200, { 'content-type': 'application/xml' })(req, res),
      '/sitemap-b.xml.gz': (req, res) => text(zlib.gzipSync(urlset(['/s3', '/s1'])), 200, { 'content-type': 'application/gzip' })(req, res),
      '/s1': html('1'),
      '/s2?x=1&y=2': html('2'),
      '/s3': html('3'),
    });
    origin = site.origin;
    const events = await collect({ sitemaps: [`${site.origin}/sitemap-index.xml`], maxDepth: 0 });
    expect(fetchedPaths(events)).toEqual(['/s1', '/s2', '/s3']);
    expect(events.filter((e) => e.kind === 'fetched').map((e) => e.kind === 'fetched' && e.resource.url)).toContain(`${site.origin}/s2?x=1&y=2`);
  });

  it('reports a missing sitemap', async () => {
    const site = await startSite({});
    expect(skipped(await collect({ sitemaps: [`${site.origin}/sitemap.xml`] }))).toEqual({ '/sitemap.xml': 'sitemap: http status 404' });
  });
});

describe('links', () => {
  it('follows links inside the allowed hosts only, without fragments, nofollow or non-http schemes', async () => {
    const site = await startSite({
      '/': html(`
        <a href="/a">a</a> <a href="/a#teil">a again</a> <a href="b">b</a>
        <a href="http://other.invalid/x">elsewhere</a>
        <a href="mailto:info@example.org">mail</a> <a href="javascript:void(0)">js</a> <a href="#top">top</a>
        <a rel="nofollow noopener" href="/nofollow">nf</a> <a href="/bild.png">image</a>
        <!-- <a href="/commented">c</a> --> <script>var s = '<a href="/scripted">s</a>';</script>`),
      '/a': html('<a href="/deep">deep</a>'),
      '/b': html('<meta name="robots" content="noindex, nofollow"><a href="/hidden">h</a>'),
      '/deep': html('tief'),
    });
    const events = await collect({ seeds: [`${site.origin}/`] });
    expect(fetchedPaths(events)).toEqual(['/', '/a', '/b', '/deep']);
    expect(skipped(events)).toEqual({ 'http://other.invalid/x': 'outside allowed hosts', '/bild.png': 'non-document file extension' });
    expect(requested(site)).not.toEqual(expect.arrayContaining(['/nofollow']));
    for (const path of ['/nofollow', '/hidden', '/commented', '/scripted']) expect(requested(site)).not.toContain(path);
  });

  it('stops at maxDepth', async () => {
    const site = await startSite({ '/': html('<a href="/1">1</a>'), '/1': html('<a href="/2">2</a>'), '/2': html('2') });
    expect(fetchedPaths(await collect({ seeds: [`${site.origin}/`], maxDepth: 1 }))).toEqual(['/', '/1']);
  });

  it('skips responses that are no documents', async () => {
    const site = await startSite({
      '/': html('<a href="/data">d</a> <a href="/doc.pdf">p</a>'),
      '/data': text('{}', 200, { 'content-type': 'application/json' }),
      '/doc.pdf': text(Buffer.from('%PDF-1.4 test'), 200, { 'content-type': 'application/octet-stream' }),
    });
    const events = await collect({ seeds: [`${site.origin}/`] });
    expect(fetchedPaths(events)).toEqual(['/', '/doc.pdf']);
    expect(skipped(events)).toEqual({ '/data': 'non-document content type application/json' });
  });
});

describe('responses', () => {
  it('hands over a gzip-encoded page decoded, without the encoding headers', async () => {
    const page = '<!DOCTYPE html><html><body><p>Komprimierte Seite mit Umlauten: äöüß</p></body></html>';
    const site = await startSite({
      '/': (_req, res) => {
        const body = zlib.gzipSync(page);
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-encoding': 'gzip', 'content-length': String(body.length) });
        res.end(body);
      },
    });
    const [event] = await collect({ seeds: [`${site.origin}/`] });
    expect(event.kind).toBe('fetched');
    if (event.kind !== 'fetched') return;
    expect(Buffer.from(event.resource.bytes).toString('utf8')).toBe(page);
    expect(event.resource.headers['content-encoding']).toBeUndefined();
    expect(event.resource.headers['content-length']).toBeUndefined();
    expect(event.resource).toMatchObject({ url: `${site.origin}/`, status: 200, headers: { 'content-type': 'text/html; charset=utf-8' } });
    expect(Date.parse(event.resource.fetchedAt)).not.toBeNaN();
  });
});

describe('redirects', () => {
  it('follows redirects inside the allowed hosts and refuses the others, loops and long chains', async () => {
    const site = await startSite({
      '/': html(['/r-ok', '/r-away', '/loop-1', '/chain-0', '/r-robots'].map((p) => `<a href="${p}">x</a>`).join('')),
      '/robots.txt': text('User-agent: *\nDisallow: /forbidden\n'),
      '/r-ok': redirect('/ziel', 302),
      '/ziel': html('angekommen'),
      '/r-away': redirect('http://other.invalid/weg'),
      '/r-robots': redirect('/forbidden'),
      '/loop-1': redirect('/loop-2'),
      '/loop-2': redirect('/loop-1'),
      ...Object.fromEntries(Array.from({ length: 7 }, (_, i) => [`/chain-${i}`, redirect(`/chain-${i + 1}`, 307)])),
    });
    const events = await collect({ seeds: [`${site.origin}/`] });
    expect(fetchedPaths(events)).toEqual(['/', '/ziel']);
    expect(skipped(events)).toEqual({
      '/r-away': 'redirect outside allowed hosts',
      '/r-robots': 'redirect target disallowed by robots.txt',
      '/loop-1': 'redirect loop',
      '/chain-0': 'too many redirects (more than 5)',
    });
    expect(requested(site)).not.toContain('/forbidden');
    expect(requested(site)).not.toContain('/chain-6');
  });
});

describe('failures and limits', () => {
  it('reports 404 and 500, a slow response and a huge one', async () => {
    const pending: NodeJS.Timeout[] = [];
    const site = await startSite({
      '/': html(['/missing', '/broken', '/slow', '/huge', '/huge-declared'].map((p) => `<a href="${p}">x</a>`).join('')),
      '/broken': html('fehler', {}, 500),
      '/slow': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.write('<html>');
        pending.push(setTimeout(() => res.end('</html>'), 120_000)); // ended by the test, long after the crawler gave up
      },
      '/huge': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        const chunk = Buffer.alloc(64 * 1024, 'a');
        let sent = 0;
        const pump = () => {
          while (sent < 200 && !res.destroyed) {
            sent++;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          res.end();
        };
        pump();
      },
      '/huge-declared': text(Buffer.alloc(300 * 1024, 'b'), 200, { 'content-type': 'text/html' }),
    });
    try {
      // A limit that the quick pages meet even on a loaded machine; /slow never answers within it.
      const events = await collect({ seeds: [`${site.origin}/`], timeoutMs: 5000, maxBytes: 256 * 1024 });
      expect(fetchedPaths(events)).toEqual(['/']);
      expect(skipped(events)).toEqual({
        '/missing': 'http status 404',
        '/broken': 'http status 500',
        '/slow': 'timeout',
        '/huge': 'too large (over 262144 bytes)',
        '/huge-declared': 'too large (over 262144 bytes)',
      });
    } finally {
      pending.forEach(clearTimeout);
    }
  });

  it('honours X-Robots-Tag noindex for this crawler, still following the links of such a page', async () => {
    const site = await startSite({
      '/': html('<a href="/hidden">h</a> <a href="/other-bot">o</a> <a href="/none">n</a>'),
      '/hidden': html('<a href="/behind">b</a>', { 'x-robots-tag': 'noindex' }),
      '/behind': html('dahinter'),
      '/other-bot': html('x', { 'x-robots-tag': 'otherbot: noindex, nofollow' }),
      '/none': html('<a href="/never">n</a>', { 'x-robots-tag': 'FundusBot: none' }),
    });
    const events = await collect({ seeds: [`${site.origin}/`] });
    expect(fetchedPaths(events)).toEqual(['/', '/behind', '/other-bot']);
    expect(skipped(events)).toEqual({ '/hidden': 'noindex (x-robots-tag)', '/none': 'noindex (x-robots-tag)' });
    expect(requested(site)).not.toContain('/never');
  });

  it('stops after maxPages page requests', async () => {
    const routes: Record<string, Route> = { '/': html(Array.from({ length: 20 }, (_, i) => `<a href="/p${i}">${i}</a>`).join('')) };
    for (let i = 0; i < 20; i++) routes[`/p${i}`] = html(String(i));
    const site = await startSite(routes);
    const events = await collect({ seeds: [`${site.origin}/`], maxPages: 4 });
    expect(events.filter((e) => e.kind === 'fetched')).toHaveLength(4);
    expect(requested(site).filter((path) => path !== '/robots.txt')).toHaveLength(4);
  });

  it('stops when the time limit is reached', async () => {
    const site = await startSite({});
    const chain: Route = (req, res) => {
      const n = Number(req.url!.slice(3));
      html(`<a href="/p/${n + 1}">weiter</a>`)(req, res);
    };
    const routes = new Proxy({} as Record<string, Route>, { get: (_t, path: string) => (path.startsWith('/p/') ? chain : undefined) });
    const endless = await startSite(routes);
    const events = await collect({ seeds: [`${endless.origin}/p/0`], delayMs: 50, timeLimitMs: 3000, maxPages: 10_000, maxDepth: 10_000 });
    expect(events.filter((e) => e.kind === 'fetched').length).toBeGreaterThan(0);
    expect(events.filter((e) => e.kind === 'fetched').length).toBeLessThan(10_000);
    expect(site.requests).toEqual([]);
  });

  it('can be stopped by the consumer', async () => {
    const site = await startSite({ '/': html(Array.from({ length: 10 }, (_, i) => `<a href="/p${i}">${i}</a>`).join('')) });
    let seen = 0;
    for await (const event of crawl({ allowPrivate: true, seeds: [`${site.origin}/`], delayMs: 1000, userAgent: 'FundusBot/test' })) {
      if (event.kind === 'fetched') seen++;
      break;
    }
    expect(seen).toBe(1);
    const before = site.requests.length;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(site.requests.length).toBe(before);
  });
});

describe('conditional re-fetching', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fundus-crawl-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const stores: [string, () => CrawlState][] = [
    ['memory', () => createMemoryCrawlState()],
    ['sqlite', () => openCrawlState(join(dir, `state-${Math.random().toString(36).slice(2)}.sqlite`))],
  ];

  it.each(stores)('gets 304 for unchanged pages on the second crawl (%s state)', async (_name, open) => {
    const lastModified = 'Mon, 01 Jan 2024 10:00:00 GMT';
    const withEtag = (etag: string, body: string): Route => (req, res) =>
      req.headers['if-none-match'] === etag ? (res.writeHead(304, { etag }), res.end()) : html(body, { etag })(req, res);
    const site = await startSite({
      '/': withEtag('"start-1"', '<a href="/etag">e</a> <a href="/lm">l</a> <a href="/plain">p</a>'),
      '/etag': withEtag('"v1"', 'etag page'),
      '/lm': (req, res) =>
        req.headers['if-modified-since'] === lastModified ? (res.writeHead(304), res.end()) : html('lm page', { 'last-modified': lastModified })(req, res),
      '/plain': html('no validators'),
    });
    const state = open();
    try {
      const first = await collect({ seeds: [`${site.origin}/`], state });
      expect(fetchedPaths(first)).toEqual(['/', '/etag', '/lm', '/plain']);
      const second = await collect({ seeds: [`${site.origin}/`], state });
      const notModified = second.flatMap((e) => (e.kind === 'not_modified' ? [new URL(e.url).pathname] : [])).sort();
      expect(notModified).toEqual(['/', '/etag', '/lm']); // links of the unchanged start page were remembered
      expect(fetchedPaths(second)).toEqual(['/plain']);
      const conditional = site.requests.filter((r) => r.headers['if-none-match'] || r.headers['if-modified-since']).map((r) => r.path);
      expect(conditional.sort()).toEqual(['/', '/etag', '/lm']);
    } finally {
      state.close();
    }
  });
});

describe('archiving a crawl', () => {
  it('writes every fetched document to a WARC file that reads back the same', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fundus-crawl-warc-'));
    try {
      const site = await startSite({ '/': html('<a href="/doc">d</a>'), '/doc': html('Dokument', { 'last-modified': 'Mon, 01 Jan 2024 10:00:00 GMT' }) });
      const file = join(dir, 'crawl.warc.gz');
      const writer = await createWarcWriter(file);
      const fetched: CrawlEvent[] = [];
      for await (const event of archiveFetched(crawl({ allowPrivate: true, seeds: [`${site.origin}/`], delayMs: 0, userAgent: 'FundusBot/test' }), writer)) {
        if (event.kind === 'fetched') fetched.push(event);
      }
      await writer.close();
      const archived = [];
      for await (const item of readWarc(file)) archived.push(item);
      expect(archived.map((item) => ('bytes' in item ? { ...item, bytes: Buffer.from(item.bytes) } : item))).toEqual(
        fetched.map((event) => event.kind === 'fetched' && { ...event.resource, bytes: Buffer.from(event.resource.bytes) }),
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

import { request as httpRequest } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadStaticAssets } from '../../services/search-web/static-assets.ts';
import { launchChromium } from '../helpers/chromium.ts';
import { CONTRACT_DOCS, makeDoc } from '../helpers/documents.ts';
import { realPublicGuard, sampleFediverseFiles, startTestSearchWeb, type TestSearchWeb } from '../helpers/search-web.ts';

// What Lighthouse measured on the search page, checked without timing: responses are compressed,
// and results arriving after the page has drawn shift nothing (CLS from the browser's own
// layout-shift entries). The scores themselves are measured by scripts/bench/lighthouse.ts.

declare const document: any;
declare const window: any;
declare const PerformanceObserver: any;

let web: TestSearchWeb;
let browser: Browser;

beforeAll(async () => {
  const protocols = Array.from({ length: 25 }, (_, i) =>
    makeDoc({ url: `https://archiv.stadt-c.example/${i}`, title: `Protokoll ${i} der Sitzung des Rates über das Haus der Vereine`, text: `Sitzung des Rates Nummer ${i} über das Haus der Vereine und den Etat. `.repeat(8) }),
  );
  web = await startTestSearchWeb({ webDocs: [...CONTRACT_DOCS.map(makeDoc), ...protocols], fediverseFiles: sampleFediverseFiles(), guard: realPublicGuard() });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await web?.close();
});

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bytes: Buffer;
}

/** One request with node:http, which (unlike fetch) leaves the body as it came over the wire. */
function raw(path: string, acceptEncoding: string, options: { method?: string; body?: string } = {}): Promise<RawAnswer> {
  return new Promise((resolveAnswer, reject) => {
    const headers: Record<string, string> = { 'accept-encoding': acceptEncoding };
    if (options.body) headers['content-type'] = 'application/json';
    const request = httpRequest(`${web.url}${path}`, { method: options.method ?? 'GET', headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolveAnswer({ status: response.statusCode ?? 0, headers: response.headers, bytes: Buffer.concat(chunks) }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(options.body);
  });
}

describe('compression', () => {
  const assets = loadStaticAssets();

  it.each([
    ['/static/search.js', 'text/javascript'],
    ['/static/render.js', 'text/javascript'],
    ['/static/search.css', 'text/css'],
    ['/', 'text/html'],
    ['/api/openapi.json', 'application/json'],
  ])('serves %s with brotli, and with gzip to a client that only takes gzip', async (path, type) => {
    const br = await raw(path, 'br, gzip');
    expect(br.status).toBe(200);
    expect(br.headers['content-type']).toContain(type);
    expect(br.headers['content-encoding']).toBe('br');
    expect(String(br.headers.vary).toLowerCase()).toContain('accept-encoding');
    const gzip = await raw(path, 'gzip');
    expect(gzip.headers['content-encoding']).toBe('gzip');
    const plain = brotliDecompressSync(br.bytes);
    expect(gunzipSync(gzip.bytes)).toEqual(plain);
    expect(br.bytes.length).toBeLessThan(plain.length);
    const name = path.replace('/static/', '');
    if (assets.has(name)) expect(plain).toEqual(assets.get(name)!.body);
  });

  it('compresses search answers (JSON) above the threshold', async () => {
    const { status, headers, bytes } = await raw('/api/search', 'br', { method: 'POST', body: JSON.stringify({ q: 'Haus' }) });
    expect(status).toBe(200);
    expect(headers['content-encoding']).toBe('br');
    expect(JSON.parse(brotliDecompressSync(bytes).toString('utf8')).results.length).toBe(10);
  });

  it('leaves small answers and clients without Accept-Encoding alone', async () => {
    const small = await raw('/healthz', 'br, gzip');
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(small.bytes.toString('utf8'))).toEqual({ status: 'ok' });
    const identity = await raw('/static/search.js', 'identity');
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(identity.bytes).toEqual(assets.get('search.js')!.body);
  });
});

describe('layout stability when results arrive', () => {
  it.each([
    ['phone', { width: 412, height: 823 }],
    ['desktop', { width: 1350, height: 940 }],
  ])('keeps the cumulative layout shift under 0.1 on a %s screen (the footer does not jump)', async (_name, viewport) => {
    const context = await browser.newContext({ viewport, locale: 'de-DE' });
    const page = await context.newPage();
    // Collected from the first paint on, as Lighthouse does: shifts without recent input count.
    await page.addInitScript(() => {
      window.__shifts = [];
      new PerformanceObserver((list: any) => {
        for (const entry of list.getEntries()) if (!entry.hadRecentInput) window.__shifts.push(entry.value);
      }).observe({ type: 'layout-shift', buffered: true });
    });
    await page.goto(`${web.url}/#q=Haus`);
    await page.waitForFunction(() => document.querySelectorAll('#results li').length === 10 && document.getElementById('results-panel').getAttribute('aria-busy') !== 'true');
    // A layout shift is reported after the frame it happened in: wait for two more frames.
    await page.evaluate(() => new Promise((done) => window.requestAnimationFrame(() => window.requestAnimationFrame(done))));
    const shifts: number[] = await page.evaluate(() => window.__shifts);
    const cls = shifts.reduce((sum, value) => sum + value, 0);
    expect(cls).toBeLessThan(0.1);
    // The footer is where it will stay: below the first screen, not pushed down while visible.
    const footerTop = await page.evaluate(() => document.querySelector('.site-footer').getBoundingClientRect().top);
    expect(footerTop).toBeGreaterThanOrEqual(viewport.height);
    await context.close();
  });
});

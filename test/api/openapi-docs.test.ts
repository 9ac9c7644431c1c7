import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/chromium.ts';
import { CONTRACT_DOCS, makeDoc } from '../helpers/documents.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

// /docs in headless Chromium under its real Content-Security-Policy: Swagger UI, served by the
// gateway from node_modules, renders the OpenAPI document and "Try it out" calls the gateway
// itself; nothing is loaded from elsewhere and the browser reports no CSP violation.

declare const document: any;
declare const window: any;

let gateway: TestGateway;
let browser: Browser;
let page: Page;
const violations: string[] = [];
const foreignRequests: string[] = [];
const apiCalls: string[] = [];

beforeAll(async () => {
  gateway = await startTestGateway(CONTRACT_DOCS.map(makeDoc));
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1300, height: 1000 } })).newPage();
  await page.addInitScript(() => {
    window.__violations = [];
    document.addEventListener('securitypolicyviolation', (event: any) => window.__violations.push(`${event.violatedDirective} ${event.blockedURI}`));
  });
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
  });
  page.on('pageerror', (error) => violations.push(`page error: ${error.message}`));
  page.on('request', (request) => {
    if (!request.url().startsWith(gateway.url) && !request.url().startsWith('data:')) foreignRequests.push(request.url());
    if (/\/v1\//.test(request.url())) apiCalls.push(`${request.method()} ${new URL(request.url()).pathname}`);
  });
  await page.goto(`${gateway.url}/docs`);
  await page.waitForSelector('.opblock', { timeout: 60_000 });
});

afterAll(async () => {
  await browser?.close();
  await gateway?.close();
});

async function tryItOut(operationId: string) {
  const block = page.locator(`#operations-${operationId}`);
  await block.locator('.opblock-summary').first().click();
  await block.getByRole('button', { name: 'Try it out' }).click();
  await block.getByRole('button', { name: 'Execute' }).click();
  const code = block.locator('.live-responses-table .response .response-col_status').first();
  await code.waitFor({ timeout: 30_000 });
  return { status: (await code.textContent())?.trim(), body: (await block.locator('.live-responses-table .response-col_description pre').first().textContent()) ?? '' };
}

describe('/docs', () => {
  it('is served under a strict CSP that admits only the gateway itself', async () => {
    const response = await fetch(`${gateway.url}/docs`);
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    // Scripts and styles come from the gateway's own paths, never from another host.
    expect(await response.text()).not.toMatch(/<(script|link)[^>]+(src|href)="https?:/);
  });

  it('renders every operation of the OpenAPI document', async () => {
    const ids = await page.evaluate(() => [...document.querySelectorAll('.opblock')].map((el: any) => el.id).sort());
    expect(ids).toEqual(['operations-Collection-getStats', 'operations-Collection-listSources', 'operations-Documents-getDocument', 'operations-Search-search']);
  });

  it('runs GET /v1/stats with Try it out', async () => {
    const { status, body } = await tryItOut('Collection-getStats');
    expect(status).toBe('200');
    expect(JSON.parse(body)).toMatchObject({ documents: CONTRACT_DOCS.length, api_version: '1.0.0' });
  });

  it('runs POST /v1/search with Try it out, sending the example body', async () => {
    const { status, body } = await tryItOut('Search-search');
    expect(status).toBe('200');
    expect(JSON.parse(body)).toHaveProperty('results');
    expect(apiCalls).toEqual(expect.arrayContaining(['GET /v1/stats', 'POST /v1/search']));
  });

  it('loaded nothing from elsewhere and logged no CSP violation', async () => {
    expect(foreignRequests).toEqual([]);
    expect(await page.evaluate(() => window.__violations)).toEqual([]);
    expect(violations).toEqual([]);
  });
});

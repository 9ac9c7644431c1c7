import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccessGuard } from '../../services/access/access-guard.ts';
import { createMemoryBudgets } from '../../services/access/budgets.ts';
import type { KeyStore } from '../../services/access/key-store.ts';
import { openSqliteKeyStore } from '../../services/access/key-store-sqlite.ts';
import { silentLog } from '../../services/access/log.ts';
import { buildAdminApp } from '../../services/admin/app.ts';
import { launchChromium } from '../helpers/chromium.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

// The admin panel in a real headless Chromium (issue 4): sign in, create a key, use it against the
// gateway, revoke it in the panel, and see the gateway refuse it. Screenshots go to test-artifacts/.

const ADMIN_TOKEN = 'browser-admin-token-0123456789';
const ARTIFACTS = resolve('test-artifacts');

let dataDir: string;
let keyStore: KeyStore;
let gateway: TestGateway;
let admin: FastifyInstance;
let adminUrl: string;
let browser: Browser;
let page: Page;
const consoleErrors: string[] = [];

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  dataDir = mkdtempSync(join(tmpdir(), 'fundus-admin-browser-'));
  keyStore = openSqliteKeyStore(dataDir);
  const guard = createAccessGuard({
    config: { access: { allowedOrigins: [], anonymousLimit: { points: 1, durationSeconds: 1 } }, admin: { token: ADMIN_TOKEN } },
    keyStore,
    budgets: createMemoryBudgets(),
    log: silentLog,
  });
  gateway = await startTestGateway([], { guard });
  admin = await buildAdminApp({ keyStore: openSqliteKeyStore(dataDir), adminToken: ADMIN_TOKEN, logLevel: 'silent' });
  adminUrl = await admin.listen({ host: '127.0.0.1', port: 0 });
  browser = await launchChromium();
  page = await (await browser.newContext()).newPage();
  page.setDefaultTimeout(10_000);
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
});

afterAll(async () => {
  await browser?.close();
  await admin?.close();
  await gateway?.close();
  await keyStore?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const useKey = async (key: string) => (await fetch(`${gateway.url}/v1/stats`, { headers: { authorization: `Bearer ${key}` } })).status;
const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, `admin-${name}.png`), fullPage: true });

describe('admin panel in Chromium', () => {
  let key = '';

  it('refuses a wrong token and signs in with the right one', async () => {
    await page.goto(adminUrl);
    expect(await page.locator('h1').innerText()).toMatch(/Anmelden/);
    await shot('1-login');
    await page.fill('#token', 'wrong-token-but-long-enough');
    await page.click('button[type=submit]');
    expect(await page.locator('.flash.error').innerText()).toMatch(/Falsches Token/);
    await page.fill('#token', ADMIN_TOKEN);
    await page.click('button[type=submit]');
    await page.waitForSelector('#interfaces');
    expect(await page.locator('#interfaces').innerText()).toBe('Schnittstellen (Interfaces)');
    const session = (await page.context().cookies()).find((c) => c.name === 'fundus_admin_session');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
    await shot('2-panel');
  });

  it('creates a key, shows it once, and the gateway accepts it', async () => {
    await page.fill('#name', 'Browser-Test Schule');
    await page.fill('#limit', '5/s');
    await page.click('#create-key button[type=submit]');
    key = (await page.locator('#new-key-value').innerText()).trim();
    expect(key).toMatch(/^fk_[A-Za-z0-9_-]{43}$/);
    await shot('3-key-created');
    expect(await useKey(key)).toBe(200);
    await page.goto(adminUrl);
    expect(await page.locator('#new-key-value').count()).toBe(0);
    expect(await page.content()).not.toContain(key);
    const row = page.locator(`tr[data-key-id="${key.slice(0, 11)}"]`);
    expect(await row.innerText()).toMatch(/Browser-Test Schule[\s\S]*5\/s/);
  });

  it('changes the limit in the panel', async () => {
    const id = key.slice(0, 11);
    await page.fill(`[id="limit-${id}"]`, '2/min');
    await page.locator(`tr[data-key-id="${id}"] form[action="/keys/limit"] button`).click();
    await page.waitForSelector('.flash.ok');
    expect(await page.locator(`tr[data-key-id="${id}"]`).innerText()).toMatch(/2\/min/);
  });

  it('revokes the key in the panel, and the gateway answers 401', async () => {
    const id = key.slice(0, 11);
    await page.locator(`tr[data-key-id="${id}"] form[action="/keys/revoke"] button`).click();
    await page.waitForSelector(`tr.revoked[data-key-id="${id}"]`);
    await shot('4-key-revoked');
    expect(await useKey(key)).toBe(401);
  });

  it('has no accessibility violations of serious impact and no CSP errors', async () => {
    const require = createRequire(import.meta.url);
    const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
    await page.evaluate(axeSource);
    const violations = await page.evaluate(async () => {
      const result = await (globalThis as any).axe.run((globalThis as any).document, { resultTypes: ['violations'] });
      return result.violations.map((v: any) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length }));
    });
    expect(violations.filter((v: { impact: string }) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
    expect(consoleErrors.filter((text) => /Content Security Policy/i.test(text))).toEqual([]);
  });

  it('signs out', async () => {
    await page.locator('form[action="/logout"] button').click();
    await page.waitForSelector('#token');
    await page.goto(adminUrl);
    expect(await page.locator('#interfaces').count()).toBe(0);
  });
});

import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteKeyStore } from '../../services/access/key-store-sqlite.ts';
import { AdminTokenMissingError, buildAdminApp } from '../../services/admin/app.ts';

// The admin panel's defences through real HTTP: no token, no panel; CSRF tokens on every form;
// cross-site posts refused; sign-in attempts limited; sessions expire; strict headers.

const TOKEN = 'panel-admin-token-0123456789';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

let app: FastifyInstance;
let url: string;
let store: SqliteKeyStore;
let now = Date.now();

beforeEach(async () => {
  store = new SqliteKeyStore({ file: ':memory:' });
  now = Date.now();
  app = await buildAdminApp({ keyStore: store, adminToken: TOKEN, logLevel: 'silent', clock: () => now });
  url = await app.listen({ host: '127.0.0.1', port: 0 });
});
afterEach(async () => {
  await app.close();
  await store.close();
});

const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
const cookieOf = (response: Response, name: string) => response.headers.getSetCookie().find((c) => c.startsWith(`${name}=`))?.split(';')[0] ?? '';

async function loginForm(): Promise<{ cookie: string; csrf: string }> {
  const response = await fetch(`${url}/`);
  return { cookie: cookieOf(response, 'fundus_admin_login'), csrf: csrfOf(await response.text()) };
}

async function signIn(token = TOKEN): Promise<Response> {
  const { cookie, csrf } = await loginForm();
  return fetch(`${url}/login`, { method: 'POST', redirect: 'manual', headers: { ...FORM, cookie }, body: new URLSearchParams({ csrf, token }) });
}

async function session(): Promise<{ cookie: string; csrf: string }> {
  const cookie = cookieOf(await signIn(), 'fundus_admin_session');
  const panel = await fetch(`${url}/`, { headers: { cookie } });
  return { cookie, csrf: csrfOf(await panel.text()) };
}

describe('admin panel', () => {
  it('refuses to start without an admin token, with a message naming the setting', async () => {
    for (const adminToken of [null, undefined, '', 'short']) {
      await expect(buildAdminApp({ keyStore: store, adminToken, logLevel: 'silent' })).rejects.toThrow(AdminTokenMissingError);
    }
    await expect(buildAdminApp({ keyStore: store, adminToken: null, logLevel: 'silent' })).rejects.toThrow(/FUNDUS_ADMIN_TOKEN/);
  });

  it('sends a strict CSP and no-store on its pages, and loads nothing from elsewhere', async () => {
    const response = await fetch(`${url}/`);
    const html = await response.text();
    expect(response.headers.get('content-security-policy')).toBe("default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'");
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(html).not.toMatch(/<script|https?:\/\//i);
    expect(cookieOf(response, 'fundus_admin_login')).not.toBe('');
    expect(response.headers.getSetCookie()[0]).toMatch(/HttpOnly; SameSite=Strict/);
  });

  it('signs in with the token into an HttpOnly SameSite=Strict session cookie', async () => {
    const response = await signIn();
    expect(response.status).toBe(303);
    const setCookie = response.headers.getSetCookie().find((c) => c.startsWith('fundus_admin_session='))!;
    expect(setCookie).toMatch(/; HttpOnly/);
    expect(setCookie).toMatch(/; SameSite=Strict/);
    expect(setCookie).toMatch(/; Max-Age=\d+/);
    const panel = await fetch(`${url}/`, { headers: { cookie: setCookie.split(';')[0] } });
    expect(await panel.text()).toContain('Schnittstellen <span lang="en">(Interfaces)</span>');
  });

  it('refuses a wrong token, a login without its CSRF token, and a forged session cookie', async () => {
    expect((await signIn('wrong-token-0123456789')).status).toBe(401);
    const { cookie } = await loginForm();
    const noCsrf = await fetch(`${url}/login`, { method: 'POST', headers: { ...FORM, cookie }, body: new URLSearchParams({ token: TOKEN }) });
    expect(noCsrf.status).toBe(403);
    const forged = await fetch(`${url}/`, { headers: { cookie: 'fundus_admin_session=abc.def' } });
    expect(await forged.text()).toContain('id="token"');
  });

  it('limits wrong sign-in attempts per login form and in all, with an honest Retry-After, but never locks out the right token', async () => {
    // One login form (its pre-login cookie) used again and again: 5 wrong attempts a minute.
    const form = await loginForm();
    const attempt = (token: string, { cookie, csrf } = form) =>
      fetch(`${url}/login`, { method: 'POST', redirect: 'manual', headers: { ...FORM, cookie }, body: new URLSearchParams({ csrf, token }) });
    const statuses = [];
    for (let i = 0; i < 6; i += 1) statuses.push((await attempt('wrong-token-0123456789')).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    const limited = await attempt('wrong-token-0123456789');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect((await attempt(TOKEN)).status).toBe(303);
    // Fresh forms for every guess: 30 wrong attempts a minute in all, then 429 for everyone guessing…
    const fresh: number[] = [];
    for (let i = 0; i < 30; i += 1) fresh.push((await signIn('wrong-token-0123456789')).status);
    expect(fresh.filter((status) => status === 429).length).toBeGreaterThan(0);
    expect((await signIn('wrong-token-0123456789')).status).toBe(429);
    // …while the admin with the right token still gets in.
    const admin = await signIn();
    expect(admin.status).toBe(303);
    expect(cookieOf(admin, 'fundus_admin_session')).toMatch(/^fundus_admin_session=./);
  });

  it('needs the session CSRF token on every form, and refuses cross-site posts', async () => {
    const { cookie, csrf } = await session();
    const create = (body: Record<string, string>, headers: Record<string, string> = {}) =>
      fetch(`${url}/keys`, { method: 'POST', redirect: 'manual', headers: { ...FORM, cookie, ...headers }, body: new URLSearchParams(body) });
    expect((await create({ name: 'no csrf', limit: '1/s' })).status).toBe(403);
    expect((await create({ name: 'wrong csrf', limit: '1/s', csrf: 'x'.repeat(43) })).status).toBe(403);
    expect((await create({ name: 'cross', limit: '1/s', csrf }, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await create({ name: 'cross', limit: '1/s', csrf }, { origin: 'https://evil.example' })).status).toBe(403);
    expect(await store.list()).toEqual([]);
    const ok = await create({ name: 'fine', limit: '1/s', csrf }, { 'sec-fetch-site': 'same-origin' });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('cache-control')).toBe('no-store');
    expect(await ok.text()).toMatch(/id="new-key-value" class="secret">fk_/);
    for (const path of ['/keys/revoke', '/keys/limit', '/logout']) {
      const refused = await fetch(`${url}${path}`, { method: 'POST', headers: { ...FORM, cookie }, body: new URLSearchParams({ id: 'fk_x' }) });
      expect(refused.status).toBe(403);
    }
  });

  it('rejects bad names and limits in the form without creating anything', async () => {
    const { cookie, csrf } = await session();
    const response = await fetch(`${url}/keys`, { method: 'POST', headers: { ...FORM, cookie }, body: new URLSearchParams({ csrf, name: 'x', limit: '10/week' }) });
    expect(response.status).toBe(422);
    expect(await response.text()).toMatch(/invalid limit/);
    expect(await store.list()).toEqual([]);
  });

  it('escapes key names in the page', async () => {
    const { cookie } = await session();
    await store.create({ name: '<img src=x onerror=alert(1)>', limit: '1/s' });
    const html = await (await fetch(`${url}/`, { headers: { cookie } })).text();
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it('ends sessions after 30 idle minutes and on sign-out', async () => {
    const { cookie, csrf } = await session();
    now += 31 * 60_000;
    expect(await (await fetch(`${url}/`, { headers: { cookie } })).text()).toContain('id="token"');
    const second = await session();
    const out = await fetch(`${url}/logout`, { method: 'POST', redirect: 'manual', headers: { ...FORM, cookie: second.cookie }, body: new URLSearchParams({ csrf: second.csrf }) });
    expect(out.status).toBe(303);
    expect(await (await fetch(`${url}/`, { headers: { cookie: second.cookie } })).text()).toContain('id="token"');
    expect(csrf).not.toBe(second.csrf);
  });
});

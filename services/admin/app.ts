import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { type KeyRecord, type KeyStore, KeyStoreError } from '../access/key-store.ts';
import { HostPolicy } from '../access/hosts.ts';
import { secretsEqual } from '../access/keys.ts';
import { registerCompression } from '../http/compression.ts';
import { createHttpApp, PROBE_ROUTES } from '../http/app-base.ts';
import { ADMIN_CSS, loginPage, messagePage, panelPage, type PanelView } from './pages.ts';
import { cookieHeader, type Flash, LOGIN_COOKIE, parseCookies, SESSION_COOKIE, type Session, SessionStore } from './sessions.ts';

// The admin panel (issue 4): its own app on its own port (default 127.0.0.1:8081), never routed
// publicly. One admin token from configuration opens a session; forms carry CSRF tokens; the
// pages run no script and load nothing from elsewhere.

export interface AdminDeps {
  keyStore: KeyStore;
  /** FUNDUS_ADMIN_TOKEN; without one the panel refuses to start. */
  adminToken: string | null | undefined;
  logLevel: string;
  logStream?: NodeJS.WritableStream;
  /** Mark cookies Secure (set when the panel is reached over HTTPS: FUNDUS_ADMIN_EXTERNAL_URL is https). */
  secureCookies?: boolean;
  /** Host names besides loopback and IP literals the panel answers to (DNS rebinding). */
  allowedHosts?: string[];
  clock?: () => number;
}

export const MIN_ADMIN_TOKEN_LENGTH = 16;
const FORM_LIMIT_BYTES = 16 * 1024;
// Wrong sign-in attempts (issue 19): 5 a minute per login form (its pre-login cookie) and 30 a minute
// in all. A correct token is checked first and always signs in, so nobody can lock the admin out.
const WRONG_ATTEMPTS_PER_FORM = 5;
const WRONG_ATTEMPTS_IN_ALL = 30;

const CSP = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export class AdminTokenMissingError extends Error {
  constructor() {
    super(`the admin panel needs FUNDUS_ADMIN_TOKEN (at least ${MIN_ADMIN_TOKEN_LENGTH} characters) and refuses to start without it; set it, or run fundus serve without the admin role`);
    this.name = 'AdminTokenMissingError';
  }
}

type Form = URLSearchParams;

function formOf(request: FastifyRequest): Form {
  return request.body instanceof URLSearchParams ? request.body : new URLSearchParams();
}

function html(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(body);
}

/**
 * Cross-site form posts are refused even before the CSRF token is checked (defence in depth).
 * Browsers say where a request comes from in Sec-Fetch-Site; without it, Origin is compared with
 * Host. Origin "null" is what Chromium sends for our own forms under Referrer-Policy no-referrer,
 * so it proves nothing either way and the CSRF token decides.
 */
function isCrossSite(request: FastifyRequest): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site) return site !== 'same-origin' && site !== 'none';
  const origin = request.headers.origin;
  if (!origin || origin === 'null') return false;
  try {
    return new URL(origin).host !== request.headers.host;
  } catch {
    return true;
  }
}

function storeMessage(error: unknown): string {
  if (error instanceof KeyStoreError) return error.message;
  throw error;
}

export async function buildAdminApp(deps: AdminDeps): Promise<FastifyInstance> {
  const adminToken = deps.adminToken ?? '';
  if (adminToken.length < MIN_ADMIN_TOKEN_LENGTH) throw new AdminTokenMissingError();
  const { keyStore } = deps;
  const sessions = new SessionStore(deps.clock);
  const secure = deps.secureCookies ?? false;
  // No IP is kept: attempts are counted per login form (the signed nonce of its cookie) and in all.
  const perForm = new RateLimiterMemory({ keyPrefix: 'admin-login-form', points: WRONG_ATTEMPTS_PER_FORM, duration: 60 });
  const inAll = new RateLimiterMemory({ keyPrefix: 'admin-login-all', points: WRONG_ATTEMPTS_IN_ALL, duration: 60 });
  const hosts = new HostPolicy(deps.allowedHosts ?? []);

  /** Counts a wrong attempt; the seconds to wait when this form or all forms together are over their limit, else null. */
  async function limitWrongAttempt(nonce: string): Promise<number | null> {
    try {
      await perForm.consume(nonce);
      await inAll.consume('all');
      return null;
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      return Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
    }
  }

  const app = createHttpApp({ logLevel: deps.logLevel, logStream: deps.logStream });
  await registerCompression(app);
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_LIMIT_BYTES }, (_request, body, done) =>
    done(null, new URLSearchParams(body as string)),
  );
  app.addHook('onRequest', async (request, reply) => {
    if (!PROBE_ROUTES.has(request.routeOptions.url ?? '') && !hosts.allows(request.headers.host)) return html(reply, 403, messagePage('Abgelehnt (refused)', 'Unbekannter Hostname. (Unknown host name.)'));
  });
  app.addHook('onSend', async (_request, reply) => {
    reply.header('content-security-policy', CSP);
    reply.header('x-frame-options', 'DENY');
    reply.header('cross-origin-opener-policy', 'same-origin');
    reply.header('cross-origin-resource-policy', 'same-origin');
    reply.header('permissions-policy', 'camera=(), microphone=(), geolocation=()');
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
  });

  const sessionOf = (request: FastifyRequest): Session | null => sessions.resume(parseCookies(request.headers.cookie)[SESSION_COOKIE]);
  const setCookie = (reply: FastifyReply, name: string, value: string, maxAgeSeconds: number) =>
    reply.header('set-cookie', cookieHeader(name, value, { maxAgeSeconds, secure }));

  function showLogin(reply: FastifyReply, status: number, flash: Flash | null): FastifyReply {
    const nonce = randomBytes(24).toString('base64url');
    setCookie(reply, LOGIN_COOKIE, sessions.sign(nonce), 15 * 60);
    return html(reply, status, loginPage({ csrf: sessions.loginCsrf(nonce), flash }));
  }

  async function showPanel(reply: FastifyReply, session: Session, extra: Partial<PanelView> = {}, status = 200): Promise<FastifyReply> {
    const flash = extra.flash ?? session.flash;
    session.flash = null;
    let keys: KeyRecord[] = [];
    let listFlash: Flash | null = null;
    try {
      keys = await keyStore.list();
    } catch (error) {
      listFlash = { kind: 'error', text: `Schlüssel konnten nicht gelesen werden (keys could not be read): ${storeMessage(error)}` };
    }
    return html(reply, status, panelPage({ csrf: session.csrf, keys, ...extra, flash: listFlash ?? flash }));
  }

  /** The session of a form post with a valid CSRF token, or null after answering the request. */
  function authorisedPost(request: FastifyRequest, reply: FastifyReply): Session | null {
    if (isCrossSite(request)) {
      html(reply, 403, messagePage('Abgelehnt (refused)', 'Formulare werden nur von dieser Seite angenommen. (Forms are accepted from this page only.)'));
      return null;
    }
    const session = sessionOf(request);
    if (!session) {
      reply.code(303).header('location', '/').send();
      return null;
    }
    if (!sessions.csrfMatches(session.csrf, formOf(request).get('csrf'))) {
      html(reply, 403, messagePage('Abgelehnt (refused)', 'Das Formular ist abgelaufen; bitte die Seite neu laden. (The form expired; reload the page.)'));
      return null;
    }
    return session;
  }

  function redirectWith(reply: FastifyReply, session: Session, flash: Flash): FastifyReply {
    session.flash = flash;
    return reply.code(303).header('location', '/').send();
  }

  app.get('/favicon.ico', async (_request, reply) => reply.code(204).send());
  // Probes for orchestrators (the k8s manifests point at them); they reveal nothing about keys.
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    const ready = await deps.keyStore.list().then(
      () => true,
      () => false,
    );
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not_ready' });
  });
  app.get('/admin.css', async (_request, reply) => reply.type('text/css; charset=utf-8').header('cache-control', 'private, max-age=300').send(ADMIN_CSS));

  app.get('/', async (request, reply) => {
    const session = sessionOf(request);
    return session ? showPanel(reply, session) : showLogin(reply, 200, null);
  });

  app.post('/login', async (request, reply) => {
    if (isCrossSite(request)) return html(reply, 403, messagePage('Abgelehnt (refused)', 'Anmeldung nur von dieser Seite. (Sign in from this page only.)'));
    const form = formOf(request);
    const nonce = sessions.unsign(parseCookies(request.headers.cookie)[LOGIN_COOKIE]);
    if (!nonce || !sessions.csrfMatches(sessions.loginCsrf(nonce), form.get('csrf'))) {
      return showLogin(reply, 403, { kind: 'error', text: 'Das Formular ist abgelaufen; bitte erneut versuchen. (The form expired; try again.)' });
    }
    if (!secretsEqual(form.get('token') ?? '', adminToken)) {
      request.log.warn({ component: 'admin' }, 'admin sign-in refused');
      const seconds = await limitWrongAttempt(nonce);
      if (seconds !== null) {
        reply.header('retry-after', String(seconds));
        return showLogin(reply, 429, { kind: 'error', text: `Zu viele Anmeldeversuche; bitte ${seconds} s warten. (Too many sign-in attempts; wait ${seconds} s.)` });
      }
      return showLogin(reply, 401, { kind: 'error', text: 'Falsches Token. (Wrong token.)' });
    }
    const previous = sessionOf(request);
    if (previous) sessions.end(previous);
    const session = sessions.create();
    setCookie(reply, SESSION_COOKIE, sessions.sign(session.id), sessions.maxAgeSeconds);
    reply.header('set-cookie', cookieHeader(LOGIN_COOKIE, '', { maxAgeSeconds: 0, secure }));
    request.log.info({ component: 'admin' }, 'admin signed in');
    return reply.code(303).header('location', '/').send();
  });

  app.post('/logout', async (request, reply) => {
    const session = authorisedPost(request, reply);
    if (!session) return reply;
    sessions.end(session);
    setCookie(reply, SESSION_COOKIE, '', 0);
    return reply.code(303).header('location', '/').send();
  });

  app.post('/keys', async (request, reply) => {
    const session = authorisedPost(request, reply);
    if (!session) return reply;
    const form = formOf(request);
    const input = { name: form.get('name') ?? '', limit: form.get('limit') ?? '' };
    try {
      const created = await keyStore.create(input);
      request.log.info({ component: 'admin', keyId: created.record.id }, 'project key created');
      return showPanel(reply, session, { newKey: created, flash: { kind: 'ok', text: `Schlüssel ${created.record.id}… erstellt. (Key created.)` } });
    } catch (error) {
      return showPanel(reply, session, { form: input, flash: { kind: 'error', text: storeMessage(error) } }, 422);
    }
  });

  app.post('/keys/limit', async (request, reply) => {
    const session = authorisedPost(request, reply);
    if (!session) return reply;
    const form = formOf(request);
    const id = form.get('id') ?? '';
    try {
      const changed = await keyStore.setLimit(id, form.get('limit') ?? '');
      if (changed) request.log.info({ component: 'admin', keyId: id }, 'project key limit changed');
      return redirectWith(reply, session, changed ? { kind: 'ok', text: `Limit von ${id}… geändert. (Limit changed.)` } : { kind: 'error', text: 'Kein aktiver Schlüssel mit dieser ID. (No active key with this id.)' });
    } catch (error) {
      return redirectWith(reply, session, { kind: 'error', text: storeMessage(error) });
    }
  });

  app.post('/keys/revoke', async (request, reply) => {
    const session = authorisedPost(request, reply);
    if (!session) return reply;
    const id = formOf(request).get('id') ?? '';
    try {
      const revoked = await keyStore.revoke(id);
      if (revoked) request.log.info({ component: 'admin', keyId: id }, 'project key revoked');
      return redirectWith(reply, session, revoked ? { kind: 'ok', text: `Schlüssel ${id}… widerrufen. (Key revoked.)` } : { kind: 'error', text: 'Kein aktiver Schlüssel mit dieser ID. (No active key with this id.)' });
    } catch (error) {
      return redirectWith(reply, session, { kind: 'error', text: storeMessage(error) });
    }
  });

  return app;
}

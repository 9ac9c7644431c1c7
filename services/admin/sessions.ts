import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

// Admin sessions (issue 4: sessions, CSRF protection). The cookie carries a random session id and
// its HMAC; the session itself lives in this process, so logout and expiry are real and a restart
// logs everyone out. Each session has its own CSRF token, which every form sends back.

export const SESSION_COOKIE = 'fundus_admin_session';
export const LOGIN_COOKIE = 'fundus_admin_login';
const IDLE_MS = 30 * 60_000;
const ABSOLUTE_MS = 8 * 60 * 60_000;
const MAX_SESSIONS = 50;

export interface Flash {
  kind: 'ok' | 'error';
  text: string;
}

export interface Session {
  id: string;
  csrf: string;
  createdAt: number;
  lastSeen: number;
  flash: Flash | null;
}

function equal(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

export class SessionStore {
  private readonly secret = randomBytes(32);
  private readonly sessions = new Map<string, Session>();
  private readonly clock: () => number;
  readonly maxAgeSeconds = ABSOLUTE_MS / 1000;

  constructor(clock: () => number = Date.now) {
    this.clock = clock;
  }

  sign(value: string): string {
    return `${value}.${createHmac('sha256', this.secret).update(value).digest('base64url')}`;
  }

  unsign(signed: string | undefined): string | null {
    if (!signed) return null;
    const dot = signed.lastIndexOf('.');
    if (dot <= 0) return null;
    const value = signed.slice(0, dot);
    return equal(this.sign(value), signed) ? value : null;
  }

  create(): Session {
    const now = this.clock();
    if (this.sessions.size >= MAX_SESSIONS) {
      const oldest = [...this.sessions.values()].sort((a, b) => a.lastSeen - b.lastSeen)[0];
      this.sessions.delete(oldest.id);
    }
    const session = { id: randomBytes(32).toString('base64url'), csrf: randomBytes(32).toString('base64url'), createdAt: now, lastSeen: now, flash: null };
    this.sessions.set(session.id, session);
    return session;
  }

  /** The live session a cookie names, refreshed; null when unknown, forged or expired. */
  resume(cookie: string | undefined): Session | null {
    const id = this.unsign(cookie);
    const session = id ? this.sessions.get(id) : undefined;
    if (!session) return null;
    const now = this.clock();
    if (now - session.lastSeen > IDLE_MS || now - session.createdAt > ABSOLUTE_MS) {
      this.sessions.delete(session.id);
      return null;
    }
    session.lastSeen = now;
    return session;
  }

  end(session: Session): void {
    this.sessions.delete(session.id);
  }

  /** The CSRF token of the login form, bound to the pre-login cookie's value. */
  loginCsrf(loginNonce: string): string {
    return createHmac('sha256', this.secret).update(`login:${loginNonce}`).digest('base64url');
  }

  csrfMatches(expected: string, presented: string | null): boolean {
    return typeof presented === 'string' && equal(expected, presented);
  }
}

export function parseCookies(header: string | undefined): Record<string, string> {
  const cookies: Record<string, string> = {};
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    if (!(name in cookies)) cookies[name] = part.slice(eq + 1).trim();
  }
  return cookies;
}

export function cookieHeader(name: string, value: string, options: { maxAgeSeconds: number; secure: boolean }): string {
  return [`${name}=${value}`, 'Path=/', `Max-Age=${options.maxAgeSeconds}`, 'HttpOnly', 'SameSite=Strict', ...(options.secure ? ['Secure'] : [])].join('; ');
}

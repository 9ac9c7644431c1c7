import type { IncomingHttpHeaders } from 'node:http';
import type { HostPolicy } from './hosts.ts';

// Browser origins (spec 5 rule 5): only configured origins get CORS, and each gets its own origin
// echoed back, never `*`. A request without Origin is no browser cross-origin call and passes; so
// does a same-origin call (Origin names the host the request was sent to), which browsers make
// for the service's own pages and which CORS does not govern — but only when that host is one of
// the service's own names: an Origin equal to a rebound Host proves nothing (DNS rebinding).

export type OriginVerdict =
  | { kind: 'none' }
  | { kind: 'same-origin' }
  | { kind: 'allowed'; origin: string }
  | { kind: 'forbidden' };

export const ALLOWED_METHODS = 'GET, POST, OPTIONS';
export const ALLOWED_HEADERS = 'Authorization, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID';
const EXPOSED_HEADERS = 'Retry-After, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, WWW-Authenticate, Mcp-Session-Id';
const PREFLIGHT_MAX_AGE_SECONDS = '600';

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function hostOf(origin: string): string | null {
  try {
    return new URL(origin).host.toLowerCase();
  } catch {
    return null;
  }
}

export class OriginPolicy {
  private readonly allowed: Set<string>;
  private readonly hosts: HostPolicy;

  constructor(allowedOrigins: readonly string[], hosts: HostPolicy) {
    this.allowed = new Set(allowedOrigins.map((origin) => origin.replace(/\/$/, '').toLowerCase()));
    this.hosts = hosts;
  }

  judge(headers: IncomingHttpHeaders): OriginVerdict {
    const origin = headerValue(headers.origin);
    if (origin === undefined) return { kind: 'none' };
    const normalised = origin.trim().replace(/\/$/, '').toLowerCase();
    if (this.allowed.has(normalised)) return { kind: 'allowed', origin: origin.trim().replace(/\/$/, '') };
    const host = headerValue(headers.host)?.trim().toLowerCase();
    if (host && normalised !== 'null' && hostOf(normalised) === host && this.hosts.allows(host)) return { kind: 'same-origin' };
    return { kind: 'forbidden' };
  }

  /** Headers every answer to an allowed cross-origin request carries (errors included, so a page can read its 429). */
  responseHeaders(verdict: OriginVerdict): Record<string, string> {
    if (verdict.kind !== 'allowed') return { vary: 'Origin' };
    return { 'access-control-allow-origin': verdict.origin, 'access-control-expose-headers': EXPOSED_HEADERS, vary: 'Origin' };
  }

  /** The headers of a 204 preflight answer for an allowed origin. */
  preflightHeaders(verdict: OriginVerdict & { kind: 'allowed' }): Record<string, string> {
    return {
      'access-control-allow-origin': verdict.origin,
      'access-control-allow-methods': ALLOWED_METHODS,
      'access-control-allow-headers': ALLOWED_HEADERS,
      'access-control-max-age': PREFLIGHT_MAX_AGE_SECONDS,
      vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
    };
  }
}

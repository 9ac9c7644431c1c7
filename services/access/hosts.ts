import { isIP } from 'node:net';
import type { IncomingHttpHeaders } from 'node:http';

// DNS rebinding (issue 19): a hostile page at http://evil.example:8082 can make its own name resolve
// to 127.0.0.1 and then call the service "same-origin". The browser still sends `Host: evil.example`,
// so a request is served only when its Host names this service: a loopback name, an IP literal (a
// page cannot be served from our address by anyone but us), the hosts of the configured external
// URLs, or a name listed in FUNDUS_ALLOWED_HOSTS. Ports are not compared: the attacker controls the
// name, not the port.

const LOOPBACK_NAMES = new Set(['localhost', 'localhost.localdomain', 'ip6-localhost', 'ip6-loopback']);

/** The host name of a Host header value (`name:port`, `[v6]:port`), lower-cased and without the port. */
export function hostNameOf(host: string): string {
  const value = host.trim().toLowerCase();
  if (value.startsWith('[')) return value.slice(1, value.indexOf(']') > 0 ? value.indexOf(']') : undefined);
  const colon = value.lastIndexOf(':');
  const name = colon >= 0 && value.indexOf(':') === colon ? value.slice(0, colon) : value;
  return name.endsWith('.') ? name.slice(0, -1) : name;
}

export class HostPolicy {
  private readonly allowed: Set<string>;

  constructor(allowedHosts: readonly string[]) {
    this.allowed = new Set(allowedHosts.map((host) => hostNameOf(host)));
  }

  /** Is `host` (a Host header value) a name of this service? A request without Host (HTTP/1.0) passes. */
  allows(host: string | undefined): boolean {
    if (host === undefined) return true;
    const name = hostNameOf(host);
    if (!name) return false;
    return LOOPBACK_NAMES.has(name) || name.endsWith('.localhost') || isIP(name) !== 0 || this.allowed.has(name);
  }

  allowsRequest(headers: IncomingHttpHeaders): boolean {
    return this.allows(headers.host);
  }
}

// Which hosts a crawl may enter: host AND port. "example.org" allows that host on the default
// ports of http and https (80, 443: a redirect from http to https stays inside), "example.org:8080"
// only port 8080, "*.example.org" any subdomain on the default ports ("*.example.org:8080": on
// 8080). A scheme or path in an entry is ignored. Without an explicit port a server on another
// port of an allowed host (an admin interface, a database's HTTP port) stays out of reach.

/** Matches a URL (string or parsed) against the allowed hosts. */
export function hostMatcher(hosts: string[]): (url: string | URL) => boolean {
  const exact = new Set<string>();
  const suffixes: { suffix: string; port: string }[] = [];
  for (const entry of hosts) {
    const value = entry.trim().toLowerCase();
    const wildcard = value.startsWith('*.');
    const name = value.slice(wildcard ? 2 : 0);
    let parsed: URL;
    try {
      parsed = new URL(name.includes('://') ? name : `http://${name}`);
    } catch {
      continue;
    }
    const port = normalPort(parsed.port);
    if (wildcard) suffixes.push({ suffix: `.${parsed.hostname}`, port });
    else exact.add(`${parsed.hostname}|${port}`);
  }
  return (raw) => {
    let url: URL;
    try {
      url = typeof raw === 'string' ? new URL(raw) : raw;
    } catch {
      return false;
    }
    const port = normalPort(url.port);
    return exact.has(`${url.hostname}|${port}`) || suffixes.some((s) => s.port === port && url.hostname.endsWith(s.suffix));
  };
}

/** 80 and 443 are the default ports: written or not, they are the same entry. */
function normalPort(port: string): string {
  return port === '80' || port === '443' ? '' : port;
}

/** The allow-list entry that admits exactly this URL's host and port. */
export function hostEntryOf(url: string): string {
  const parsed = new URL(url);
  return parsed.port ? `${parsed.hostname}:${parsed.port}` : parsed.hostname;
}

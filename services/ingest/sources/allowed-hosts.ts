// Which hosts a crawl may enter.

/** Exact host names, and "*.example.org" for any subdomain; ports and schemes are ignored. */
export function hostMatcher(hosts: string[]): (hostname: string) => boolean {
  const exact = new Set<string>();
  const suffixes: string[] = [];
  for (const entry of hosts) {
    const value = entry.trim().toLowerCase();
    const wildcard = value.startsWith('*.');
    const name = value.slice(wildcard ? 2 : 0);
    let hostname: string;
    try {
      hostname = new URL(name.includes('://') ? name : `http://${name}`).hostname;
    } catch {
      continue;
    }
    if (wildcard) suffixes.push(`.${hostname}`);
    else exact.add(hostname);
  }
  return (hostname) => exact.has(hostname) || suffixes.some((suffix) => hostname.endsWith(suffix));
}

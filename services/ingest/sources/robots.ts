// robots.txt per RFC 9309: groups by user-agent, Allow/Disallow with the longest match winning
// (Allow on a tie), "*" and "$" in patterns, plus the widely used Crawl-delay and Sitemap lines.

export interface RobotsRules {
  /** pathAndQuery as in a URL: "/path?query", percent-encoded. */
  isAllowed(pathAndQuery: string): boolean;
  /** Crawl-delay of the matching group, in ms; null when none is given. */
  crawlDelayMs: number | null;
  /** Sitemap URLs named anywhere in the file. */
  sitemaps: string[];
  /** Set when everything is disallowed because robots.txt could not be had (not by its rules). */
  unavailable?: string;
  /** Set when the host's address was refused (address-guard.ts): then its pages are refused for that reason. */
  refused?: string;
}

interface Rule {
  allow: boolean;
  pattern: string;
}

/** RFC 9309 section 2.3.1.3: 4xx means there are no rules. */
export const ALLOW_ALL: RobotsRules = { isAllowed: () => true, crawlDelayMs: null, sitemaps: [] };
/** RFC 9309 section 2.3.1.4: 5xx or unreachable means complete disallow; the reason says which. */
export function disallowAll(unavailable: string): RobotsRules {
  return { isAllowed: (path) => path === '/robots.txt', crawlDelayMs: null, sitemaps: [], unavailable };
}

/** The rules that a fetch of /robots.txt with this status and body stands for (after redirects). */
export function robotsFromResponse(status: number, body: string, productToken: string): RobotsRules {
  if (status >= 200 && status < 300) return parseRobotsTxt(body, productToken);
  // 429 says "slow down", not "no robots.txt": treat it like a server error (as Google does).
  if (status >= 400 && status < 500 && status !== 429) return ALLOW_ALL;
  return disallowAll(`robots.txt answered http status ${status}`);
}

export function parseRobotsTxt(text: string, productToken: string): RobotsRules {
  const token = productToken.toLowerCase();
  const sitemaps: string[] = [];
  const groups: { agents: string[]; rules: Rule[]; crawlDelay: number | null }[] = [];
  let current: (typeof groups)[number] | null = null;
  let inAgentLines = false;

  for (const rawLine of text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/)) {
    const line = rawLine.replace(/#.*$/, '').trim();
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const key = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (key === 'sitemap') {
      if (value) sitemaps.push(value);
      continue;
    }
    if (key === 'user-agent') {
      // Consecutive user-agent lines open one group together.
      if (!current || !inAgentLines) groups.push((current = { agents: [], rules: [], crawlDelay: null }));
      current.agents.push(value.split(/[/\s]/)[0].toLowerCase());
      inAgentLines = true;
      continue;
    }
    inAgentLines = false;
    if (!current) continue; // rules before any user-agent line belong to no group
    if (key === 'allow' || key === 'disallow') {
      if (value) current.rules.push({ allow: key === 'allow', pattern: normalisePath(value) });
    } else if (key === 'crawl-delay') {
      const seconds = Number(value);
      if (Number.isFinite(seconds) && seconds >= 0) current.crawlDelay = seconds * 1000;
    }
  }

  // Every group naming this crawler counts, merged; only without one do the "*" groups count.
  let matching = groups.filter((group) => group.agents.includes(token));
  if (matching.length === 0) matching = groups.filter((group) => group.agents.includes('*'));
  const rules = matching.flatMap((group) => group.rules);
  const delays = matching.map((group) => group.crawlDelay).filter((delay): delay is number => delay !== null);
  return {
    isAllowed: (pathAndQuery) => isAllowedBy(rules, pathAndQuery),
    crawlDelayMs: delays.length ? Math.max(...delays) : null,
    sitemaps,
  };
}

function isAllowedBy(rules: Rule[], pathAndQuery: string): boolean {
  const path = normalisePath(pathAndQuery || '/');
  if (path === '/robots.txt') return true;
  let best: Rule | null = null;
  for (const rule of rules) {
    if (!matchesPattern(rule.pattern, path)) continue;
    if (!best || rule.pattern.length > best.pattern.length || (rule.pattern.length === best.pattern.length && rule.allow)) best = rule;
  }
  return best?.allow ?? true;
}

/**
 * "*" matches any sequence, a final "$" anchors the end, otherwise the pattern is a prefix.
 * Linear-time wildcard matching: no regular expressions built from untrusted patterns.
 */
export function matchesPattern(pattern: string, path: string): boolean {
  const anchored = pattern.endsWith('$');
  const glob = anchored ? pattern.slice(0, -1) : `${pattern}*`;
  let p = 0;
  let s = 0;
  let star = -1;
  let resume = 0;
  while (s < path.length) {
    if (p < glob.length && glob[p] !== '*' && glob[p] === path[s]) {
      p++;
      s++;
    } else if (p < glob.length && glob[p] === '*') {
      star = p++;
      resume = s;
    } else if (star !== -1) {
      p = star + 1;
      s = ++resume;
    } else {
      return false;
    }
  }
  while (p < glob.length && glob[p] === '*') p++;
  return p === glob.length;
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;

/**
 * One form for patterns and paths (RFC 9309 section 2.2.2): non-ASCII percent-encoded as UTF-8,
 * escapes of unreserved characters decoded, hex digits upper-case.
 */
function normalisePath(value: string): string {
  let out = '';
  for (const char of value.toWellFormed()) {
    if (char.charCodeAt(0) > 0x7e || char.charCodeAt(0) < 0x21) out += encodeURIComponent(char);
    else out += char;
  }
  return out.replace(/%([0-9a-fA-F]{2})/g, (escape, hex: string) => {
    const decoded = String.fromCharCode(Number.parseInt(hex, 16));
    return UNRESERVED.test(decoded) ? decoded : `%${hex.toUpperCase()}`;
  });
}

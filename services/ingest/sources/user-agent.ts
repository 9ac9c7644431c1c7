import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

// How the crawler names itself: "FundusBot/<version> (+<url>)". The product token before the
// slash is what robots.txt groups and X-Robots-Tag prefixes are matched against.

export const PRODUCT_TOKEN = 'FundusBot';

/** Placeholder until an operator names a page about their crawl (package.json "homepage"). */
const UNSET_INFO_URL = 'https://fundus.invalid/bot';

export function defaultUserAgent(): string {
  const pkg = readOwnPackage();
  return `${PRODUCT_TOKEN}/${pkg.version ?? '0'} (+${pkg.homepage ?? UNSET_INFO_URL})`;
}

export function productTokenOf(userAgent: string): string {
  return userAgent.trim().split(/[/\s]/)[0] || PRODUCT_TOKEN;
}

/** package.json of this project, found upwards from here (source tree and dist/ alike). */
function readOwnPackage(): { version?: string; homepage?: string } {
  for (let dir = import.meta.dirname; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string; homepage?: string };
      if (pkg.name === 'fundus') return pkg;
    }
    if (dirname(dir) === dir) return {};
  }
}

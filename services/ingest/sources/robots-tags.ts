// Robots directives of a page (X-Robots-Tag header, <meta name="robots">): only noindex and
// nofollow matter to the crawler; "none" means both.

export interface RobotsDirectives {
  noindex: boolean;
  nofollow: boolean;
}

/** Directives that take a value, so "name: value" is not a user-agent prefix. */
const VALUED = new Set(['unavailable_after', 'max-snippet', 'max-image-preview', 'max-video-preview']);

/**
 * X-Robots-Tag (possibly several headers joined by ", "): a directive applies when it names no
 * user agent or names this crawler's product token; "googlebot: noindex" is not for us.
 */
export function parseXRobotsTag(value: string | undefined, productToken: string): RobotsDirectives {
  const result = { noindex: false, nofollow: false };
  if (!value) return result;
  const token = productToken.toLowerCase();
  let agent: string | null = null;
  for (const part of value.split(',')) {
    let directive = part.trim().toLowerCase();
    const prefixed = /^([a-z0-9_*-]+)\s*:\s*(.*)$/.exec(directive);
    if (prefixed && !VALUED.has(prefixed[1])) {
      agent = prefixed[1];
      directive = prefixed[2];
    }
    if (agent === null || agent === token || agent === '*') apply(result, directive);
  }
  return result;
}

/** The content of a robots meta tag. */
export function parseMetaRobots(content: string): RobotsDirectives {
  const result = { noindex: false, nofollow: false };
  for (const part of content.split(',')) apply(result, part.trim().toLowerCase());
  return result;
}

function apply(result: RobotsDirectives, directive: string): void {
  if (directive === 'noindex' || directive === 'none') result.noindex = true;
  if (directive === 'nofollow' || directive === 'none') result.nofollow = true;
}

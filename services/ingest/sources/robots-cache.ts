import type { HostLanes } from './host-lanes.ts';
import { sendRequest, type RequestSettings } from './http-fetch.ts';
import { resolveUrl } from './links.ts';
import { ALLOW_ALL, disallowAll, robotsFromResponse, type RobotsRules } from './robots.ts';

// robots.txt as the crawler fetches it (RFC 9309 section 2.3): once per origin, through the host's
// lane like any other request, redirects followed, the status deciding when there is no file.

/** RFC 9309 section 2.5: at least 500 KiB must be parsed; more is cut off. */
const MAX_ROBOTS_BYTES = 500 * 1024;
const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export class RobotsCache {
  readonly #rules = new Map<string, Promise<RobotsRules>>();
  readonly #lanes: HostLanes;
  readonly #settings: RequestSettings;
  readonly #token: string;

  constructor(lanes: HostLanes, settings: RequestSettings, productToken: string) {
    this.#lanes = lanes;
    this.#settings = settings;
    this.#token = productToken;
  }

  /** Fetched once per origin; concurrent callers share the one request. */
  rulesFor(origin: string): Promise<RobotsRules> {
    let rules = this.#rules.get(origin);
    if (!rules) {
      rules = this.#fetch(`${origin}/robots.txt`);
      this.#rules.set(origin, rules);
    }
    return rules;
  }

  async #fetch(start: string): Promise<RobotsRules> {
    let url = start;
    // RFC 9309 section 2.3.1.2: follow at least five redirects, even to other hosts.
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      const release = await this.#lanes.acquire(new URL(url).hostname);
      const outcome = await sendRequest(url, this.#settings, {}, release);
      if (!outcome.ok) {
        const rules = disallowAll(`robots.txt unreachable: ${outcome.reason}`);
        // Refused at the first hop: the origin itself is not allowed (a redirect elsewhere only loses robots.txt).
        return hop === 0 && outcome.refused ? { ...rules, refused: outcome.reason } : rules;
      }
      const { response } = outcome;
      const next = REDIRECT_STATUSES.has(response.status) && response.headers.location ? resolveUrl(response.headers.location, url) : null;
      if (next) {
        await response.discard();
        url = next;
        continue;
      }
      if (response.status < 200 || response.status >= 300) {
        await response.discard();
        return robotsFromResponse(response.status, '', this.#token);
      }
      const body = await response.readBody(MAX_ROBOTS_BYTES, { truncate: true });
      if (!body.ok) return disallowAll(`robots.txt unreadable: ${body.reason}`);
      return robotsFromResponse(response.status, Buffer.from(body.bytes).toString('utf8'), this.#token);
    }
    return ALLOW_ALL; // too many redirects: RFC 9309 treats the file as unavailable
  }
}

import { isIP } from 'node:net';
import { fetch as undiciFetch } from 'undici';
import { ADDRESS_REFUSED, AddressRefusedError, type AddressPolicy } from '../sources/address-guard.ts';
import { createCrawlAgent } from '../sources/http-fetch.ts';

// The fediverse fetch client's HTTP requests, with the crawler's SSRF defence: an instance name (or
// --base-url, or a redirect it answers with) could point at 127.0.0.1, a cloud metadata address or
// an intranet server. Only public addresses are connected to unless the operator opts in with the
// crawler's flags (--allow-private, --allow-net CIDR). Host names are checked inside the agent's DNS
// lookup (the address checked is the address connected to), IP literals before each request, and
// redirects are followed here, hop by hop, so every target goes through the same checks.

const MAX_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** A refused address; sent counts the requests of the redirect chain that went out before it. */
export class RefusedRequestError extends AddressRefusedError {
  readonly sent: number;

  constructor(message: string, sent: number) {
    super(message);
    this.sent = sent;
  }
}

export interface GuardedFetch {
  fetch: typeof fetch;
  /** Closes the agent's connections; call it when the run is over. */
  close(): Promise<void>;
}

/** A fetch that throws RefusedRequestError (code FUNDUS_ADDRESS_REFUSED) for a refused address. */
export function guardedFetch(policy: AddressPolicy): GuardedFetch {
  const { dispatcher, checkAddress } = createCrawlAgent(policy);
  const request = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    let url = new URL(input instanceof Request ? input.url : String(input));
    for (let hop = 0; ; hop++) {
      const where = hop === 0 ? '' : `redirect target ${url.origin}: `;
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new RefusedRequestError(`${where}not an http(s) URL`, hop);
      const host = url.hostname.replace(/^\[|\]$/g, '');
      const refused = isIP(host) ? checkAddress(host) : null;
      if (refused) throw new RefusedRequestError(`${where}${refused}`, hop);
      let response;
      try {
        response = await undiciFetch(url, {
          headers: init.headers as Record<string, string> | undefined,
          signal: init.signal,
          redirect: 'manual',
          dispatcher,
        });
      } catch (error) {
        const cause = (error as { cause?: { code?: string; message?: string } }).cause;
        if (cause?.code === ADDRESS_REFUSED) throw new RefusedRequestError(`${where}${cause.message}`, hop);
        throw error;
      }
      const location = response.headers.get('location');
      if (!REDIRECTS.has(response.status) || !location) return response as unknown as Response;
      await response.body?.cancel().catch(() => {});
      if (hop >= MAX_REDIRECTS) throw new Error(`too many redirects (more than ${MAX_REDIRECTS})`);
      url = new URL(location, url);
    }
  };
  return { fetch: request as typeof fetch, close: () => dispatcher.close() };
}

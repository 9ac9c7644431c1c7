import { isIP } from 'node:net';
import { Agent, fetch, type Response } from 'undici';
import { ADDRESS_REFUSED, addressChecker, guardedLookup, type AddressPolicy } from './address-guard.ts';

// One HTTP request of the crawler with undici's fetch: redirects are not followed here (the
// crawler checks every hop), the time limit covers headers and body, and a body is never read
// beyond the byte limit. Every connection goes to an address the crawl's address policy allows:
// IP literals are checked before the request, host names inside the agent's lookup (the address
// checked is the one connected to; no second resolution). Failures come back as reasons, never
// as exceptions.

export interface RequestSettings {
  userAgent: string;
  timeoutMs: number;
  /** Aborts every request of the crawl (time limit, caller stopped); its reason names why. */
  signal: AbortSignal;
  /** Refuses addresses the crawl may not connect to; null when allowed. */
  checkAddress: (address: string) => string | null;
  /** Connects through checkAddress (see createCrawlAgent). */
  dispatcher: Agent;
}

/** The HTTP agent of one crawl and its address check; close the agent when the crawl ends. */
export function createCrawlAgent(policy: AddressPolicy): { dispatcher: Agent; checkAddress: (address: string) => string | null } {
  const checkAddress = addressChecker(policy);
  return { dispatcher: new Agent({ connect: { lookup: guardedLookup(checkAddress) } }), checkAddress };
}

export type BodyResult = { ok: true; bytes: Uint8Array } | { ok: false; reason: string };

export interface HttpResponse {
  status: number;
  /** Lower-case names; Set-Cookie left out, the crawler keeps no cookies. */
  headers: Record<string, string>;
  /** When the response head arrived, ISO 8601. */
  fetchedAt: string;
  /** At most maxBytes: beyond that the read is aborted ('too large'), or cut when truncate is set. */
  readBody(maxBytes: number, options?: { truncate?: boolean }): Promise<BodyResult>;
  /** Frees the connection without reading; call it whenever the body is not wanted. */
  discard(): Promise<void>;
}

/** refused: the address policy refused the connection (the reason says which address and why). */
export type RequestOutcome = { ok: true; response: HttpResponse } | { ok: false; reason: string; refused?: boolean };

const ACCEPT = [
  'text/html',
  'application/xhtml+xml',
  'application/pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.oasis.opendocument.text',
  'application/msword;q=0.9',
  '*/*;q=0.1',
].join(',');

/**
 * onSettled is called once when the exchange is over: failed, body read, body discarded, or timed
 * out (so a forgotten body cannot hold a host's lane for longer than the timeout).
 */
export async function sendRequest(
  url: string,
  settings: RequestSettings,
  extraHeaders: Record<string, string> = {},
  onSettled: () => void = () => {},
): Promise<RequestOutcome> {
  const timeout = new AbortController();
  let settled = false;
  const settle = () => {
    clearTimeout(timer);
    if (!settled) onSettled();
    settled = true;
  };
  const timer = setTimeout(() => {
    timeout.abort(new Error('timeout'));
    settle();
  }, settings.timeoutMs);
  const signal = AbortSignal.any([timeout.signal, settings.signal]);
  const why = (error: unknown) => failureReason(error, timeout.signal, settings.signal);
  // Literal addresses (also the decimal, octal and hex forms the URL parser turns into them) never
  // reach the lookup: check them here.
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  const refused = isIP(host) ? settings.checkAddress(host) : null;
  if (refused) {
    settle();
    return { ok: false, reason: refused, refused: true };
  }
  let response: Response;
  try {
    response = await fetch(url, {
      redirect: 'manual',
      signal,
      dispatcher: settings.dispatcher,
      headers: { 'user-agent': settings.userAgent, accept: ACCEPT, 'accept-language': 'de, en;q=0.5, *;q=0.3', ...extraHeaders },
    });
  } catch (error) {
    settle();
    const refusedAddress = (error as { cause?: { code?: string } })?.cause?.code === ADDRESS_REFUSED;
    return { ok: false, reason: why(error), ...(refusedAddress && { refused: true }) };
  }
  const fetchedAt = new Date().toISOString();
  const headers: Record<string, string> = {};
  for (const [name, value] of response.headers) {
    if (name === 'set-cookie') continue;
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
  }
  const finish = async () => {
    await response.body?.cancel().catch(() => {});
    settle();
  };
  return {
    ok: true,
    response: {
      status: response.status,
      headers,
      fetchedAt,
      discard: finish,
      async readBody(maxBytes, options = {}) {
        if (!response.body) {
          settle();
          return { ok: true, bytes: new Uint8Array(0) };
        }
        const chunks: Uint8Array[] = [];
        let total = 0;
        const reader = response.body.getReader();
        try {
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            total += value.length;
            if (total > maxBytes) {
              await reader.cancel().catch(() => {});
              if (!options.truncate) return { ok: false, reason: `too large (over ${maxBytes} bytes)` };
              chunks.push(value.subarray(0, value.length - (total - maxBytes)));
              break;
            }
            chunks.push(value);
          }
          return { ok: true, bytes: Buffer.concat(chunks) };
        } catch (error) {
          return { ok: false, reason: why(error) };
        } finally {
          settle();
        }
      },
    },
  };
}

function failureReason(error: unknown, timeout: AbortSignal, crawl: AbortSignal): string {
  if (timeout.aborted) return 'timeout';
  if (crawl.aborted) return crawl.reason instanceof Error ? crawl.reason.message : 'crawl stopped';
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  if (cause?.code === ADDRESS_REFUSED) return cause.message!;
  return `network error (${cause?.code ?? cause?.message ?? (error as Error)?.message ?? String(error)})`;
}

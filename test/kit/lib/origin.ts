import { Agent, request as httpsRequest } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';

// A client of the kit's public HTTPS origin that trusts exactly one CA: Caddy's local root
// certificate (never "insecure"). Keep-alive on, as browsers and API clients use it.

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Origin {
  url: string;
  request(method: string, path: string, options?: { body?: string; headers?: Record<string, string>; timeoutMs?: number }): Promise<Answer>;
  close(): void;
}

export function httpsOrigin(options: { host: string; port: number; servername: string; ca: string; maxSockets?: number }): Origin {
  const agent = new Agent({ ca: options.ca, keepAlive: true, maxSockets: options.maxSockets ?? 64 });
  const hostHeader = options.port === 443 ? options.servername : `${options.servername}:${options.port}`;
  return {
    url: `https://${hostHeader}`,
    request(method, path, { body, headers = {}, timeoutMs = 20_000 } = {}) {
      return new Promise((resolve, reject) => {
        const req = httpsRequest(
          {
            host: options.host,
            port: options.port,
            servername: options.servername,
            method,
            path,
            agent,
            timeout: timeoutMs,
            headers: { host: hostHeader, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
          },
          (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (chunk) => (text += chunk));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
            res.on('error', reject);
          },
        );
        req.on('timeout', () => req.destroy(new Error(`${method} ${path} timed out`)));
        req.on('error', reject);
        req.end(body);
      });
    },
    close() {
      agent.destroy();
    },
  };
}

export interface Tally {
  total: number;
  byStatus: Record<string, number>;
  /** Anything that is not the expected answer: status codes >= 500 and transport errors. */
  failures: string[];
}

export function emptyTally(): Tally {
  return { total: 0, byStatus: {}, failures: [] };
}

/**
 * `clients` loops, each sending one request at a time (with `pauseMs` between), until `until()`
 * says stop or `maxPerClient` requests were sent: bounded in count whatever the machine's speed.
 */
export async function drive(
  origin: Origin,
  make: (client: number, i: number) => { method: string; path: string; body?: string; headers?: Record<string, string> },
  options: { clients: number; until: () => boolean; maxPerClient: number; pauseMs?: number },
): Promise<Tally> {
  const tally = emptyTally();
  const loop = async (client: number) => {
    for (let i = 0; i < options.maxPerClient && !options.until(); i++) {
      const { method, path, body, headers } = make(client, i);
      tally.total++;
      try {
        const answer = await origin.request(method, path, { body, headers });
        tally.byStatus[answer.status] = (tally.byStatus[answer.status] ?? 0) + 1;
        if (answer.status >= 500) tally.failures.push(`${method} ${path}: ${answer.status} ${answer.body.slice(0, 120)}`);
      } catch (error) {
        tally.failures.push(`${method} ${path}: ${error instanceof Error ? error.message : String(error)}`);
      }
      if (options.pauseMs) await new Promise((r) => setTimeout(r, options.pauseMs));
    }
  };
  await Promise.all(Array.from({ length: options.clients }, (_, client) => loop(client)));
  return tally;
}

import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mastodonStatus } from '../helpers/search-web.ts';
import { runFundus } from '../helpers/processes.ts';

// `fundus fediverse fetch` has the crawler's SSRF defence (issue 19 follow-up): an instance (or
// --base-url) on a loopback address, and a redirect from an allowed instance to loopback (an IP
// literal or a name that resolves there), are refused and reported, and the local server behind
// them gets no request at all, unless the operator opts in with --allow-private / --allow-net.

const INSTANCE = 'social.example';

interface Local {
  server: Server;
  requests: string[];
  url: string;
}

async function listen(host: string, handler: (request: IncomingMessage, response: ServerResponse) => void): Promise<Local> {
  const requests: string[] = [];
  const server = createServer((request, response) => {
    requests.push(request.url!);
    handler(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return { server, requests, url: `http://${host}:${(server.address() as AddressInfo).port}` };
}

let dataDir: string;
/** The target an attacker wants reached: a service on 127.0.0.1. */
let target: Local;
/** An instance the operator allowed (127.0.0.2 with --allow-net) that redirects wherever redirectTo says. */
let instance: Local;
let redirectTo = '';

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'fundus-fedi-ssrf-'));
  target = await listen('127.0.0.1', (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify([mastodonStatus({ id: '1', instance: INSTANCE, user: 'intern', content: '<p>Geheimes Intranet</p>', createdAt: '2026-11-20T12:00:00.000Z' })]));
  });
  instance = await listen('127.0.0.2', (request, response) => {
    response.writeHead(302, { location: `${redirectTo}${request.url}` });
    response.end();
  });
});
afterAll(async () => {
  await Promise.all([target, instance].map(({ server }) => new Promise((resolve) => server.close(resolve))));
  rmSync(dataDir, { recursive: true, force: true });
});
beforeEach(() => {
  target.requests.length = 0;
  instance.requests.length = 0;
});

function fetchCli(baseUrl: string, ...flags: string[]) {
  return runFundus(['fediverse', 'fetch', '--data', dataDir, '--instance', INSTANCE, '--base-url', baseUrl, '--delay-ms', '0', '--max-seconds', '60', ...flags]);
}

describe('fundus fediverse fetch refuses non-public addresses', () => {
  it('refuses a loopback instance, by IP literal and by a name resolving to loopback', async () => {
    const port = new URL(target.url).port;
    for (const baseUrl of [target.url, `http://localhost:${port}`, `http://[::ffff:127.0.0.1]:${port}`]) {
      const run = await fetchCli(baseUrl);
      expect(run.code, run.stderr).toBe(1);
      expect(run.stdout).toMatch(/0 posts read in 0 requests .*stopped: address_refused \(refused address \S+ \(loopback; --allow-private or --allow-net allows it\)\)/);
    }
    expect(target.requests).toEqual([]);
  }, 120_000);

  it('refuses a redirect from an allowed instance to loopback on every hop', async () => {
    const port = new URL(target.url).port;
    for (const destination of [target.url, `http://localhost:${port}`]) {
      redirectTo = destination;
      const run = await fetchCli(instance.url, '--allow-net', '127.0.0.2/32');
      expect(run.code, run.stderr).toBe(1);
      expect(run.stdout).toMatch(/0 posts read in 1 requests .*stopped: address_refused \(redirect target http:\/\/(127\.0\.0\.1|localhost):\d+: refused address \S+ \(loopback;/);
    }
    expect(instance.requests).toHaveLength(2);
    expect(target.requests).toEqual([]);
  }, 120_000);

  it('follows the same redirect to loopback with --allow-private (the opt-in, and proof the target counts requests)', async () => {
    redirectTo = target.url;
    const run = await fetchCli(instance.url, '--allow-private');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/1 posts read .*stopped: end/);
    expect(target.requests.length).toBeGreaterThan(0);
  }, 120_000);
});

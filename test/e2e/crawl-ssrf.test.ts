import { createServer, type Server } from 'node:http';
import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentIdForUrl } from '../../services/core/urls.ts';
import { SqliteIndex } from '../../services/index/sqlite/sqlite-index.ts';
import { runFundus } from '../helpers/processes.ts';

// SSRF through `fundus crawl` (issue 19): a page may link or redirect to loopback and private
// addresses; without --allow-private / --allow-net the crawler must refuse them, in every form
// the URL parser accepts, and report why. The "secret" server on 127.0.0.1 stands for an intranet
// service; the "public" site runs on ::1 and is admitted with --allow-net ::1/128 only, so that
// everything it points at on 127.0.0.1 must be refused.

const page = (title: string, links: string[] = []) =>
  `<!doctype html><html lang="de"><head><meta charset="utf-8"><title>${title}</title></head><body><main><h1>${title}</h1>` +
  `<p>Die Gemeinde Wiesental berichtet über ihre Häuser am Bach und die Bücherei.</p>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</main></body></html>`;

function listen(handler: Parameters<typeof createServer>[1], host: string): Promise<Server> {
  const server = createServer(handler);
  return new Promise((resolve) => server.listen(0, host, () => resolve(server)));
}

const portOf = (server: Server) => (server.address() as AddressInfo).port;

describe('fundus crawl refuses non-public addresses', () => {
  let secret: Server;
  let site: Server;
  const secretHits: string[] = [];
  let secretPort: number;
  let siteBase: string;

  beforeAll(async () => {
    secret = await listen((request, response) => {
      secretHits.push(request.url ?? '');
      if (request.url === '/robots.txt') return response.writeHead(404).end();
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page('Geheimes Intranet Quittenmarmelade'));
    }, '127.0.0.1');
    secretPort = portOf(secret);
    const loopbackForms = [
      `http://127.0.0.1:${secretPort}/link-dotted`,
      `http://2130706433:${secretPort}/link-decimal`,
      `http://0177.0.0.1:${secretPort}/link-octal`,
      `http://0x7f.0.0.1:${secretPort}/link-hex`,
      `http://[::ffff:127.0.0.1]:${secretPort}/link-mapped`,
      `http://localhost:${secretPort}/link-name`,
    ];
    site = await listen((request, response) => {
      if (request.url === '/robots.txt') return response.writeHead(404).end();
      if (request.url === '/weiter') return response.writeHead(302, { location: `http://127.0.0.1:${secretPort}/redirected` }).end();
      if (request.url === '/weiter-dezimal') return response.writeHead(301, { location: `http://2130706433:${secretPort}/redirected-decimal` }).end();
      if (request.url === '/') return response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page('Startseite der Gemeinde', ['/weiter', '/weiter-dezimal', ...loopbackForms]));
      response.writeHead(404).end();
    }, '::1');
    siteBase = `http://[::1]:${portOf(site)}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => secret.close(resolve));
    await new Promise((resolve) => site.close(resolve));
  });

  it('refuses a loopback seed in every host form without --allow-private, and says why', async () => {
    const data = mkdtempSync(join(tmpdir(), 'fundus-ssrf-seed-'));
    const seeds = [`http://127.0.0.1:${secretPort}/a`, `http://2130706433:${secretPort}/b`, `http://0x7f000001:${secretPort}/c`, `http://[::1]:${secretPort}/d`, `http://[::ffff:7f00:1]:${secretPort}/e`];
    const run = await runFundus(['crawl', '--data', data, '--delay-ms', '0', ...seeds.flatMap((seed) => ['--seed', seed])]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/added 0/);
    expect(run.stderr.match(/CRAWL_SKIPPED: refused address (127\.0\.0\.1|::1|::ffff:7f00:1) \(loopback/g)).toHaveLength(5);
    expect(secretHits).toEqual([]);
  }, 60_000);

  it('follows no link or redirect from an allowed site to loopback, whatever the host form', async () => {
    const data = mkdtempSync(join(tmpdir(), 'fundus-ssrf-links-'));
    const run = await runFundus([
      'crawl', '--data', data, '--delay-ms', '0', '--allow-net', '::1/128',
      '--seed', `${siteBase}/`, '--allow-host', `[::1]:${portOf(site)}`, '--allow-host', `127.0.0.1:${secretPort}`, '--allow-host', `localhost:${secretPort}`,
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/added 1\b/);
    expect(run.stderr).toMatch(/weiter: CRAWL_SKIPPED: redirect target: refused address 127\.0\.0\.1 \(loopback/);
    expect(run.stderr).toMatch(/weiter-dezimal: CRAWL_SKIPPED: redirect target: refused address 127\.0\.0\.1/);
    // The URL parser turns the decimal, octal, hex and mapped forms into 127.0.0.1 / ::ffff:7f00:1
    // (one queued URL); "localhost" resolves to loopback and is refused at the lookup.
    expect(run.stderr).toMatch(/link-dotted: CRAWL_SKIPPED: refused address 127\.0\.0\.1/);
    expect(run.stderr).toMatch(/link-name: CRAWL_SKIPPED: refused address (127\.0\.0\.1|::1) \(loopback/);
    expect(secretHits).toEqual([]);
    const index = new SqliteIndex({ file: join(data, 'index.sqlite'), readOnly: true });
    expect((await index.stats()).documents).toBe(1);
    await index.close();
  }, 60_000);

  it('crawls loopback when the operator opts in with --allow-private', async () => {
    const data = mkdtempSync(join(tmpdir(), 'fundus-ssrf-allowed-'));
    const run = await runFundus(['crawl', '--data', data, '--delay-ms', '0', '--allow-private', '--seed', `http://2130706433:${secretPort}/opt-in`]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/added 1\b/);
    expect(secretHits).toContain('/opt-in');
    const index = new SqliteIndex({ file: join(data, 'index.sqlite'), readOnly: true });
    expect(await index.getDocument(documentIdForUrl(`http://127.0.0.1:${secretPort}/opt-in`))).not.toBeNull();
    await index.close();
  }, 60_000);

  it('keeps to the allowed port of an allowed host', async () => {
    const data = mkdtempSync(join(tmpdir(), 'fundus-ssrf-port-'));
    const other = await listen((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end(page('Anderer Port')), '127.0.0.1');
    try {
      const run = await runFundus(['crawl', '--data', data, '--delay-ms', '0', '--allow-private', '--allow-host', `127.0.0.1:${secretPort}`, '--seed', `http://127.0.0.1:${portOf(other)}/`]);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toMatch(/CRAWL_SKIPPED: outside allowed hosts/);
      expect(run.stdout).toMatch(/added 0/);
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
  }, 60_000);
});

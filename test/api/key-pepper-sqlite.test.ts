import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatePepper } from '../../services/access/keys.ts';
import { runFundus, startFundus, type ServingProcess } from '../helpers/processes.ts';

// The embedded key store keeps a check value of its pepper (issue 19 follow-up): an install moved
// from the access.pepper file to FUNDUS_KEY_PEPPER with another value must not turn every key into
// a silent 401. The CLI refuses with exit 1 and a message naming the setting; a started server
// answers keyed calls 503 ACCESS_UNAVAILABLE and logs the setting; anonymous calls go on.

const OTHER = { FUNDUS_KEY_PEPPER: generatePepper().toString('base64url'), FUNDUS_ANONYMOUS_LIMIT: '1000/s' };

function search(gateway: string, key?: string): Promise<Response> {
  return fetch(`${gateway}/v1/search`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key && { authorization: `Bearer ${key}` }) },
    body: JSON.stringify({ q: 'Bücherei' }),
  });
}

async function logShows(server: ServingProcess, pattern: RegExp): Promise<string> {
  for (let i = 0; i < 100 && !pattern.test(server.output()); i++) await new Promise((resolve) => setTimeout(resolve, 100));
  return server.output();
}

describe('sqlite key store with a changed pepper', () => {
  let data: string;
  let key: string;
  let server: ServingProcess | undefined;

  beforeAll(async () => {
    data = mkdtempSync(join(tmpdir(), 'fundus-pepper-'));
    const folder = join(data, 'docs');
    mkdirSync(folder);
    writeFileSync(join(folder, 'buecherei.html'), '<!doctype html><html lang="de"><head><title>Bücherei</title></head><body><p>Die Bücherei der Gemeinde leiht Bücher aus.</p></body></html>');
    const ingested = await runFundus(['ingest', '--data', join(data, 'dir'), '--quiet', folder]);
    expect(ingested.code, ingested.stderr).toBe(0);
    // Made with the default pepper: the file access.pepper in the data directory.
    const created = await runFundus(['keys', 'create', '--data', join(data, 'dir'), '--name', 'Archiv', '--limit', '10/s']);
    expect(created.code, created.stderr).toBe(0);
    key = created.stdout.trimEnd().split('\n').at(-1)!;
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    rmSync(data, { recursive: true, force: true });
  });

  it('the CLI refuses every keys command with another pepper, exit 1 naming the setting', async () => {
    for (const args of [['list'], ['create', '--name', 'Neu', '--limit', '1/s'], ['revoke', 'Archiv'], ['set-limit', 'Archiv', '--limit', '2/s']]) {
      const run = await runFundus(['keys', args[0], '--data', join(data, 'dir'), ...args.slice(1)], OTHER);
      expect(run.code, args.join(' ')).toBe(1);
      expect(run.stderr).toMatch(/key pepper \(FUNDUS_KEY_PEPPER.*is not the one the keys/);
      expect(run.stdout).not.toMatch(/fk_/);
    }
    // Nothing was changed: with the right pepper the key is still active, limit unchanged, no new key.
    const listed = await runFundus(['keys', 'list', '--data', join(data, 'dir'), '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toMatchObject([{ name: 'Archiv', limit: '10/s', revokedAt: null }]);
  }, 120_000);

  it('a server with another pepper answers keyed calls 503 and logs the setting; with the right one 200', async () => {
    server = await startFundus(['--data', join(data, 'dir'), '--role', 'gateway', '--port', '0'], OTHER);
    const gateway = server.urls.gateway;
    const keyed = await search(gateway, key);
    expect(keyed.status).toBe(503);
    expect(await keyed.json()).toMatchObject({ code: 'ACCESS_UNAVAILABLE' });
    expect(await logShows(server, /FUNDUS_KEY_PEPPER/)).toMatch(/not the one the keys/);
    expect(server.output()).not.toContain(key);
    expect((await search(gateway)).status).toBe(200);
    await server.stop();

    server = await startFundus(['--data', join(data, 'dir'), '--role', 'gateway', '--port', '0'], { FUNDUS_ANONYMOUS_LIMIT: '1000/s' });
    const right = await search(server.urls.gateway, key);
    expect(right.status).toBe(200);
    expect(((await right.json()) as { total: number }).total).toBe(1);
  }, 120_000);
});

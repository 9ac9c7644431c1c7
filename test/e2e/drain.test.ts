import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, runFundus, startFundus } from '../helpers/processes.ts';

// The rolling-stop contract of `fundus serve` (issue 18 point 3), on a real process: on SIGTERM it
// turns /readyz to 503 and keeps serving for FUNDUS_DRAIN_MS, each answer closing its connection,
// then stops listening and exits 0. (The kit suite checks the same through Caddy under load.)

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function get(url: string): Promise<{ status: number; connection: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false, headers: { connection: 'keep-alive' } }, (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('fundus serve drains on SIGTERM', () => {
  it('answers /readyz 503 while still serving (Connection: close), then exits 0', async () => {
    const data = mkdtempSync(join(tmpdir(), 'fundus-drain-'));
    dirs.push(data);
    // serve waits (503) until an index exists: give it one, so /readyz answers for the drain alone.
    expect((await runFundus(['ingest', '--data', data, join(ROOT, 'samples/web')])).code).toBe(0);
    const served = await startFundus(['--data', data, '--role', 'gateway', '--port', '0'], { FUNDUS_DRAIN_MS: '4000', FUNDUS_LOG_LEVEL: 'info' }, ['gateway']);
    const url = served.urls.gateway;
    expect((await get(`${url}/readyz`)).status).toBe(200);
    expect((await get(`${url}/openapi.json`)).connection).not.toBe('close');

    let exited = false;
    const exit = served.stop('SIGTERM').then((code) => ((exited = true), code));
    // Wait (bounded) for the drain to begin: the process says so on its log.
    for (let i = 0; i < 200 && !served.output().includes('draining: not ready, still serving'); i++) await new Promise((r) => setTimeout(r, 25));
    expect(served.output()).toContain('draining: not ready, still serving');

    const ready = await get(`${url}/readyz`);
    expect(ready.status).toBe(503);
    expect(JSON.parse(ready.body)).toEqual({ status: 'draining' });
    const still = await get(`${url}/openapi.json`);
    expect(still.status).toBe(200);
    expect(still.connection).toBe('close');
    expect(exited).toBe(false);
    expect(await exit).toBe(0);
  });

  it('without FUNDUS_DRAIN_MS stops at once, as before', async () => {
    const data = mkdtempSync(join(tmpdir(), 'fundus-drain-'));
    dirs.push(data);
    const served = await startFundus(['--data', data, '--role', 'gateway', '--port', '0'], {}, ['gateway']);
    expect(await served.stop('SIGTERM')).toBe(0);
    expect(served.output()).not.toContain('draining');
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type ServingProcess, startFundus } from '../helpers/processes.ts';

// Issue 18 point 8: the public origin in documents comes from configuration or from the request,
// never from the bind address (0.0.0.0 in a container).

const data = mkdtempSync(join(tmpdir(), 'fundus-origin-'));
let served: ServingProcess | undefined;
afterAll(async () => {
  await served?.stop();
  rmSync(data, { recursive: true, force: true });
});

function getJson(port: number, path: string, host: string): Promise<Record<string, any>> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => (res.statusCode === 200 ? resolve(JSON.parse(body)) : reject(new Error(`${path}: ${res.statusCode} ${body}`))));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the public origin without FUNDUS_EXTERNAL_URL', () => {
  it('is the origin each request was addressed to, not the wildcard bind address', async () => {
    served = await startFundus(['--data', data, '--role', 'gateway', '--role', 'web', '--host', '0.0.0.0', '--port', '0', '--web-port', '0'], {}, ['gateway', 'web']);
    const gatewayPort = Number(new URL(served.urls.gateway).port);
    const webPort = Number(new URL(served.urls.web).port);
    for (const host of [`127.0.0.1:${gatewayPort}`, `localhost:${gatewayPort}`]) {
      expect((await getJson(gatewayPort, '/openapi.json', host)).servers[0].url).toBe(`http://${host}`);
    }
    expect((await getJson(webPort, '/api/openapi.json', `localhost:${webPort}`)).servers[0].url).toBe(`http://localhost:${webPort}`);
    // A name outside the host allow-list never reaches a document (403 before any route).
    await expect(getJson(gatewayPort, '/openapi.json', 'evil.example')).rejects.toThrow(/403/);
  });
});

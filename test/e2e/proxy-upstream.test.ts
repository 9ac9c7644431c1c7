import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalCaddy, startLocalCaddy } from '../helpers/caddy.ts';
import { freePort } from '../helpers/redis-server.ts';

// What a real Caddy on proxy/Caddyfile.local sends to a replica (issue 23 point 5): the replica
// must not be asked to compress answers Caddy only unpacks again, and Caddy must keep its
// connections to a replica open between requests instead of opening new ones. The replica here is
// a plain HTTP server on loopback that records what reaches it.

const ANSWER = JSON.stringify({ items: Array.from({ length: 200 }, (_, i) => ({ id: `doc-${i}`, title: 'Ein Titel, lang genug zum Komprimieren' })) });

let upstream: Server;
let caddy: LocalCaddy;
let connections = 0;
const searches: IncomingMessage['headers'][] = [];

beforeAll(async () => {
  upstream = createServer((req, res) => {
    if (req.url === '/readyz') return void res.end('ok');
    if (req.url === '/v1/search') searches.push(req.headers);
    req.resume();
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      res.end(ANSWER);
    });
  });
  upstream.on('connection', () => connections++);
  await new Promise<void>((done) => upstream.listen(0, '127.0.0.1', done));
  const address = `127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  caddy = await startLocalCaddy({ httpPort: await freePort(), httpsPort: await freePort(), gatewayUpstreams: [address], webUpstreams: [address] });
}, 60_000);

afterAll(async () => {
  await caddy?.stop();
  await new Promise<void>((done) => (upstream ? upstream.close(() => done()) : done()));
});

const search = (headers: Record<string, string> = {}) =>
  caddy.request('POST', '/v1/search', { headers: { 'content-type': 'application/json', ...headers }, body: '{"q":"haus"}' });

describe('Caddy in front of a replica', () => {
  it('asks the replica for compression only when the client asked for it', async () => {
    searches.length = 0;
    const plain = await search();
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(ANSWER);
    expect(searches[0]['accept-encoding']).toBeUndefined();

    const packed = await search({ 'accept-encoding': 'gzip' });
    expect(packed.status).toBe(200);
    expect(packed.headers['content-encoding']).toBe('gzip');
    expect(searches[1]['accept-encoding']).toBe('gzip');
  });

  it('keeps its connections to a replica for the next requests', async () => {
    const before = connections;
    // 10 waves of 8 searches at once; between waves every connection is idle.
    for (let wave = 0; wave < 10; wave++) {
      const answers = await Promise.all(Array.from({ length: 8 }, () => search()));
      expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    }
    // At most one connection per search in flight, plus a few for health checks. Go's default of 2
    // idle connections per upstream opened about 6 new ones per wave (about 60).
    expect(connections - before).toBeLessThanOrEqual(16);
  });
});

import { createConnection, type Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildGatewayApp } from '../../services/gateway/app.ts';
import { mcpPlugin } from '../../services/gateway/mcp/plugin.ts';
import { SqliteIndex } from '../../services/index/sqlite/sqlite-index.ts';
import { CONTRACT_DOCS, makeDoc } from '../helpers/documents.ts';
import { createIndexFile } from '../helpers/mcp-gateway.ts';
import { admitAllGuardForTests } from '../helpers/open-guard.ts';

// Slow clients (issue 19): without a proxy in front, a POST whose body trickles in at 1 byte/s or
// headers that never end (slowloris) held a connection open for minutes. The gateway is started
// with short limits here (the defaults are 30 s for a request and 10 s for its headers) and driven
// through a raw socket that sends one byte at a time until the server cuts it off.

let app: FastifyInstance;
let index: SqliteIndex;
let port: number;

beforeAll(async () => {
  index = new SqliteIndex({ file: await createIndexFile(CONTRACT_DOCS.map(makeDoc)), readOnly: true });
  const deps = { index, countBudgetMs: 100, externalUrl: 'http://127.0.0.1:8082' };
  app = await buildGatewayApp({
    ...deps,
    guard: admitAllGuardForTests(),
    logLevel: 'silent',
    timeouts: { requestMs: 1500, headersMs: 1000, checkIntervalMs: 200 },
    plugins: [mcpPlugin(deps)],
  });
  port = Number(new URL(await app.listen({ host: '127.0.0.1', port: 0 })).port);
});

afterAll(async () => {
  await app?.close();
  await index?.close();
});

interface Trickle {
  /** What the server answered before it closed the connection (a 408, or nothing). */
  answer: string;
  /** Bytes of the trickled part that were sent before the cut. */
  sent: number;
}

/** Sends `head` at once, then `tail` one byte every 200 ms, until the server closes the socket. */
function trickle(head: string, tail: string): Promise<Trickle> {
  return new Promise((resolve, reject) => {
    const socket: Socket = createConnection({ host: '127.0.0.1', port });
    let answer = '';
    let sent = 0;
    let timer: NodeJS.Timeout | null = null;
    socket.on('connect', () => {
      socket.write(head);
      timer = setInterval(() => {
        // The whole tail is 600 bytes (two minutes): the server must cut us off long before.
        if (sent >= tail.length) return;
        if (!socket.destroyed) socket.write(tail[sent]);
        sent += 1;
      }, 200);
    });
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('close', () => {
      if (timer) clearInterval(timer);
      resolve({ answer, sent });
    });
    socket.on('error', (error) => {
      if ((error as NodeJS.ErrnoException).code === 'ECONNRESET' || (error as NodeJS.ErrnoException).code === 'EPIPE') return;
      reject(error);
    });
  });
}

describe('slow clients are cut off', () => {
  it('has limits by default on every server fundus starts (30 s per request, 10 s for headers)', async () => {
    const plain = await buildGatewayApp({ index, guard: admitAllGuardForTests(), countBudgetMs: 100, externalUrl: 'http://127.0.0.1:8082', logLevel: 'silent' });
    await plain.ready();
    expect(plain.server.requestTimeout).toBe(30_000);
    expect(plain.server.headersTimeout).toBe(10_000);
    await plain.close();
  });

  const body = JSON.stringify({ q: 'Haus', source: 'x'.repeat(560) });

  it('a POST body sent one byte at a time gets 408 and a closed connection', async () => {
    const head = `POST /v1/search HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    const { answer, sent } = await trickle(head, body);
    expect(sent).toBeLessThan(body.length);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
  }, 60_000);

  it('headers sent one byte at a time (slowloris) get the connection closed', async () => {
    const { answer, sent } = await trickle(`GET /v1/stats HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`, `X-Slow: ${'a'.repeat(590)}\r\n\r\n`);
    expect(sent).toBeLessThan(600);
    expect(answer).not.toMatch(/^HTTP\/1\.1 200 /);
  }, 60_000);

  it('a slow body on /mcp is cut off too', async () => {
    const message = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { pad: 'x'.repeat(560) } });
    const head = `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${message.length}\r\n\r\n`;
    const { answer, sent } = await trickle(head, message);
    expect(sent).toBeLessThan(message.length);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
  }, 60_000);
});

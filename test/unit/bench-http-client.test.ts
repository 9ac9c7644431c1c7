import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SearchClient } from '../../scripts/bench/lib/http-load.ts';

// The benchmark's load generator speaks HTTP/1.1 on plain sockets (scripts/bench/lib/http-load.ts):
// checked here against node:http answering with a length, in chunks, and closing the connection.
describe('benchmark HTTP client', () => {
  let server: http.Server;
  let baseUrl = '';
  let connections = 0;
  const seen: { authorization?: string; body: string }[] = [];

  beforeAll(async () => {
    server = http.createServer((request, response) => {
      let body = '';
      request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      request.on('end', () => {
        seen.push({ authorization: request.headers.authorization, body });
        const { q } = JSON.parse(body) as { q: string };
        const answer = JSON.stringify({ q, text: 'Gärten '.repeat(2000), total_relation: q === 'gte' ? 'gte' : 'eq' });
        if (q === 'chunked') {
          response.writeHead(200, { 'content-type': 'application/json' });
          response.write(answer.slice(0, 5000));
          setTimeout(() => response.end(answer.slice(5000)), 5);
        } else if (q === 'close') {
          response.writeHead(429, { 'content-type': 'application/json', connection: 'close', 'content-length': Buffer.byteLength(answer) });
          response.end(answer);
        } else {
          response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer) });
          response.end(answer);
        }
      });
    });
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('sends the body with the key, reads answers by length and in chunks, over one kept connection', async () => {
    const client = new SearchClient(baseUrl, 'geheim');
    const before = connections;
    for (const q of ['eins', 'chunked', 'zwei', 'gte']) {
      const reply = await client.send(Buffer.from(JSON.stringify({ q })), true);
      expect(reply.status).toBe(200);
      const answer = JSON.parse(reply.body!.toString('utf8')) as { q: string; text: string };
      expect(answer.q).toBe(q);
      expect(answer.text).toHaveLength(7 * 2000);
      expect(reply.tail.endsWith(`"total_relation":"${q === 'gte' ? 'gte' : 'eq'}"}`)).toBe(true);
      expect(reply.ms).toBeGreaterThan(0);
    }
    expect(connections - before).toBe(1);
    expect(seen.at(-1)).toEqual({ authorization: 'Bearer geheim', body: '{"q":"gte"}' });
    client.close();
  });

  it('opens a connection per request in flight, and a new one after the server closed one', async () => {
    const client = new SearchClient(baseUrl, 'geheim');
    const before = connections;
    const replies = await Promise.all(['a', 'b', 'c'].map((q) => client.send(Buffer.from(JSON.stringify({ q })))));
    expect(replies.map((reply) => reply.status)).toEqual([200, 200, 200]);
    expect(replies.every((reply) => reply.body === null)).toBe(true);
    expect(connections - before).toBe(3);
    expect((await client.send(Buffer.from('{"q":"close"}'))).status).toBe(429);
    // Two kept connections are left: a third request in flight opens a new one.
    const after = await Promise.all(['d', 'e', 'f'].map((q) => client.send(Buffer.from(JSON.stringify({ q })))));
    expect(after.map((reply) => reply.status)).toEqual([200, 200, 200]);
    expect(connections - before).toBe(4);
    client.close();
  });

  it('only talks to 127.0.0.1', () => {
    expect(() => new SearchClient('http://example.org:80', 'geheim')).toThrow(/127\.0\.0\.1/);
    expect(() => new SearchClient('https://localhost:443', 'geheim')).toThrow(/root certificate/);
  });
});

// Through the kit (scripts/load/search-kit.ts) the same client speaks HTTPS to Caddy on loopback,
// trusting only the root it is given; here a self-signed certificate for "localhost" made by openssl.
describe('benchmark HTTP client over HTTPS', () => {
  let dir = '';
  let server: https.Server;
  let port = 0;
  const hosts: string[] = [];
  const selfSigned = (name: string) => {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost', '-keyout', join(dir, `${name}.key`), '-out', join(dir, `${name}.crt`)], { stdio: 'ignore' });
    return { key: readFileSync(join(dir, `${name}.key`), 'utf8'), cert: readFileSync(join(dir, `${name}.crt`), 'utf8') };
  };
  let own = { key: '', cert: '' };
  let other = { key: '', cert: '' };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'bench-tls-'));
    own = selfSigned('own');
    other = selfSigned('other');
    server = https.createServer({ key: own.key, cert: own.cert }, (request, response) => {
      hosts.push(request.headers.host ?? '');
      request.resume().on('end', () => {
        const answer = JSON.stringify({ total: 1, total_relation: 'eq' });
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer) });
        response.end(answer);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers over TLS with the given root, naming the host it was given', async () => {
    const client = new SearchClient(`https://localhost:${port}`, 'geheim', own.cert);
    const replies = [await client.send(Buffer.from('{"q":"a"}'), true), await client.send(Buffer.from('{"q":"b"}'))];
    expect(replies.map((reply) => reply.status)).toEqual([200, 200]);
    expect(JSON.parse(replies[0].body!.toString('utf8'))).toEqual({ total: 1, total_relation: 'eq' });
    expect(hosts.at(-1)).toBe(`localhost:${port}`);
    client.close();
  });

  it('refuses a certificate its root did not sign', async () => {
    const client = new SearchClient(`https://localhost:${port}`, 'geheim', other.cert);
    await expect(client.send(Buffer.from('{"q":"a"}'))).rejects.toThrow(/self[- ]signed|certificate/i);
    client.close();
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runFundus, startFundus, type ServingProcess } from '../helpers/processes.ts';

// The gateway served by several threads on one port (FUNDUS_GATEWAY_THREADS, SO_REUSEPORT:
// services/cli/gateway-threads.ts), on a real process: every thread answers alike, the budgets are
// the process's (one per client, not one per thread), MCP works, and a SIGTERM drains every
// thread. Each request opens a new connection, which the kernel hands to one of the threads; the
// request log line names the thread, so the tests can tell that several answered.

const THREADS = '3';
const dirs: string[] = [];
let data: string;

beforeAll(async () => {
  data = mkdtempSync(join(tmpdir(), 'fundus-threads-'));
  dirs.push(data);
  const ingested = await runFundus(['ingest', '--data', data, '--quiet', join(ROOT, 'samples/web')]);
  expect(ingested.code, ingested.stderr).toBe(0);
}, 180_000);

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  connection: string | undefined;
  body: string;
}

/** One request on a connection of its own (agent: false), so that the kernel picks a thread anew. */
function send(url: string, options: { method?: string; body?: unknown; key?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { connection: 'keep-alive' };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    if (options.key) headers.authorization = `Bearer ${options.key}`;
    const req = request(url, { method: options.method ?? 'GET', agent: false, headers }, (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body }));
    });
    req.on('error', reject);
    req.end(options.body === undefined ? undefined : JSON.stringify(options.body));
  });
}

const search = (served: ServingProcess, body: unknown, key?: string) => send(`${served.urls.gateway}/v1/search`, { method: 'POST', body, key });

interface RequestLine {
  thread: number;
  route: string;
  status: number;
}

function requestLines(served: ServingProcess): RequestLine[] {
  const lines: RequestLine[] = [];
  for (const line of served.output().split('\n')) {
    if (!line.startsWith('{')) continue;
    const entry = JSON.parse(line) as { msg?: string; thread?: number; route?: string; status?: number };
    if (entry.msg === 'request') lines.push({ thread: entry.thread!, route: entry.route!, status: entry.status! });
  }
  return lines;
}

/** Waits (bounded) until the process has logged `count` request lines matching `match` (lines reach the log in batches). */
async function loggedLines(served: ServingProcess, count: number, match: (line: RequestLine) => boolean): Promise<RequestLine[]> {
  let lines: RequestLine[] = [];
  for (let i = 0; i < 400; i++) {
    lines = requestLines(served).filter(match);
    if (lines.length >= count) return lines;
    await new Promise((r) => setTimeout(r, 25));
  }
  return lines;
}

/** Sends requests on new connections until the log shows that at least two threads answered (bounded). */
async function untilTwoThreads(served: ServingProcess, route: string, sendOne: () => Promise<Answer>): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (let round = 0; round < 20; round++) {
    for (let i = 0; i < 10; i++) answers.push(await sendOne());
    const lines = await loggedLines(served, answers.length, (line) => line.route === route);
    if (new Set(lines.map((line) => line.thread)).size >= 2) return answers;
  }
  throw new Error(`fewer than two threads answered ${answers.length} requests on new connections`);
}

describe('fundus serve with several gateway threads on one port', () => {
  it('every thread answers searches, the same answer whichever thread; MCP works through them', async () => {
    const served = await startFundus(['--data', data, '--role', 'gateway', '--port', '0'], { FUNDUS_GATEWAY_THREADS: THREADS, FUNDUS_ANONYMOUS_LIMIT: '100000/s' });
    try {
      const answers = await untilTwoThreads(served, '/v1/search', () => search(served, { q: 'Mietpreisbremse' }));
      for (const answer of answers) expect(answer.status).toBe(200);
      const bodies = new Set(answers.map((answer) => answer.body));
      expect(bodies.size).toBe(1);
      expect((JSON.parse(answers[0].body) as { results: unknown[] }).results.length).toBeGreaterThan(0);
      // Logs of the threads reach the process's standard output whole: every line parses (requestLines throws otherwise).
      expect(requestLines(served).every((line) => Number.isInteger(line.thread))).toBe(true);

      const ready = await send(`${served.urls.gateway}/readyz`);
      expect(ready.status).toBe(200);
      expect(JSON.parse(ready.body)).toEqual({ status: 'ready', index: true, access: true });

      const client = new Client({ name: 'threads-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${served.urls.gateway}/mcp`)));
      const result = (await client.callTool({ name: 'search_index', arguments: { query: 'Mietpreisbremse' } })) as CallToolResult;
      expect(result.isError ?? false).toBe(false);
      expect(JSON.stringify(result.content)).toContain('Mietpreisbremse');
      await client.close();
    } finally {
      expect(await served.stop()).toBe(0);
    }
  });

  it('starts and answers from every thread with V8 options on the node command line (--max-old-space-size): not handed to the threads, which refuse them', async () => {
    const served = await startFundus(['--data', data, '--role', 'gateway', '--port', '0'], { FUNDUS_GATEWAY_THREADS: '2', FUNDUS_ANONYMOUS_LIMIT: '100000/s' }, ['gateway'], [
      '--max-old-space-size=768',
      '--stack-trace-limit=20',
    ]);
    try {
      const answers = await untilTwoThreads(served, '/v1/search', () => search(served, { q: 'Mietpreisbremse' }));
      for (const answer of answers) expect(answer.status).toBe(200);
      expect((JSON.parse(answers[0].body) as { results: unknown[] }).results.length).toBeGreaterThan(0);
    } finally {
      expect(await served.stop()).toBe(0);
    }
  });

  it('spreads long-lived keep-alive connections evenly over the threads (SO_REUSEPORT alone hashes them at random)', async () => {
    const served = await startFundus(['--data', data, '--role', 'gateway', '--port', '0'], { FUNDUS_GATEWAY_THREADS: '2', FUNDUS_ANONYMOUS_LIMIT: '100000/s' });
    const agent = new Agent({ keepAlive: true, maxSockets: 8 });
    const get = (path: string) =>
      new Promise<string | undefined>((resolve, reject) => {
        const req = request(`${served.urls.gateway}${path}`, { agent }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.headers.connection));
        });
        req.on('error', reject);
        req.end();
      });
    const round = async (path: string) => (await Promise.all(Array.from({ length: 8 }, () => get(path)))).filter((c) => c === 'close').length;
    try {
      // Rounds of 8 requests on the agent's 8 connections until 5 rounds in a row close none (bounded).
      let quiet = 0;
      for (let i = 0; i < 200 && quiet < 5; i++) quiet = (await round('/v1/sources')) === 0 ? quiet + 1 : 0;
      expect(quiet).toBe(5);
      // Then 5 more rounds on another route: with no connection closed, each thread holds 4 of the 8.
      let closed = 0;
      for (let i = 0; i < 5; i++) closed += await round('/v1/stats');
      expect(closed).toBe(0);
      const lines = await loggedLines(served, 40, (line) => line.route === '/v1/stats');
      const perThread = new Map<number, number>();
      for (const line of lines) perThread.set(line.thread, (perThread.get(line.thread) ?? 0) + 1);
      expect([...perThread.values()]).toEqual([20, 20]);
    } finally {
      agent.destroy();
      await served.stop();
    }
  });

  it('the anonymous budget is one for the whole process, whichever thread a request reaches', async () => {
    const served = await startFundus(['--data', data, '--role', 'gateway', '--port', '0'], { FUNDUS_GATEWAY_THREADS: THREADS, FUNDUS_ANONYMOUS_LIMIT: '4/h' });
    try {
      const answers = await untilTwoThreads(served, '/v1/search', () => search(served, { q: 'Gesetz' }));
      expect(answers.filter((answer) => answer.status === 200)).toHaveLength(4);
      expect(answers.filter((answer) => answer.status === 429)).toHaveLength(answers.length - 4);
    } finally {
      await served.stop();
    }
  });

  it('a key budget is one for the whole process, and refused keys share one budget too', async () => {
    const created = await runFundus(['keys', 'create', '--data', data, '--name', 'threads-limited', '--limit', '3/h']);
    expect(created.code, created.stderr).toBe(0);
    const key = created.stdout.trim().split('\n').at(-1)!.trim();
    const served = await startFundus(['--data', data, '--role', 'gateway', '--port', '0'], {
      FUNDUS_GATEWAY_THREADS: THREADS,
      FUNDUS_INVALID_KEY_LIMIT: '5/h',
    });
    try {
      const answers = await untilTwoThreads(served, '/v1/search', () => search(served, { q: 'Gesetz' }, key));
      expect(answers.filter((answer) => answer.status === 200)).toHaveLength(3);
      expect(answers.filter((answer) => answer.status === 429)).toHaveLength(answers.length - 3);

      const wrong = `${key.slice(0, -4)}AAAA`;
      const refused: Answer[] = [];
      for (let i = 0; i < 20; i++) refused.push(await search(served, { q: 'Gesetz' }, wrong));
      expect(refused.filter((answer) => answer.status === 401)).toHaveLength(5);
      expect(refused.filter((answer) => answer.status === 429)).toHaveLength(15);
    } finally {
      await served.stop();
    }
  });

  it('a key limited, then revoked by the CLI is held to that by every thread at its next request (threads keep verified keys only while the key file is unchanged)', async () => {
    const created = await runFundus(['keys', 'create', '--data', data, '--name', 'threads-revoked', '--limit', 'unlimited']);
    expect(created.code, created.stderr).toBe(0);
    const key = created.stdout.trim().split('\n').at(-1)!.trim();
    const served = await startFundus(['--data', data, '--role', 'gateway', '--port', '0'], { FUNDUS_GATEWAY_THREADS: THREADS });
    /** Requests on new connections until the log shows two threads answering with `status` since `from` lines (bounded). */
    const untilTwoThreadsAnswer = async (status: number, from: number): Promise<Answer[]> => {
      const answers: Answer[] = [];
      for (let round = 0; round < 20; round++) {
        for (let i = 0; i < 10; i++) answers.push(await search(served, { q: 'Gesetz' }, key));
        const lines = (await loggedLines(served, from + answers.length, (line) => line.route === '/v1/search')).slice(from);
        if (new Set(lines.filter((line) => line.status === status).map((line) => line.thread)).size >= 2) return answers;
      }
      throw new Error(`fewer than two threads answered ${status} to ${answers.length} requests on new connections`);
    };
    const searchLines = () => requestLines(served).filter((line) => line.route === '/v1/search').length;
    try {
      // Every thread has verified (and kept) the key.
      const admitted = await untilTwoThreadsAnswer(200, 0);
      expect(admitted.every((answer) => answer.status === 200)).toBe(true);

      const limited = await runFundus(['keys', 'set-limit', '--data', data, 'threads-revoked', '--limit', '1/h']);
      expect(limited.code, limited.stderr).toBe(0);
      const afterLimit = await untilTwoThreadsAnswer(429, searchLines());
      expect(afterLimit.filter((answer) => answer.status === 200)).toHaveLength(1);
      expect(afterLimit.filter((answer) => answer.status === 429)).toHaveLength(afterLimit.length - 1);

      const revoked = await runFundus(['keys', 'revoke', '--data', data, 'threads-revoked']);
      expect(revoked.code, revoked.stderr).toBe(0);
      const afterRevoke = await untilTwoThreadsAnswer(401, searchLines());
      expect(afterRevoke.every((answer) => answer.status === 401)).toBe(true);
    } finally {
      await served.stop();
    }
  });

  it('on SIGTERM every thread turns /readyz to 503 and keeps serving with Connection: close, then the process exits 0', async () => {
    const served = await startFundus(['--data', data, '--role', 'gateway', '--port', '0'], {
      FUNDUS_GATEWAY_THREADS: THREADS,
      FUNDUS_DRAIN_MS: '6000',
      FUNDUS_ANONYMOUS_LIMIT: '100000/s',
    });
    const url = served.urls.gateway;
    let exited = false;
    const exit = served.stop('SIGTERM').then((code) => ((exited = true), code));
    for (let i = 0; i < 200 && !served.output().includes('draining: not ready, still serving'); i++) await new Promise((r) => setTimeout(r, 25));
    expect(served.output()).toContain('draining: not ready, still serving');

    const probes = await untilTwoThreads(served, '/readyz', () => send(`${url}/readyz`));
    for (const probe of probes) {
      expect(probe.status).toBe(503);
      expect(JSON.parse(probe.body)).toEqual({ status: 'draining' });
    }
    const still = await search(served, { q: 'Gesetz' });
    expect(still.status).toBe(200);
    expect(still.connection).toBe('close');
    expect(exited).toBe(false);
    expect(await exit).toBe(0);
  });

  it('refuses a port another server holds, even with SO_REUSEPORT, and exits non-zero', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen({ host: '127.0.0.1', port: 0 }, () => resolve()));
    const port = (holder.address() as AddressInfo).port;
    try {
      const run = await runFundus(['serve', '--data', data, '--role', 'gateway', '--port', String(port)], { FUNDUS_GATEWAY_THREADS: THREADS }, 60_000);
      expect(run.code).not.toBe(0);
      expect(run.stderr + run.stdout).toMatch(/EADDRINUSE|in use/i);
    } finally {
      holder.close();
    }
  });
});

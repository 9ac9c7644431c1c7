import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runFundus, startFundus, type ServingProcess } from '../helpers/processes.ts';

// `fundus serve` opens the index read-only (issue 19): it never creates or changes it, and when the
// index is missing or a writer holds its lock it keeps serving /healthz, answers /readyz and reads
// with 503, and opens the index as soon as it can, instead of writing or exiting.

const ENV = { FUNDUS_ANONYMOUS_LIMIT: '1000/s' };

const html = (title: string, body: string) =>
  `<!doctype html><html lang="de"><head><meta charset="utf-8"><title>${title}</title></head><body><main><h1>${title}</h1><p>${body}</p></main></body></html>`;

function search(gateway: string): Promise<Response> {
  return fetch(`${gateway}/v1/search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ q: 'Bücherei' }) });
}

/** Polls /readyz until it answers 200; bounded (the back-off is at most 5 s, the machine may be slow). */
async function readyWithin(gateway: string, attempts = 300): Promise<boolean> {
  for (let i = 0; i < attempts; i++) {
    if ((await fetch(`${gateway}/readyz`)).status === 200) return true;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return false;
}

/** The server's log lines are written in chunks at least once a second: wait (bounded) for one. */
async function logShows(server: ServingProcess, pattern: RegExp): Promise<string> {
  for (let i = 0; i < 100 && !pattern.test(server.output()); i++) await new Promise((resolve) => setTimeout(resolve, 100));
  return server.output();
}

/** A process that holds an exclusive lock on the index file until it is killed. */
function holdLock(file: string): Promise<ChildProcess> {
  const script = `
    const { DatabaseSync } = require('node:sqlite');
    const db = new DatabaseSync(${JSON.stringify(file)});
    db.exec("PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; UPDATE meta SET value = value WHERE key = 'generation'");
    console.log('locked');
    setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('locked') && resolve(child));
    child.on('exit', (code) => reject(new Error(`lock holder exited with ${code}`)));
  });
}

async function ingestOne(data: string): Promise<void> {
  const folder = mkdtempSync(join(tmpdir(), 'fundus-serve-wait-docs-'));
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'buecherei.html'), html('Bücherei', 'Die Bücherei der Gemeinde leiht Bücher an alle aus.'));
  const run = await runFundus(['ingest', '--data', data, '--quiet', folder]);
  expect(run.code, run.stderr).toBe(0);
}

describe('fundus serve waits for the index', () => {
  let server: ServingProcess | undefined;
  let locker: ChildProcess | undefined;
  afterEach(async () => {
    locker?.kill('SIGKILL');
    await server?.stop();
    server = locker = undefined;
  });

  it('starts on an empty data directory without creating the index, 503 until the first ingestion', async () => {
    const data = mkdtempSync(join(tmpdir(), 'fundus-serve-wait-'));
    server = await startFundus(['--data', data, '--role', 'gateway', '--port', '0'], ENV);
    const gateway = server.urls.gateway;
    expect((await fetch(`${gateway}/healthz`)).status).toBe(200);
    const readyz = await fetch(`${gateway}/readyz`);
    expect(readyz.status).toBe(503);
    expect(await readyz.json()).toMatchObject({ status: 'not_ready', index: false });
    const early = await search(gateway);
    expect(early.status).toBe(503);
    expect(await early.json()).toMatchObject({ code: 'INDEX_UNAVAILABLE' });
    expect(existsSync(join(data, 'index.sqlite'))).toBe(false);
    expect(await logShows(server, /index not ready/)).toMatch(/index not ready, waiting: no index at/);

    await ingestOne(data);
    expect(await readyWithin(gateway)).toBe(true);
    const found = await search(gateway);
    expect(found.status).toBe(200);
    expect(((await found.json()) as { total: number }).total).toBe(1);
  }, 120_000);

  it('waits while a writer holds the lock instead of exiting, then serves', async () => {
    const data = mkdtempSync(join(tmpdir(), 'fundus-serve-lock-'));
    await ingestOne(data);
    locker = await holdLock(join(data, 'index.sqlite'));
    server = await startFundus(['--data', data, '--role', 'gateway', '--port', '0'], ENV);
    const gateway = server.urls.gateway;
    expect((await fetch(`${gateway}/readyz`)).status).toBe(503);
    expect((await search(gateway)).status).toBe(503);
    expect(await logShows(server, /index not ready/)).toMatch(/index not ready, waiting: .*locked/);
    locker.kill('SIGKILL');
    expect(await readyWithin(gateway)).toBe(true);
    // Every serving thread waits on its own: the one that said "ready" need not be the one that answers.
    for (let i = 0; i < 4; i++) {
      const answer = await fetch(`${gateway}/v1/search`, { method: 'POST', headers: { 'content-type': 'application/json', connection: 'close' }, body: JSON.stringify({ q: 'Bücherei' }) });
      const body = await answer.text();
      expect(answer.status, body).toBe(200);
      expect((JSON.parse(body) as { total: number }).total).toBe(1);
    }
    expect(server.child.exitCode).toBeNull();
  }, 120_000);
});

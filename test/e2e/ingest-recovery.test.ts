import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { IndexNotReadyError, SqliteIndex } from '../../services/index/sqlite/sqlite-index.ts';
import { FUNDUS_BIN, runFundus } from '../helpers/processes.ts';

// What a killed ingestion leaves (issue 19): progress is committed by time as well as by count, so
// a kill before the first full batch keeps what was done; temporary files of a killed run are
// removed by the next one.

const html = (title: string, body: string, links: string[] = []) =>
  `<!doctype html><html lang="de"><head><meta charset="utf-8"><title>${title}</title></head><body><main><h1>${title}</h1><p>${body}</p>${links
    .map((link) => `<a href="${link}">${link}</a>`)
    .join(' ')}</main></body></html>`;

async function documentCount(data: string): Promise<number> {
  let index: SqliteIndex;
  try {
    index = new SqliteIndex({ file: join(data, 'index.sqlite'), readOnly: true });
  } catch (error) {
    if (error instanceof IndexNotReadyError) return 0;
    throw error;
  }
  try {
    return (await index.stats()).documents;
  } finally {
    await index.close();
  }
}

describe('a killed ingestion', () => {
  it('keeps the documents done before the kill although no batch was full (commit by time, also while the input idles)', async () => {
    const pages = ['/eins', '/zwei', '/drei', '/vier', '/fuenf'];
    const hanging: ServerResponse[] = [];
    const server = createServer((request, response) => {
      if (request.url === '/robots.txt') return response.writeHead(404).end();
      if (request.url === '/langsam') return void hanging.push(response); // never answered: the crawl idles here
      const links = request.url === '/' ? [...pages, '/langsam'] : [];
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html(`Seite ${request.url}`, `Die Gemeinde berichtet auf der Seite ${request.url} über die Bücherei.`, links));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const data = mkdtempSync(join(tmpdir(), 'fundus-recovery-'));
    const crawl = spawn(process.execPath, [FUNDUS_BIN, 'crawl', '--data', data, '--allow-private', '--seed', `${base}/`, '--delay-ms', '0', '--concurrency', '1', '--timeout-ms', '600000'], {
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    const exited = new Promise((resolve) => crawl.on('exit', resolve));
    try {
      // Six pages fetched, the seventh hangs: the batch (2500) is far from full.
      let count = 0;
      for (let i = 0; i < 600 && count < 6 && crawl.exitCode === null; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        count = await documentCount(data);
      }
      expect(count).toBe(6);
      expect(hanging.length).toBe(1);
    } finally {
      crawl.kill('SIGKILL');
      await exited;
      for (const response of hanging) response.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
    expect(await documentCount(data)).toBe(6);
  }, 120_000);

  it('leaves temporary lists files that the next run removes (those of live processes stay)', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'fundus-recovery-docs-'));
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'a.html'), html('Bücherei', 'Die Bücherei der Gemeinde leiht Bücher aus.'));
    const data = mkdtempSync(join(tmpdir(), 'fundus-recovery-tmp-'));
    // The id of a process that has ended: what a killed ingestion leaves carries such an id.
    const deadPid = spawnSync(process.execPath, ['-e', '0']).pid!;
    const stale = [`index.lists.${deadPid}.tmp`, `index.lists.${deadPid}.part.tmp`];
    const live = `index.lists.${process.pid}.tmp`;
    mkdirSync(data, { recursive: true });
    for (const name of [...stale, live]) writeFileSync(join(data, name), 'halb geschrieben');
    const run = await runFundus(['ingest', '--data', data, '--quiet', folder]);
    expect(run.code, run.stderr).toBe(0);
    for (const name of stale) expect(existsSync(join(data, name)), name).toBe(false);
    expect(existsSync(join(data, live))).toBe(true);
  }, 60_000);
});

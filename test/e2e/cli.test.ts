import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteIndex } from '../../services/index/sqlite/sqlite-index.ts';
import { FUNDUS_BIN, ROOT, runFundus, startFundus, type ServingProcess } from '../helpers/processes.ts';
import { CORPUS, describeWithCorpus } from '../helpers/shared-corpus.ts';

// The `fundus` command as a user runs it: ingest the demo collection, serve it, query it.

const SAMPLES = resolve(ROOT, 'samples/web');

describe('fundus ingest and serve (processes)', () => {
  const data = mkdtempSync(join(tmpdir(), 'fundus-cli-'));
  let server: ServingProcess;

  beforeAll(async () => {
    const first = await runFundus(['ingest', '--data', data, '--quiet', SAMPLES]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/read \d+, added \d+/);
    server = await startFundus(['--data', data, '--role', 'gateway', '--port', '0'], { FUNDUS_ANONYMOUS_LIMIT: '1000/s' });
  }, 180_000);

  afterAll(async () => {
    await server?.stop();
  });

  it('ingests the demo collection with their original URLs', async () => {
    const stats = (await (await fetch(`${server.urls.gateway}/v1/stats`)).json()) as any;
    expect(stats.documents).toBeGreaterThanOrEqual(40);
    const sources = (await (await fetch(`${server.urls.gateway}/v1/sources`)).json()) as any;
    expect(sources.sources.length).toBeGreaterThanOrEqual(5);
    expect(sources.sources.every((s: any) => s.domain.endsWith('.example'))).toBe(true);
  });

  it('re-ingesting the same input changes nothing', async () => {
    const again = await runFundus(['ingest', '--data', data, '--quiet', SAMPLES]);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/added 0, updated 0, unchanged \d+/);
  });

  it('optimize rebuilds the score and head-term lists while the index is served', async () => {
    const run = await runFundus(['index', 'optimize', '--data', data]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/optimized in [\d.]+ s: \d+ score lists \(\d+ postings, \d+ MiB\) in [\d.]+ s; \d+ head-term lists/);
    expect(existsSync(join(data, 'index.lists'))).toBe(true);
    const response = await fetch(`${server.urls.gateway}/v1/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ q: 'Häuser', document_types: ['html'] }),
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as any).total).toBeGreaterThan(0);
  });

  it('finds German word forms through the served API', async () => {
    const response = await fetch(`${server.urls.gateway}/v1/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ q: 'Häuser' }),
    });
    const body = (await response.json()) as any;
    expect(response.status).toBe(200);
    expect(body.total).toBeGreaterThan(0);
    expect(body.results[0].url).toMatch(/^https:\/\//);
  });

  it('stops on SIGTERM', async () => {
    const other = await startFundus(['--data', data, '--role', 'gateway', '--port', '0']);
    expect(await other.stop('SIGTERM')).toBe(0);
  });
});

describe('fundus command errors', () => {
  it('names the bad setting and exits 2', async () => {
    const result = await runFundus(['serve', '--data', mkdtempSync(join(tmpdir(), 'fundus-cfg-')), '--port', 'abc']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--port / FUNDUS_PORT');
    const env = await runFundus(['serve', '--data', mkdtempSync(join(tmpdir(), 'fundus-cfg-'))], { FUNDUS_ALLOWED_ORIGINS: 'not an origin' });
    expect(env.code).toBe(2);
    expect(env.stderr).toContain('FUNDUS_ALLOWED_ORIGINS');
  });

  it('rejects unknown commands and flags', async () => {
    expect((await runFundus(['frobnicate'])).code).toBe(2);
    const flag = await runFundus(['ingest', '--data', '/tmp/x', '--bogus']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('--bogus');
  });
});

describeWithCorpus('crash safety of ingestion', () => {
  it('a killed ingest keeps every committed document and leaves a usable index', async () => {
    const data = mkdtempSync(join(tmpdir(), 'fundus-kill-'));
    const child = spawn(process.execPath, [FUNDUS_BIN, 'ingest', '--data', data, '--quiet', join(CORPUS, 'html')], { stdio: 'ignore' });
    // Created at spawn time, so an exit before anyone waits is not missed.
    let exited = false;
    const closed = new Promise<void>((done) => child.once('close', () => done()));
    void closed.then(() => (exited = true));
    const file = join(data, 'index.sqlite');
    const committedNow = async () => {
      try {
        const reader = new SqliteIndex({ file, readOnly: true });
        const documents = (await reader.stats()).documents;
        await reader.close();
        return documents;
      } catch {
        return 0; // not created yet
      }
    };
    // Polls until the first batch is committed or the child has ended on its own (then once more).
    let committed = 0;
    while (committed === 0 && !exited) {
      await Promise.race([closed, new Promise((r) => setTimeout(r, 100))]);
      committed = await committedNow();
    }
    child.kill('SIGKILL');
    await closed;
    expect(child.exitCode === 0 || child.signalCode === 'SIGKILL', `ingest ended with ${child.exitCode ?? child.signalCode}`).toBe(true);
    committed ||= await committedNow();
    expect(committed).toBeGreaterThan(0);

    expect(await committedNow()).toBeGreaterThanOrEqual(committed);
    const resumed = await runFundus(['ingest', '--data', data, '--quiet', join(CORPUS, 'html')], {}, 600_000);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toMatch(/unchanged [1-9]\d*/);
  }, 700_000);
});

import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runFundus, startFundus, type ServingProcess } from '../helpers/processes.ts';

// FUNDUS_STAGE_TIMINGS (benchmark only, services/core/stage-timings.ts): the served process adds
// every search's stages up and writes the totals on SIGUSR2 — totals only, never query text.

const SAMPLES = resolve(ROOT, 'samples/web');

async function snapshot(server: ServingProcess, file: string, after: number): Promise<{ seq: number; stages: Record<string, { count: number; cpuMicros: number; wallMicros: number }> }> {
  server.child.kill('SIGUSR2');
  for (let i = 0; i < 500; i++) {
    if (existsSync(file)) {
      const text = readFileSync(file, 'utf8');
      try {
        const parsed = JSON.parse(text);
        if (parsed.seq > after) return parsed;
      } catch {
        // read while being written
      }
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('no stage timings written');
}

// Two ways to serve: the gateway on the main thread handing searches to the read pool's workers
// (FUNDUS_GATEWAY_THREADS=0), and serving threads that search inline (services/cli/gateway-threads.ts),
// whose totals the main thread gathers before writing.
const MODES = [
  { threads: '0', stages: ['main.parse', 'main.analysis', 'main.post_message', 'main.index_call', 'main.response', 'main.serialise', 'worker.search', 'worker.fetch', 'worker.snippets'] },
  { threads: '2', stages: ['main.parse', 'main.analysis', 'main.index_call', 'main.response', 'main.serialise', 'worker.search', 'worker.fetch', 'worker.snippets'] },
];

describe.each(MODES)('stage timings of searches (FUNDUS_STAGE_TIMINGS), FUNDUS_GATEWAY_THREADS=$threads', ({ threads, stages }) => {
  const data = mkdtempSync(join(tmpdir(), 'fundus-stages-'));
  const file = join(data, 'stages.json');
  let server: ServingProcess;

  beforeAll(async () => {
    const ingested = await runFundus(['ingest', '--data', data, '--quiet', SAMPLES]);
    expect(ingested.code, ingested.stderr).toBe(0);
    server = await startFundus(['--data', data, '--role', 'gateway', '--port', '0'], { FUNDUS_ANONYMOUS_LIMIT: '1000/s', FUNDUS_STAGE_TIMINGS: file, FUNDUS_GATEWAY_THREADS: threads });
  }, 180_000);

  afterAll(async () => {
    await server?.stop();
  });

  it('counts every stage of every search, on both threads, and writes no query text', async () => {
    const before = await snapshot(server, file, 0);
    const secret = 'Verwaltungsgericht';
    for (let i = 0; i < 6; i++) {
      const response = await fetch(`${server.urls.gateway}/v1/search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ q: secret }) });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(Array.isArray(((await response.json()) as { results: unknown[] }).results)).toBe(true);
    }
    const after = await snapshot(server, file, before.seq);
    const added = (stage: string) => (after.stages[stage]?.count ?? 0) - (before.stages[stage]?.count ?? 0);
    for (const stage of stages) expect(added(stage), stage).toBe(6);
    expect(added('main.logging')).toBeGreaterThanOrEqual(6);
    if (threads === '0') {
      // A worker's whole handler is counted after its reply is posted, so it comes with that worker's
      // next answer: at most one per search worker (2 by default) is still outstanding.
      expect(added('worker.message')).toBeGreaterThanOrEqual(4);
    } else {
      expect(added('main.post_message')).toBe(0); // no hand-over: the thread that parsed the request searched
    }
    expect(after.stages['worker.search'].wallMicros).toBeGreaterThan(0);
    expect(readFileSync(file, 'utf8')).not.toContain(secret);
  });
});

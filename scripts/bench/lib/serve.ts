// `fundus serve --role gateway` as a child process of the benchmark: started on a free port,
// timed from spawn to its first successful search answer (cold start), watched for peak RSS.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { runCommand, watchPeakRss } from './proc.ts';
import { SearchClient, type SearchBody } from './http-load.ts';

const ROOT = resolve(import.meta.dirname, '../../..');
const FUNDUS = join(ROOT, 'bin/fundus.js');

/** A project key without a request limit, named "bench" (an older "bench" key is revoked first). */
export async function createBenchKey(dataDir: string): Promise<string> {
  await runCommand(process.execPath, [FUNDUS, 'keys', 'revoke', '--data', dataDir, 'bench']);
  const created = await runCommand(process.execPath, [FUNDUS, 'keys', 'create', '--data', dataDir, '--name', 'bench', '--limit', 'unlimited']);
  if (created.code !== 0) throw new Error(`keys create failed (${created.code}): ${created.stderr}`);
  const key = created.stdout.trim().split('\n').at(-1)?.trim();
  if (!key) throw new Error('keys create printed no key');
  return key;
}

export interface RunningServer {
  pid: number;
  baseUrl: string;
  /** Spawn to the "fundus gateway: URL" line. */
  listeningMs: number;
  /** Spawn to the first 200 answer of a search. */
  firstAnswerMs: number;
  /** The first search alone, from its sending to its answer. */
  firstSearchMs: number;
  peakRss(): number;
  /** Highest RssAnon seen: the peak without mapped index pages. */
  peakAnonRss(): number;
  /** The server's stage timing totals so far (FUNDUS_STAGE_TIMINGS), or null when not asked for. */
  stages(): Promise<StageSnapshot | null>;
  stop(): Promise<number>;
}

export interface StageSnapshot {
  seq: number;
  stages: Record<string, { count: number; cpuMicros: number; wallMicros: number }>;
}

export async function startServer(dataDir: string, key: string, firstQuery: SearchBody, options: { stageFile?: string } = {}): Promise<RunningServer> {
  const spawned = performance.now();
  const { stageFile } = options;
  if (stageFile) rmSync(stageFile, { force: true });
  const child: ChildProcess = spawn(process.execPath, [FUNDUS, 'serve', '--data', dataDir, '--role', 'gateway', '--port', '0'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: stageFile ? { ...process.env, FUNDUS_STAGE_TIMINGS: stageFile } : process.env,
  });
  const rss = watchPeakRss(child.pid!);
  let stderr = '';
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  const baseUrl = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve printed no address in 120 s: ${stderr}`)), 120_000);
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      if (stderr.length < 20_000) stderr += chunk;
      const match = /fundus gateway: (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolveUrl(match[1]);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited (${code}) before listening: ${stderr}`));
    });
  });
  const listeningMs = performance.now() - spawned;
  const client = new SearchClient(baseUrl, key);
  const body = Buffer.from(JSON.stringify(firstQuery));
  let firstSearchMs = 0;
  try {
    for (let attempt = 0; ; attempt++) {
      const sent = performance.now();
      const reply = await client.send(body).catch(() => null);
      if (reply?.status === 200) {
        firstSearchMs = performance.now() - sent;
        break;
      }
      if (attempt >= 600) throw new Error(`no successful search after start-up (last status ${reply?.status ?? 'connection error'})`);
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    client.close();
  }
  const firstAnswerMs = performance.now() - spawned;
  return {
    pid: child.pid!,
    baseUrl,
    listeningMs,
    firstAnswerMs,
    firstSearchMs,
    peakRss: () => rss.peek(),
    peakAnonRss: () => rss.peakAnon(),
    async stages() {
      if (!stageFile) return null;
      const read = (): StageSnapshot | null => {
        try {
          return existsSync(stageFile) ? (JSON.parse(readFileSync(stageFile, 'utf8')) as StageSnapshot) : null;
        } catch {
          return null; // caught while being written: read again
        }
      };
      const last = read()?.seq ?? 0;
      child.kill('SIGUSR2'); // the server writes its totals (services/core/stage-timings.ts)
      for (let i = 0; i < 500; i++) {
        const now = read();
        if (now && now.seq > last) return now;
        await new Promise((r) => setTimeout(r, 10));
      }
      return null;
    },
    async stop() {
      const peak = rss.peek();
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
      return Math.max(peak, rss.stop());
    },
  };
}

// The search benchmark's query mixes through the live kit (issue 23 point 5): what Caddy (HTTPS)
// and the containers cost a search. One embedded index, prepared on the host with `fundus ingest`,
// is imported into the kit's index volume (no corpus file enters the project or an image); then the
// sampled mix (scripts/bench/sample-queries.ts) and the fixed one (scripts/bench/queries.json) run
//   - straight against one `fundus serve` gateway process on the host (plain HTTP, the benchmark's
//     set-up), with its default serving threads and with FUNDUS_GATEWAY_THREADS=0 as in the kit,
//   - through Caddy over HTTPS with 1 and with 3 gateway replicas running,
// at concurrency 1 and 8, with the benchmark's closed-loop load client (scripts/bench/lib/http-load.ts)
// and an unlimited key, after a warm-up of --warmup requests per serving process (JIT: README
// "Two serving threads' extra CPU is JIT warm-up"). CPU is read per process from /proc: the host
// server, each gateway container's node process, Caddy, the load client, and the rest of the
// machine ("other": the machine is shared); so are the TCP connections the gateways accepted per
// search (Caddy should reuse its connections). Root and podman needed
// (scripts/dev/ensure-container-engine.sh).
//
//   node_modules/.bin/node scripts/load/search-kit.ts --data DIR [--rounds 5] [--max-seconds 30]
//       [--warmup 2000] [--concurrency 1,8] [--replicas 1,3] [--seed 1] [--out docs/bench/search-kit.json]
//
// DIR is a data directory with an index written by this tree (e.g. `fundus ingest --data DIR
// --records /tmp/speed-bench/docs-100000/records.jsonl`). The host runs write into DIR (a bench key
// in access.sqlite, SQLite's -shm file): give it a copy of a shared index. The kit runs its own image tag
// (FUNDUS_KIT_IMAGE, default localhost/fundus:kit-search-bench) so other kit runs on the machine
// are not disturbed. Bounded: about 15 minutes at 100k.

import { execFileSync } from 'node:child_process';
import { availableParallelism, cpus, release, totalmem } from 'node:os';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { runLoad, type BenchQuery, type LoadRun } from '../bench/lib/http-load.ts';
import { cpuSecondsOf, machineBusySeconds } from '../bench/lib/proc.ts';
import { createBenchKey, startServer } from '../bench/lib/serve.ts';
import { round, summarize, table } from '../bench/lib/stats.ts';
import { sampleQueries } from '../bench/sample-queries.ts';
import { freePort } from '../../test/helpers/redis-server.ts';
import { ROOT } from '../../test/helpers/processes.ts';
import { scriptArgs } from '../bench/lib/args.ts';

process.env.FUNDUS_KIT_IMAGE ??= 'localhost/fundus:kit-search-bench';
const { buildImages, ComposeKit } = await import('../../test/kit/lib/kit.ts');
const { detectEngine, must, sh } = await import('../../test/kit/lib/engine.ts');

const { values } = scriptArgs(import.meta.filename, {
  options: {
    data: { type: 'string' },
    rounds: { type: 'string', default: '5' },
    'max-seconds': { type: 'string', default: '30' },
    warmup: { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '1,8' },
    replicas: { type: 'string', default: '1,3' },
    seed: { type: 'string', default: '1' },
    out: { type: 'string' },
    'no-host': { type: 'boolean', default: false },
  },
});
if (!values.data) throw new Error('--data DIR (a data directory with an index of this tree) is required');
const DATA = resolve(values.data);
const INDEX = join(DATA, 'index.sqlite');
const ROUNDS = Math.max(1, Number(values.rounds));
const MAX_SECONDS = Math.min(120, Math.max(5, Number(values['max-seconds'])));
const WARMUP = Math.max(0, Number(values.warmup));
const LEVELS = values.concurrency!.split(',').map(Number).filter((n) => n > 0);
const REPLICAS = values.replicas!.split(',').map(Number).filter((n) => n >= 1 && n <= 3);
const GATEWAYS = ['gateway-1', 'gateway-2', 'gateway-3'];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (line: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`);

interface Mix {
  name: 'sampled' | 'fixed';
  queries: BenchQuery[];
}

/** CPU seconds of the processes that serve, by role, read before and after a run. */
type CpuProbe = () => Record<string, number>;

/** What one set-up serves from: its CPU probe, how many processes serve, and their accepted TCP connections so far (kit only). */
interface Target {
  probe: CpuProbe;
  processes: number;
  connections?: () => number;
}

interface Level {
  setup: string;
  mix: string;
  concurrency: number;
  requests: number;
  errors: number;
  errorStatuses: Record<string, number>;
  seconds: number;
  throughput: number;
  p50: number;
  p95: number;
  p99: number;
  mean: number;
  /** Cores used during the run, by process role, and by everything else on the machine. */
  cores: Record<string, number>;
  /** Server-side CPU (gateways + Caddy) per successful search, in µs. */
  serverCpuMicrosPerRequest: number;
  /** The same, by role (gateways, caddy), in µs. */
  cpuMicrosPerRequest: Record<string, number>;
  /** TCP connections the gateways accepted per search (kit: Caddy's connections to the replicas; health checks included). */
  gatewayConnectionsPerRequest?: number;
}

function documentsOf(indexFile: string): number {
  const db = new DatabaseSync(indexFile, { readOnly: true });
  try {
    const row = db.prepare("SELECT count(*) AS n FROM documents").get() as { n: number } | undefined;
    return row?.n ?? 0;
  } catch {
    return 0;
  } finally {
    db.close();
  }
}

async function measure(setup: string, mix: Mix, baseUrl: string, key: string, ca: string | undefined, target: Target): Promise<Level[]> {
  const { probe } = target;
  // Unmeasured requests at concurrency 8, --warmup per serving process (at least one pass): every
  // statement and page used once, and each process's JIT warm.
  const warmRounds = Math.max(1, Math.ceil((WARMUP * target.processes) / mix.queries.length));
  await runLoad({ baseUrl, key, ca, queries: mix.queries, concurrency: 8, rounds: warmRounds, maxSeconds: Math.max(MAX_SECONDS, 120), serverPid: process.pid });
  const levels: Level[] = [];
  for (const concurrency of LEVELS) {
    const connectionsBefore = target.connections?.();
    const before = probe();
    const run: LoadRun = await runLoad({ baseUrl, key, ca, queries: mix.queries, concurrency, rounds: ROUNDS, maxSeconds: MAX_SECONDS, serverPid: process.pid });
    const after = probe();
    const connectionsAfter = target.connections?.();
    const ok = run.samples.filter((s) => s.status === 200);
    const errorStatuses: Record<string, number> = {};
    for (const s of run.samples) if (s.status !== 200) errorStatuses[s.status] = (errorStatuses[s.status] ?? 0) + 1;
    const cores: Record<string, number> = {};
    const cpuMicrosPerRequest: Record<string, number> = {};
    let serving = 0;
    for (const role of Object.keys(after)) {
      const used = after[role] - (before[role] ?? 0);
      serving += used;
      cores[role] = round(used / run.seconds);
      cpuMicrosPerRequest[role] = Math.round((used * 1e6) / Math.max(1, ok.length));
    }
    cores.client = round(run.clientCpuSeconds / run.seconds);
    cores.other = round(Math.max(0, run.machineBusySeconds - serving - run.clientCpuSeconds) / run.seconds);
    const figures = summarize(ok.map((s) => s.ms));
    const level: Level = {
      setup,
      mix: mix.name,
      concurrency,
      requests: run.samples.length,
      errors: run.samples.length - ok.length,
      errorStatuses,
      seconds: round(run.seconds),
      throughput: Math.round(ok.length / run.seconds),
      p50: figures.p50,
      p95: figures.p95,
      p99: figures.p99,
      mean: figures.mean,
      cores,
      serverCpuMicrosPerRequest: Math.round((serving * 1e6) / Math.max(1, ok.length)),
      cpuMicrosPerRequest,
      ...(connectionsBefore !== undefined && connectionsAfter !== undefined
        ? { gatewayConnectionsPerRequest: round((connectionsAfter - connectionsBefore) / Math.max(1, run.samples.length)) }
        : {}),
    };
    log(`${setup}, ${mix.name} mix, c=${concurrency}: p50 ${level.p50} ms, p99 ${level.p99} ms, ${level.throughput}/s, errors ${level.errors}; CPU µs/search ${JSON.stringify(cpuMicrosPerRequest)}; cores ${JSON.stringify(cores)}${level.gatewayConnectionsPerRequest !== undefined ? `; gateway connections/search ${level.gatewayConnectionsPerRequest}` : ''}`);
    levels.push(level);
  }
  return levels;
}

/**
 * The host's `fundus serve` gateway on the same index: the benchmark's own set-up, with its default
 * serving threads (one per core), and with FUNDUS_GATEWAY_THREADS=0 as in the kit (REDIS_URL there
 * keeps them off), so that the containers' own cost is told apart from the threads'.
 */
async function measureHost(mixes: Mix[], threads: string | undefined): Promise<Level[]> {
  const key = await createBenchKey(DATA);
  const before = process.env.FUNDUS_GATEWAY_THREADS;
  if (threads === undefined) delete process.env.FUNDUS_GATEWAY_THREADS;
  else process.env.FUNDUS_GATEWAY_THREADS = threads;
  const server = await startServer(DATA, key, mixes[0].queries[0].body).finally(() => {
    if (before === undefined) delete process.env.FUNDUS_GATEWAY_THREADS;
    else process.env.FUNDUS_GATEWAY_THREADS = before;
  });
  const setup = `host, fundus serve (HTTP), ${threads === undefined ? 'default threads' : `FUNDUS_GATEWAY_THREADS=${threads}`}`;
  log(`${setup} on ${server.baseUrl}`);
  try {
    const levels: Level[] = [];
    for (const mix of mixes) levels.push(...(await measure(setup, mix, server.baseUrl, key, undefined, { probe: () => ({ gateways: cpuSecondsOf(server.pid) }), processes: 1 })));
    return levels;
  } finally {
    await server.stop();
  }
}

async function pidOf(container: string): Promise<number> {
  return Number((await must('podman', ['inspect', '-f', '{{.State.Pid}}', container])).trim());
}

/** TCP connections accepted so far in the network namespace of a process (each container has its own). */
function acceptedConnections(pid: number): number {
  try {
    const lines = readFileSync(`/proc/${pid}/net/snmp`, 'utf8').split('\n').filter((l) => l.startsWith('Tcp:'));
    const names = lines[0].split(/\s+/);
    return Number(lines[1].split(/\s+/)[names.indexOf('PassiveOpens')]);
  } catch {
    return 0;
  }
}

/**
 * Brings the kit up on an imported copy of the index: the project's index volume is created
 * beforehand (labelled as podman-compose labels its own, so the project's clean-up removes it) and
 * filled with `podman volume import` from a tar of the data directory, owned by the image's
 * service user; podman-compose then finds the volume and uses it. The ingest job is not started.
 */
async function measureKit(mixes: Mix[]): Promise<Level[]> {
  const engine = detectEngine();
  if (!engine.ok) throw new Error(`no container engine: ${engine.reason}`);
  log(`kit: building images (${process.env.FUNDUS_KIT_IMAGE}; cached layers make it quick)`);
  await buildImages();
  const kit = new ComposeKit({ project: `fundus-search-${process.pid}`, httpPort: await freePort(), httpsPort: await freePort() });
  try {
    const volume = `${kit.project}_index_data`;
    const labels = ['--label', `io.podman.compose.project=${kit.project}`, '--label', `com.docker.compose.project=${kit.project}`];
    await must('podman', ['volume', 'create', ...labels, volume]);
    const started = performance.now();
    // Only the index: the key store lives in Redis in the kit (access.* stay behind).
    await must('bash', ['-c', `set -o pipefail; tar -C "$1" --owner=10001 --group=10001 --exclude='access.*' --exclude='*-shm' --exclude='*-wal' -cf - . | podman volume import "$2" -`, 'import', DATA, volume], { timeoutMs: 900_000 });
    log(`kit: index imported into volume ${volume} in ${Math.round((performance.now() - started) / 1000)} s`);
    await kit.up(['redis', ...GATEWAYS, 'web-1', 'web-2', 'admin', 'caddy']);
    for (const g of GATEWAYS) await kit.waitReady(g, 8082);
    await kit.waitFor('/openapi.json', [200]);
    const ca = await kit.rootCertificate();
    let key = '';
    for (let attempt = 0; attempt < 6 && !key; attempt++) {
      const created = await sh('podman', ['exec', kit.container('admin'), 'node', 'bin/fundus.js', 'keys', 'create', '--name', 'search-bench', '--limit', 'unlimited'], { timeoutMs: 120_000 });
      if (created.code === 0) key = created.stdout.trim().split('\n').pop()!.trim();
      else await sleep(5000); // Redis not reachable yet right after `up` (README "Container DNS")
    }
    if (!key) throw new Error('keys create in the admin container failed six times');
    const target = `https://localhost:${kit.options.httpsPort}`;
    const caddyPid = await pidOf(kit.container('caddy'));
    const levels: Level[] = [];
    for (const running of REPLICAS) {
      await Promise.all(
        GATEWAYS.map(async (g, i) => {
          if (i < running) {
            await kit.compose(['start', g]);
            await kit.waitReady(g, 8082);
          } else await kit.compose(['stop', '-t', '25', g]);
        }),
      );
      await sleep(7000); // Caddy's health checks (every 3 s) see the set of replicas
      const pids = await Promise.all(GATEWAYS.slice(0, running).map((g) => pidOf(kit.container(g))));
      const served: Target = {
        probe: () => ({ gateways: pids.reduce((sum, pid) => sum + cpuSecondsOf(pid), 0), caddy: cpuSecondsOf(caddyPid) }),
        processes: running,
        connections: () => pids.reduce((sum, pid) => sum + acceptedConnections(pid), 0),
      };
      for (const mix of mixes) levels.push(...(await measure(`kit, Caddy HTTPS → ${running} gateway replica${running > 1 ? 's' : ''}`, mix, target, key, ca, served)));
    }
    return levels;
  } finally {
    await kit.destroy();
  }
}

function machine() {
  const cpu = cpus()[0]?.model ?? 'unknown cpu';
  return { cores: availableParallelism(), cpu, memoryGiB: Math.round(totalmem() / 2 ** 30), node: process.version, kernel: release() };
}

function commit(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

async function main(): Promise<void> {
  if (!existsSync(INDEX)) throw new Error(`no index at ${INDEX}`);
  const documents = documentsOf(INDEX);
  const sampled = sampleQueries(INDEX, Number(values.seed));
  const fixed = (JSON.parse(readFileSync(join(ROOT, 'scripts/bench/queries.json'), 'utf8')) as { queries: BenchQuery[] }).queries;
  const mixes: Mix[] = [
    { name: 'sampled', queries: sampled.queries },
    { name: 'fixed', queries: fixed },
  ];
  log(`index ${INDEX}: ${documents} documents; sampled ${sampled.queries.length} queries (seed ${sampled.seed}), fixed ${fixed.length}`);
  const startedAt = new Date().toISOString();
  const levels: Level[] = [];
  if (!values['no-host']) {
    levels.push(...(await measureHost(mixes, undefined)));
    levels.push(...(await measureHost(mixes, '0')));
  }
  levels.push(...(await measureKit(mixes)));

  const rows = levels.map((l) => [
    l.setup,
    l.mix,
    l.concurrency,
    `${l.p50} / ${l.p99} ms`,
    `${l.throughput}/s`,
    l.errors,
    `${l.serverCpuMicrosPerRequest} µs`,
    Object.entries(l.cores)
      .map(([role, c]) => `${role} ${c}`)
      .join(', '),
  ]);
  console.log('\n' + table(['set-up', 'mix', 'c', 'p50 / p99', 'searches/s', 'errors', 'server CPU / search', 'cores used'], rows));
  const out = resolve(values.out ?? join(ROOT, 'docs/bench/search-kit.json'));
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(
    out,
    JSON.stringify(
      {
        description: 'Search mixes through the kit (Caddy HTTPS → 1 or 3 gateway replicas, embedded index, podman) and straight against one host fundus serve, same index; issue 23 point 5',
        command: `node_modules/.bin/node scripts/load/search-kit.ts ${process.argv.slice(2).join(' ')}`.trim(),
        startedAt,
        finishedAt: new Date().toISOString(),
        commit: commit(),
        machine: machine(),
        documents,
        rounds: ROUNDS,
        warmupPerProcess: WARMUP,
        maxSecondsPerLevel: MAX_SECONDS,
        sampledSeed: sampled.seed,
        mixes: { sampled: 'scripts/bench/sample-queries.ts on this index', fixed: 'scripts/bench/queries.json' },
        kitLimits: 'docker-compose.yml: each gateway 1.0 CPU / 512 MiB, Caddy 1.0 CPU; gateway threads off (REDIS_URL set); the host serve runs without REDIS_URL (SQLite key store); proxy/fundus.caddy as committed',
        levels,
      },
      null,
      1,
    ) + '\n',
  );
  log(`wrote ${relative(ROOT, out)}`);
}

main().catch((error) => {
  console.error(`search-kit: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exitCode = 1;
});

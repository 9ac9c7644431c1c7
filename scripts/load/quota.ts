// Load test of the quotas (issue 4): M gateway replicas on one redis-server, N anonymous and K
// keyed clients calling as fast as they can; prints the admitted requests per second per budget
// and the 429 rate. Bounded in time and loopback only.
//
//   node_modules/.bin/node scripts/load/quota.ts [--seconds 10] [--replicas 2] [--anonymous 16]
//       [--keyed 4] [--key-limit 5/s] [--memory] [--target URL --key KEY ... [--ca FILE] [--public N]]
//
// Without --target it starts its own redis-server (Debian package) and the replicas in this
// process. --memory gives every replica in-process budgets instead, to show how the anonymous
// quota multiplies without a shared limiter (spec 8 rule 3). With --target it drives running
// gateways (loopback only); keyed clients then need --key, one per client (--key-limit: their limit, for the table).
//
// The kit's HTTPS origin (README "Deploy"): --target https://localhost:PORT --ca ROOT.crt, where
// ROOT.crt is Caddy's local root certificate (the only CA trusted; never "insecure"), and
// --public N adds N clients of the public budget (GET /api/options, served by the front ends).

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Access, createAccess } from '../../services/access/access-guard.ts';
import { silentLog } from '../../services/access/log.ts';
import { loadConfig } from '../../services/cli/config.ts';
import { buildGatewayApp } from '../../services/gateway/app.ts';
import { SqliteIndex } from '../../services/index/sqlite/sqlite-index.ts';
import { type RedisServer, startRedisServer } from '../../test/helpers/redis-server.ts';
import { scriptArgs } from '../bench/lib/args.ts';

const MAX_SECONDS = 120;
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

const { values } = scriptArgs(import.meta.filename, {
  options: {
    seconds: { type: 'string', default: '10' },
    replicas: { type: 'string', default: '2' },
    anonymous: { type: 'string', default: '16' },
    keyed: { type: 'string', default: '4' },
    'key-limit': { type: 'string', default: '5/s' },
    memory: { type: 'boolean', default: false },
    target: { type: 'string', multiple: true },
    key: { type: 'string', multiple: true },
    ca: { type: 'string' },
    public: { type: 'string', default: '0' },
  },
});

const seconds = Math.min(MAX_SECONDS, Math.max(1, Number(values.seconds)));
const replicaCount = Math.max(1, Number(values.replicas));
const anonymousClients = Math.max(0, Number(values.anonymous));
const targets = values.target ?? [];
for (const target of targets) {
  if (!LOOPBACK.has(new URL(target).hostname)) {
    console.error(`quota: --target ${target}: this load test runs against loopback addresses only`);
    process.exit(2);
  }
}
const keyedClients = targets.length ? (values.key ?? []).length : Math.max(0, Number(values.keyed));
const publicClients = targets.length ? Math.max(0, Number(values.public)) : 0;
const httpsAgent = values.ca ? new Agent({ ca: readFileSync(values.ca, 'utf8'), keepAlive: true, maxSockets: 256 }) : null;

/** GET url: the status code. With --ca, over HTTPS trusting that CA only (fetch cannot be given a CA). */
async function get(url: string, headers: Record<string, string>): Promise<number> {
  if (!httpsAgent) {
    const response = await fetch(url, { headers, signal: AbortSignal.timeout(5000) });
    await response.arrayBuffer();
    return response.status;
  }
  return new Promise((resolve, reject) => {
    const request = httpsRequest(url, { agent: httpsAgent, headers, timeout: 5000 }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
      response.on('error', reject);
    });
    request.on('timeout', () => request.destroy(new Error('timeout')));
    request.on('error', reject);
    request.end();
  });
}

interface Counts {
  admitted: number;
  refused: number;
  other: number;
}

interface Deployment {
  urls: string[];
  keys: { id: string; key: string; limit: string }[];
  anonymousLimit: string;
  close(): Promise<void>;
}

async function startDeployment(): Promise<Deployment> {
  const dataDir = mkdtempSync(join(tmpdir(), 'fundus-quota-'));
  const redis: RedisServer | null = values.memory ? null : await startRedisServer();
  const env: NodeJS.ProcessEnv = redis ? { REDIS_URL: redis.url, FUNDUS_KEY_PEPPER_FILE: join(dataDir, 'key-pepper') } : {};
  const config = loadConfig({ data: dataDir }, env);
  const replicas: { access: Access; close: () => Promise<void>; url: string }[] = [];
  for (let i = 0; i < replicaCount; i += 1) {
    const access = await createAccess(config, silentLog);
    const index = new SqliteIndex({ file: join(dataDir, `index-${i}.sqlite`) });
    const app = await buildGatewayApp({ index, guard: access.guard, countBudgetMs: 50, externalUrl: 'http://127.0.0.1', logLevel: 'silent' });
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    replicas.push({ access, url, close: async () => (await app.close(), await access.close(), await index.close()) });
  }
  const keys = [];
  for (let i = 0; i < keyedClients; i += 1) {
    const { key, record } = await replicas[0].access.keyStore.create({ name: `load ${i}`, limit: values['key-limit'] });
    keys.push({ id: record.id, key, limit: record.limit });
  }
  const a = config.access.anonymousLimit;
  return {
    urls: replicas.map((r) => r.url),
    keys,
    anonymousLimit: `${a.points}/${a.durationSeconds}s`,
    async close() {
      for (const replica of replicas) await replica.close();
      await redis?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

const latencies: number[] = [];

async function client(url: string, headers: Record<string, string>, counts: Counts, end: number, path = '/v1/stats'): Promise<void> {
  while (Date.now() < end) {
    const started = performance.now();
    try {
      const status = await get(`${url}${path}`, headers);
      if (status === 200) counts.admitted += 1;
      else if (status === 429) counts.refused += 1;
      else counts.other += 1;
    } catch {
      counts.other += 1;
    }
    latencies.push(performance.now() - started);
  }
}

function percentile(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : 0;
}

function row(cells: string[]): string {
  const widths = [22, 11, 12, 12, 10];
  return cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join(' ');
}

/**
 * The most a fixed-window budget can admit per second over this run: every window started during
 * the run grants its points (a 120/min key may take all 120 in the first seconds).
 */
function allowedPerSecond(limit: string, elapsedSeconds: number): string {
  const match = /^(\d+)\/(s|min|h|(\d+)s)$/.exec(limit);
  if (!match) return limit;
  const duration = match[2] === 's' ? 1 : match[2] === 'min' ? 60 : match[2] === 'h' ? 3600 : Number(match[3]);
  return ((Number(match[1]) * Math.ceil(elapsedSeconds / duration)) / elapsedSeconds).toFixed(2);
}

async function main(): Promise<void> {
  const hardStop = setTimeout(() => {
    console.error('quota: hard time limit reached');
    process.exit(1);
  }, (seconds + 60) * 1000);
  hardStop.unref();

  const deployment: Deployment = targets.length
    ? { urls: targets, keys: (values.key ?? []).map((key) => ({ id: key.slice(0, 11), key, limit: values['key-limit'] })), anonymousLimit: '1/1s', close: async () => {} }
    : await startDeployment();
  const mode = targets.length ? `${targets.length} target(s)` : `${replicaCount} in-process replica(s) ${values.memory ? 'with in-process budgets (no Redis)' : 'on one redis-server'}`;
  console.log(`quota load test: ${mode}, ${seconds} s, ${anonymousClients} anonymous + ${publicClients} public + ${deployment.keys.length} keyed clients (key limit ${values['key-limit']})`);

  const anonymousPerReplica = deployment.urls.map(() => ({ admitted: 0, refused: 0, other: 0 }));
  const keyed = deployment.keys.map(() => ({ admitted: 0, refused: 0, other: 0 }));
  const publicCounts: Counts = { admitted: 0, refused: 0, other: 0 };
  const started = Date.now();
  const end = started + seconds * 1000;
  await Promise.all([
    ...Array.from({ length: publicClients }, (_, i) => client(deployment.urls[i % deployment.urls.length], {}, publicCounts, end, '/api/options')),
    ...Array.from({ length: anonymousClients }, (_, i) => client(deployment.urls[i % deployment.urls.length], {}, anonymousPerReplica[i % deployment.urls.length], end)),
    ...deployment.keys.map((k, i) => client(deployment.urls[i % deployment.urls.length], { authorization: `Bearer ${k.key}` }, keyed[i], end)),
  ]);
  const elapsed = (Date.now() - started) / 1000;

  const sum = (list: Counts[]) => list.reduce((a, b) => ({ admitted: a.admitted + b.admitted, refused: a.refused + b.refused, other: a.other + b.other }), { admitted: 0, refused: 0, other: 0 });
  const rate = (n: number) => (n / elapsed).toFixed(2);
  const refusedShare = (c: Counts) => `${((100 * c.refused) / Math.max(1, c.admitted + c.refused + c.other)).toFixed(2)}%`;
  console.log(row(['budget', 'allowed/s', 'admitted/s', 'requests/s', '429 rate']));
  const anonymous = sum(anonymousPerReplica);
  console.log(row(['anonymous (all)', allowedPerSecond(deployment.anonymousLimit, elapsed), rate(anonymous.admitted), rate(anonymous.admitted + anonymous.refused + anonymous.other), refusedShare(anonymous)]));
  anonymousPerReplica.forEach((c, i) => console.log(row([`  via replica ${i + 1}`, '', rate(c.admitted), rate(c.admitted + c.refused + c.other), refusedShare(c)])));
  if (publicClients) console.log(row(['public (/api/*)', allowedPerSecond('60/min', elapsed), rate(publicCounts.admitted), rate(publicCounts.admitted + publicCounts.refused + publicCounts.other), refusedShare(publicCounts)]));
  deployment.keys.forEach((k, i) => console.log(row([`key ${k.id}`, allowedPerSecond(k.limit, elapsed), rate(keyed[i].admitted), rate(keyed[i].admitted + keyed[i].refused + keyed[i].other), refusedShare(keyed[i])])));
  const total = sum([anonymous, publicCounts, ...keyed]);
  const sorted = latencies.sort((a, b) => a - b);
  console.log(
    `all: ${rate(total.admitted + total.refused + total.other)} requests/s, 429 rate ${refusedShare(total)}, other answers ${total.other}, ` +
      `latency p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms, max ${percentile(sorted, 100).toFixed(1)} ms`,
  );
  await deployment.close();
  httpsAgent?.destroy();
}

main().catch((error) => {
  console.error(`quota: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});

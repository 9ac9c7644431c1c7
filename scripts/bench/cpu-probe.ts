// Server CPU per request, A/B: starts `fundus serve --role gateway` on a reused collection once per
// variant (environment variables switched per variant), runs the sampled mix through HTTP at the
// given concurrency, and reports the serving process's CPU from /proc (all threads, and per
// thread name) over answered requests. Variants run interleaved, round after round, so that a
// shared machine's load falls on all of them alike; on a shared machine only CPU per request (not
// wall time or throughput) is comparable. Stage timings stay off (they cost CPU themselves).
//
//   node_modules/.bin/node scripts/bench/cpu-probe.ts --dir OUT/docs-100000 \
//     --variant A:FUNDUS_X=0 --variant B:FUNDUS_X=1,NODEARG=--single-threaded-gc,WARMUP=140 [--concurrency 8] [--requests 4000] [--rounds 3] [--node-arg --cpu-prof]
import { spawn } from 'node:child_process';
import { openSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { runLoad, SearchClient, type BenchQuery } from './lib/http-load.ts';
import { machineBusySeconds } from './lib/proc.ts';
import { createBenchKey } from './lib/serve.ts';
import { scriptArgs } from './lib/args.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const { values } = scriptArgs(import.meta.filename, {
  options: {
    dir: { type: 'string' },
    variant: { type: 'string', multiple: true, default: ['A:'] },
    concurrency: { type: 'string', default: '8' },
    requests: { type: 'string', default: '4000' },
    rounds: { type: 'string', default: '3' },
    /** Unmeasured requests (at c=8) before the first measured level. */
    warmup: { type: 'string', default: '6000' },
    /** Seconds the server stays idle before each measured level (search.ts waits for a quiet machine between levels). */
    pause: { type: 'string', default: '0' },
    /** Per level: the queries of the samples above the p99, and the N slowest queries by median (c=1: what makes the p99). */
    slowest: { type: 'string', default: '0' },
    'node-arg': { type: 'string', multiple: true, default: [] },
    mix: { type: 'string', default: 'sampled-queries.json' },
    /** Also record the server with `perf record -g` into this file prefix during each measured level (start it with --node-arg=--perf-basic-prof). */
    perf: { type: 'string' },
    /** Also count these events with `perf stat -e EVENTS -p PID` during each measured level (e.g. tlb:tlb_flush,ipi:ipi_send_cpumask,page-faults,context-switches): reported per request. */
    'perf-stat': { type: 'string' },
    /** With --perf: record this event (e.g. page-faults) instead of sampling CPU time. */
    'perf-event': { type: 'string' },
    /** Only check that every variant answers every query of the mix with the same status and bytes (no timing). */
    compare: { type: 'boolean', default: false },
    /** Keep the server's standard output (e.g. NODE_OPTIONS=--trace-gc) in this file, one per variant and round. */
    'server-stdout': { type: 'string' },
  },
});
if (!values.dir) throw new Error('--dir OUT/docs-N (a collection of scripts/bench/search.ts) is required');
const dir = values.dir;
const dataDir = join(dir, 'data');
const queries = (JSON.parse(readFileSync(join(dir, values.mix!), 'utf8')) as { queries: BenchQuery[] }).queries;
const levels = values.concurrency!.split(',').map(Number);
const requests = Number(values.requests);

/** `NAME[@ROOT]:VAR=VALUE,...`: ROOT, another checkout (built), serves that variant. */
function variantOf(spec: string): { name: string; root: string; env: Record<string, string>; nodeArgs: string[]; warmup: number } {
  const [named, ...settings] = spec.split(/[:,]/).filter(Boolean);
  const [name, root = ROOT] = named.split('@');
  const env: Record<string, string> = {};
  const nodeArgs: string[] = [];
  let warmup = Number(values.warmup);
  for (const setting of settings) {
    const at = setting.indexOf('=');
    // NODEARG=--flag: a Node/V8 option for this variant only (e.g. NODEARG=--single-threaded-gc).
    if (setting.slice(0, at) === 'NODEARG') nodeArgs.push(setting.slice(at + 1));
    // WARMUP=N: this variant's unmeasured requests (instead of --warmup).
    else if (setting.slice(0, at) === 'WARMUP') warmup = Number(setting.slice(at + 1));
    else env[setting.slice(0, at)] = setting.slice(at + 1);
  }
  return { name, root, env, nodeArgs, warmup };
}
const variants = values.variant!.map(variantOf);

async function serve(root: string, env: Record<string, string>, stdoutFile?: string, nodeArgs: string[] = []): Promise<{ pid: number; baseUrl: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [...values['node-arg']!, ...nodeArgs, join(root, 'bin/fundus.js'), 'serve', '--data', dataDir, '--role', 'gateway', '--port', '0'], {
    stdio: ['ignore', stdoutFile ? openSync(stdoutFile, 'w') : 'ignore', 'pipe'],
    env: { ...process.env, ...env },
  });
  const exited = new Promise<void>((r) => child.on('exit', () => r()));
  let stderr = '';
  const baseUrl = await new Promise<string>((ok, fail) => {
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      if (stderr.length < 20_000) stderr += chunk;
      const match = /fundus gateway: (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr);
      if (match) ok(match[1]);
    });
    void exited.then(() => fail(new Error(`serve exited: ${stderr}`)));
  });
  return {
    pid: child.pid!,
    baseUrl,
    async stop() {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

const key = await createBenchKey(dataDir);
if (values.compare) {
  const answers: string[][] = [];
  for (const variant of variants) {
    const server = await serve(variant.root, variant.env, undefined, variant.nodeArgs);
    const client = new SearchClient(server.baseUrl, key);
    try {
      const mine: string[] = [];
      for (const query of queries) {
        const reply = await client.send(Buffer.from(JSON.stringify(query.body)), true);
        mine.push(`${reply.status} ${reply.body?.toString('utf8')}`);
      }
      // Headers and error answers too (all but the date), through fetch.
      const probes: [string, RequestInit][] = [
        ['/v1/search', { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(queries[0].body) }],
        ['/v1/search', { method: 'POST', headers: { authorization: `Bearer ${key.slice(0, -4)}AAAA`, 'content-type': 'application/json' }, body: '{"q":"x"}' }],
        ['/v1/search', { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: '{"q":' }],
        ['/v1/search', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"q":"Gesetz"}' }],
        ['/v1/stats', { headers: { authorization: `Bearer ${key}` } }],
        ['/readyz', {}],
        ['/v1/nothing', { headers: { authorization: `Bearer ${key}` } }], // keyed: the anonymous budget (1/s) is spent above
      ];
      for (const [path, init] of probes) {
        const response = await fetch(`${server.baseUrl}${path}`, init);
        const headers = [...response.headers].filter(([name]) => name !== 'date').map(([name, value]) => `${name}: ${value}`).join('; ');
        mine.push(`${path} ${response.status} ${headers} ${await response.text()}`);
      }
      answers.push(mine);
    } finally {
      client.close();
      await server.stop();
    }
  }
  let differing = 0;
  for (const [v, mine] of answers.entries()) {
    mine.forEach((answer, q) => {
      if (answer === answers[0][q]) return;
      differing++;
      process.stderr.write(`[probe] ${variants[v].name} differs from ${variants[0].name} on ${queries[q]?.id ?? 'a header probe'}:\n  ${answers[0][q].slice(0, 300)}\n  ${answer.slice(0, 300)}\n`);
    });
  }
  process.stderr.write(`[probe] ${queries.length} queries and 7 header probes, ${variants.length} variants: ${differing} answers differ\n`);
  process.exit(differing ? 1 : 0);
}
function percentile99(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return +sorted[Math.floor(sorted.length * 0.99)].toFixed(2);
}

/** Which queries the samples above the p99 were, and the slowest queries by median, with their times in ms. */
function slowestQueries(samples: { query: number; ms: number; status: number }[], p99: number, n: number) {
  const byQuery = new Map<number, number[]>();
  for (const s of samples) if (s.status === 200) byQuery.set(s.query, [...(byQuery.get(s.query) ?? []), s.ms]);
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const describe = (q: number) => ({ id: queries[q].id, class: queries[q].class, q: queries[q].body.q, p50: +median(byQuery.get(q)!).toFixed(2), max: +Math.max(...byQuery.get(q)!).toFixed(2) });
  const overP99 = new Map<number, number>();
  samples.forEach((s, i) => s.ms > p99 && overP99.set(s.query, (overP99.get(s.query) ?? 0) + 1) && i);
  return {
    overP99: [...overP99].sort((a, b) => b[1] - a[1]).map(([q, count]) => ({ ...describe(q), count, atSample: samples.findIndex((s) => s.query === q && s.ms > p99) })),
    byMedian: [...byQuery.keys()].map(describe).sort((a, b) => b.p50 - a.p50).slice(0, n),
  };
}
const results: Record<string, unknown>[] = [];
for (let round = 1; round <= Number(values.rounds); round++) {
  for (const variant of variants) {
    const server = await serve(variant.root, variant.env, values['server-stdout'] ? `${values['server-stdout']}-${variant.name}-${round}.txt` : undefined, variant.nodeArgs);
    try {
      // Unmeasured pass: the first use of every statement and page, and JIT warm-up of every serving
      // thread (each is an isolate that compiles its own code: with two threads the first ~3000
      // requests cost up to 40 % more CPU each, README "Search speed").
      await runLoad({ baseUrl: server.baseUrl, key, queries, concurrency: 8, rounds: Math.ceil(variant.warmup / queries.length), maxSeconds: 60, serverPid: server.pid });
      for (const concurrency of levels) {
        if (Number(values.pause)) await new Promise((r) => setTimeout(r, Number(values.pause) * 1000));
        const perf = values.perf
          ? spawn('perf', ['record', ...(values['perf-event'] ? ['-e', values['perf-event']] : ['-F', '499']), '-g', '-p', String(server.pid), '-o', `${values.perf}-${variant.name}-c${concurrency}-${round}.data`], { stdio: 'ignore' })
          : null;
        const statFile = `/tmp/cpu-probe-perf-stat-${process.pid}.csv`;
        const stat = values['perf-stat']
          ? spawn('perf', ['stat', '-x', ',', '-e', values['perf-stat'], '-p', String(server.pid), '-o', statFile], { stdio: 'ignore' })
          : null;
        if (stat) await new Promise((r) => setTimeout(r, 300)); // attached before the load starts
        const busyBefore = machineBusySeconds();
        const run = await runLoad({ baseUrl: server.baseUrl, key, queries, concurrency, rounds: Math.ceil(requests / queries.length), maxSeconds: 60, serverPid: server.pid });
        const busy = machineBusySeconds() - busyBefore;
        if (perf) {
          perf.kill('SIGINT');
          await new Promise((r) => perf.on('exit', r));
        }
        let events: Record<string, number> | undefined;
        if (stat) {
          stat.kill('SIGINT');
          await new Promise((r) => stat.on('exit', r));
          events = {};
          for (const line of readFileSync(statFile, 'utf8').split('\n')) {
            const [count, , event] = line.split(',');
            if (event && /^\d+$/.test(count)) events[event] = Number(count);
          }
        }
        const ok = run.samples.filter((s) => s.status === 200).length;
        const eventsPerRequest = events && Object.fromEntries(Object.entries(events).map(([name, n]) => [name, +(n / ok).toFixed(2)]));
        const errors = run.samples.length - ok;
        const ms = run.samples.map((s) => s.ms).sort((a, b) => a - b);
        const perThread = Object.fromEntries(
          Object.entries(run.serverThreadCpuSeconds).filter(([, s]) => s > 0).map(([name, s]) => [name, Math.round((s / ok) * 1e6)]),
        );
        const slowest = Number(values.slowest) ? slowestQueries(run.samples, ms[Math.floor(ms.length * 0.99)], Number(values.slowest)) : undefined;
        const result = {
          round,
          variant: variant.name,
          root: variant.root,
          env: variant.env,
          concurrency,
          requests: ok,
          errors,
          serverCpuMicrosPerRequest: Math.round((run.serverCpuSeconds / ok) * 1e6),
          serverCpuMicrosPerRequestByThread: perThread,
          ...(eventsPerRequest ? { eventsPerRequest } : {}),
          ...(slowest ? { slowest } : {}),
          throughput: Math.round(ok / run.seconds),
          p50: ms[Math.floor(ms.length * 0.5)],
          p99: ms[Math.floor(ms.length * 0.99)],
          // Without the first round of the mix: a query's first run in a thread (JIT, its word analyses, lists and pages) is slow.
          p99AfterFirstRound: percentile99(run.samples.slice(queries.length).map((s) => s.ms)),
          serverCpuCores: +(run.serverCpuSeconds / run.seconds).toFixed(2),
          clientCpuCores: +(run.clientCpuSeconds / run.seconds).toFixed(2),
          otherCpuCores: +Math.max(0, (busy - run.serverCpuSeconds - run.clientCpuSeconds) / run.seconds).toFixed(2),
        };
        results.push(result);
        process.stderr.write(
          `[probe] round ${round} ${variant.name} c=${concurrency}: ${result.serverCpuMicrosPerRequest} µs CPU/request ${JSON.stringify(perThread)}, ` +
            `${result.throughput}/s, p50 ${result.p50.toFixed(2)} p99 ${result.p99.toFixed(2)} ms (after the first round ${result.p99AfterFirstRound}), errors ${errors}, other ${result.otherCpuCores} cores\n`,
        );
      }
    } finally {
      await server.stop();
    }
  }
}
process.stdout.write(JSON.stringify({ measuredAt: new Date().toISOString(), dir, requests, results }, null, 1) + '\n');

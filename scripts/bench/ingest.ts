// Ingestion benchmark: documents per second and peak memory of `fundus ingest` end to end
// (read, extract in the worker pool, analyse, index, commit) on ../shared/corpus.
//   node_modules/.bin/node scripts/bench/ingest.ts [--types html,pdf,all] [--repeat N] [--json FILE] [--fundus DIR]
//   node_modules/.bin/node scripts/bench/ingest.ts --records FILE.jsonl [--repeat N] [--fundus DIR]
//   ... [--cpu-prof DIR]: V8 CPU profiles of the ingesting process and of each extraction process
//   (they inherit the flags) into DIR, one .cpuprofile file per process and thread; profiling slows
//   the run, so its figures are not comparable with others.
// Needs `npm run build` first. Prints a table and the ingesting process's CPU by thread (writer, FTS5
// thread, the final step's workers, V8's helpers); --json writes the figures. --fundus DIR runs another
// built checkout's `bin/fundus.js` on the same files (A/B pairs against an older commit).
import { spawn } from 'node:child_process';
import { closeSync, copyFileSync, mkdirSync, mkdtempSync, openSync, readFileSync, readdirSync, readSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { cpuByName, threadsOf } from './lib/proc.ts';
import { scriptArgs } from './lib/args.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const CORPUS = resolve(ROOT, '../shared/corpus');
const { values } = scriptArgs(import.meta.filename, { options: { fundus: { type: 'string' }, records: { type: 'string' }, types: { type: 'string', default: 'html,pdf,all' }, json: { type: 'string' }, repeat: { type: 'string', default: '1' }, 'cpu-prof': { type: 'string' } } });

interface ManifestLine { path: string; url: string; fetched_at?: string; headers?: Record<string, string> }

function manifestFor(type: string): { file: string; count: number } {
  const lines = readFileSync(join(CORPUS, 'manifest.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as ManifestLine);
  const chosen = type === 'all' ? lines : lines.filter((l) => l.path.startsWith(`${type}/`));
  // Manifest paths must stay inside the manifest's folder (hostile-input rule): the chosen files are
  // copied beside a manifest in a temporary folder, before the clock starts.
  const dir = mkdtempSync(join(tmpdir(), 'fundus-bench-manifest-'));
  for (const l of chosen) {
    mkdirSync(dirname(join(dir, l.path)), { recursive: true });
    copyFileSync(join(CORPUS, l.path), join(dir, l.path));
  }
  const file = join(dir, 'manifest.jsonl');
  writeFileSync(file, chosen.map((l) => JSON.stringify(l)).join('\n'));
  return { file, count: chosen.length };
}

function statusField(pid: number, field: string): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

function childrenOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((task) =>
      readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number),
    );
  } catch {
    return [];
  }
}

/** The process's own peak, or (when it runs extraction in child processes) the sum of the tree's current RSS, whichever is larger. */
function peakRssOf(pid: number): number {
  const tree = (p: number): number => statusField(p, 'VmRSS') + childrenOf(p).reduce((sum, c) => sum + tree(c), 0);
  return Math.max(statusField(pid, 'VmHWM'), tree(pid));
}

/** CPU seconds (user + system) a process has used so far, from /proc/PID/stat; null once it is gone. */
function cpuSecondsOf(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return null;
  }
}
const CLOCK_TICKS = 100;

/** Pre-extracted records (`fundus ingest --records`) instead of corpus files: one line a document. */
function recordsInput(file: string): { args: string[]; count: number } {
  return { args: ['--records', resolve(file)], count: nonEmptyLinesOf(file) };
}

/** Lines with something on them, read in chunks: a million records are more than one string may hold. */
function nonEmptyLinesOf(file: string): number {
  const fd = openSync(file, 'r');
  const chunk = Buffer.allocUnsafe(1 << 20);
  let count = 0;
  let blank = true;
  try {
    for (let read; (read = readSync(fd, chunk, 0, chunk.length, null)) > 0; ) {
      for (let i = 0; i < read; i++) {
        const c = chunk[i];
        if (c === 0x0a) {
          if (!blank) count++;
          blank = true;
        } else if (c !== 0x20 && c !== 0x09 && c !== 0x0d) blank = false;
      }
    }
  } finally {
    closeSync(fd);
  }
  return blank ? count : count + 1;
}

async function run(type: string) {
  const manifest = type === 'records' ? undefined : manifestFor(type);
  const { args, count } = manifest ? { args: ['--manifest', manifest.file], count: manifest.count } : recordsInput(values.records!);
  const data = mkdtempSync(join(tmpdir(), 'fundus-bench-ingest-'));
  const started = performance.now();
  const profile = values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${resolve(values['cpu-prof'])}`] : [];
  const child = spawn(process.execPath, [...profile, join(values.fundus ? resolve(values.fundus) : ROOT, 'bin/fundus.js'), 'ingest', '--data', data, '--quiet', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let peak = 0;
  // CPU time of the process and of each extraction process, last seen every 50 ms: on a loaded
  // machine the wall clock says little, the CPU time of the tree is what a change saves.
  const cpu = new Map<number, number>();
  // And of each thread of the ingesting process (its FTS5 thread, the final step's workers, V8's
  // helpers), last seen: which of them a change saves CPU in.
  const threads = new Map<number, { name: string; seconds: number }>();
  const sampleCpu = () => {
    for (const pid of [child.pid!, ...childrenOf(child.pid!)]) {
      const seconds = cpuSecondsOf(pid);
      if (seconds !== null) cpu.set(pid, seconds);
    }
    for (const [tid, thread] of threadsOf(child.pid!)) threads.set(tid, thread);
  };
  const timer = setInterval(() => {
    peak = Math.max(peak, peakRssOf(child.pid!));
    sampleCpu();
  }, 50);
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', () => {});
  const code = await new Promise<number | null>((r) => child.on('close', r));
  clearInterval(timer);
  const seconds = (performance.now() - started) / 1000;
  rmSync(data, { recursive: true, force: true });
  if (manifest) rmSync(dirname(manifest.file), { recursive: true, force: true });
  if (code !== 0) throw new Error(`ingest failed (${code}): ${out}`);
  const mainCpu = cpu.get(child.pid!) ?? 0;
  const extractionCpu = [...cpu].filter(([pid]) => pid !== child.pid).reduce((sum, [, seconds]) => sum + seconds, 0);
  return {
    type,
    documents: count,
    seconds: Number(seconds.toFixed(2)),
    docsPerSecond: Math.round(count / seconds),
    peakRssMiB: Math.round(peak / 1048576),
    /** Sampled: the last 50 ms of each process may be missing. */
    cpuSeconds: { main: Number(mainCpu.toFixed(2)), extraction: Number(extractionCpu.toFixed(2)) },
    /** Each extraction process's CPU seconds, in the order they started. */
    perProcess: [...cpu].filter(([pid]) => pid !== child.pid).map(([, seconds]) => Number(seconds.toFixed(2))),
    /** The ingesting process's CPU seconds by thread name (threads of one name summed). */
    threads: Object.fromEntries(
      Object.entries(cpuByName(threads.values()))
        .filter(([, seconds]) => seconds > 0)
        .sort((a, b) => b[1] - a[1])
        .map(([name, seconds]) => [name, Number(seconds.toFixed(2))]),
    ),
    load: readFileSync('/proc/loadavg', 'utf8').split(' ')[0],
    summary: out.trim(),
  };
}

const results = [];
for (const type of values.records ? ['records'] : values.types!.split(',')) {
  for (let i = 0; i < Number(values.repeat); i++) results.push(await run(type));
}
const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
console.log(`machine: ${machine}`);
console.log('| input | documents | seconds | docs/s | peak RSS | CPU s: main + extraction | load (1 min) |');
console.log('|---|---|---|---|---|---|---|');
for (const r of results) {
  console.log(`| ${r.type} | ${r.documents} | ${r.seconds} | ${r.docsPerSecond} | ${r.peakRssMiB} MiB | ${r.cpuSeconds.main} + ${r.cpuSeconds.extraction} (${r.perProcess.join(' + ')}) | ${r.load} |`);
}
for (const r of results) console.log(`${r.type}: ${r.summary}`);
for (const r of results) console.log(`${r.type}, the ingesting process's threads, CPU s: ${Object.entries(r.threads).map(([name, seconds]) => `${name} ${seconds}`).join(', ')}`);
if (values['cpu-prof']) printTimeline(resolve(values['cpu-prof']));
if (values.json) writeFileSync(values.json, JSON.stringify({ machine, results }, null, 2));

interface CpuProfile { startTime: number; endTime: number; nodes: { id: number; callFrame: { functionName: string } }[]; samples: number[]; timeDeltas: number[] }

/**
 * Who waits for whom: per profiled thread (all runs in DIR, one clock), when it started and ended,
 * and its busy time (samples that are not idle; wall time, so on a loaded machine it includes waiting
 * for a core) in 100 ms steps from the first start, one character
 * a step (' ' idle ... '@' busy the whole step).
 */
function printTimeline(dir: string): void {
  const profiles = readdirSync(dir)
    .filter((name) => name.endsWith('.cpuprofile'))
    .map((name) => ({ name, profile: JSON.parse(readFileSync(join(dir, name), 'utf8')) as CpuProfile }));
  if (!profiles.length) return;
  const origin = Math.min(...profiles.map((p) => p.profile.startTime));
  const STEP_US = 100_000;
  console.log(`timeline (${dir}), ms from the first start; one character per 100 ms:`);
  for (const { name, profile } of profiles) {
    const idle = new Set(profile.nodes.filter((n) => n.callFrame.functionName === '(idle)').map((n) => n.id));
    const busy: number[] = [];
    let at = profile.startTime;
    let total = 0;
    profile.samples.forEach((node, i) => {
      at += profile.timeDeltas[i];
      if (idle.has(node)) return;
      const step = Math.floor((at - origin) / STEP_US);
      busy[step] = (busy[step] ?? 0) + profile.timeDeltas[i];
      total += profile.timeDeltas[i];
    });
    const steps = Math.ceil((profile.endTime - origin) / STEP_US);
    const bar = Array.from({ length: steps }, (_, i) => ' .:-=+*#%@'[Math.min(9, Math.floor(((busy[i] ?? 0) / STEP_US) * 10))]).join('');
    const ms = (us: number) => Math.round(us / 1000);
    console.log(`${name.split('.').slice(-4, -2).join('.').padEnd(10)} ${String(ms(profile.startTime - origin)).padStart(6)}–${String(ms(profile.endTime - origin)).padEnd(6)} busy ${String(ms(total)).padStart(5)} ms |${bar}`);
  }
}

// Lighthouse on the search page of the demo collection, with Debian's chromium:
//
//   npm run build && node_modules/.bin/node scripts/bench/lighthouse.ts [--runs 3] [--url URL] [--publish]
//
// Starts `fundus demo --role web` (the samples/ collection, as `npm start` serves it) on a free port,
// unless --url names a running search page, and runs the npm `lighthouse` CLI against the page with
// a query in its fragment (the results arrive after the page has drawn, as for a visitor with a
// shared link): the mobile profile (Lighthouse's default: simulated slow 4G and a 4x slower CPU)
// and the desktop preset, --runs times each. Prints the median score and metrics of each; --publish
// writes them to docs/bench/lighthouse.json. The chrome flags are those of the browser tests.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runCommand } from './lib/proc.ts';
import { scriptArgs } from './lib/args.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const FUNDUS = join(ROOT, 'bin/fundus.js');
const LIGHTHOUSE = join(ROOT, 'node_modules/lighthouse/cli/index.js');
const CHROME_PATH = process.env.CHROME_PATH ?? '/usr/bin/chromium';
const CHROME_FLAGS = '--headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update --disable-sync';
const QUERY = '#q=H%C3%A4user';

const { values } = scriptArgs(import.meta.filename, { options: { runs: { type: 'string', default: '3' }, url: { type: 'string' }, publish: { type: 'boolean', default: false } } });
const runs = Math.max(1, Number(values.runs));

async function startDemo(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [FUNDUS, 'demo', '--role', 'web', '--web-port', '0'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`the demo printed no address in 300 s: ${stderr}`)), 300_000);
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      const match = /fundus web: (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolveUrl(match[1]);
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the demo exited (${code}) before listening: ${stderr}`));
    });
  });
  return { url, child };
}

interface Run {
  score: number;
  fcpMs: number;
  lcpMs: number;
  tbtMs: number;
  cls: number;
  speedIndexMs: number;
  transferBytes: number;
  textCompression: number | null;
}

async function lighthouse(url: string, preset: 'mobile' | 'desktop'): Promise<Run> {
  const out = join(mkdtempSync(join(tmpdir(), 'fundus-lighthouse-')), 'report.json');
  const args = [LIGHTHOUSE, url, '--only-categories=performance', '--output=json', `--output-path=${out}`, '--quiet', `--chrome-flags=${CHROME_FLAGS}`];
  if (preset === 'desktop') args.push('--preset=desktop');
  const result = await runCommand(process.execPath, args, { env: { ...process.env, CHROME_PATH } });
  if (result.code !== 0) throw new Error(`lighthouse exited ${result.code}: ${result.stderr.slice(-2000)}`);
  const report = JSON.parse(readFileSync(out, 'utf8'));
  if (report.runtimeError) throw new Error(`lighthouse: ${report.runtimeError.code} ${report.runtimeError.message}`);
  const audit = (id: string) => report.audits[id];
  return {
    score: Math.round(report.categories.performance.score * 100),
    fcpMs: audit('first-contentful-paint').numericValue,
    lcpMs: audit('largest-contentful-paint').numericValue,
    tbtMs: audit('total-blocking-time').numericValue,
    cls: audit('cumulative-layout-shift').numericValue,
    speedIndexMs: audit('speed-index').numericValue,
    transferBytes: audit('total-byte-weight').numericValue,
    textCompression: audit('uses-text-compression').score,
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

const demo = values.url ? null : await startDemo();
const base = values.url ?? demo!.url;
const results: Record<string, { runs: Run[]; median: Run }> = {};
try {
  for (const preset of ['mobile', 'desktop'] as const) {
    const list: Run[] = [];
    for (let i = 0; i < runs; i++) list.push(await lighthouse(`${base}/${QUERY}`, preset));
    const med = Object.fromEntries(Object.keys(list[0]).map((k) => [k, median(list.map((r) => (r as any)[k] ?? 0))])) as unknown as Run;
    results[preset] = { runs: list, median: med };
    console.log(
      `${preset.padEnd(8)} performance ${med.score} (runs: ${list.map((r) => r.score).join(', ')}); FCP ${Math.round(med.fcpMs)} ms, LCP ${Math.round(med.lcpMs)} ms, ` +
        `TBT ${Math.round(med.tbtMs)} ms, CLS ${med.cls.toFixed(3)}, Speed Index ${Math.round(med.speedIndexMs)} ms, ${(med.transferBytes / 1024).toFixed(1)} KiB transferred, text compression audit ${med.textCompression}`,
    );
  }
} finally {
  demo?.child.kill('SIGTERM');
}

if (values.publish) {
  const chromium = (await runCommand(CHROME_PATH, ['--version'])).stdout.trim();
  const lighthouseVersion = JSON.parse(readFileSync(join(ROOT, 'node_modules/lighthouse/package.json'), 'utf8')).version;
  writeFileSync(
    join(ROOT, 'docs/bench/lighthouse.json'),
    `${JSON.stringify({ date: new Date().toISOString(), url: `<demo>/${QUERY}`, chromium, lighthouse: lighthouseVersion, node: process.version, runs, results }, null, 2)}\n`,
  );
  console.log('wrote docs/bench/lighthouse.json');
}

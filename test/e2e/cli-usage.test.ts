import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FUNDUS_BIN, ROOT, requireBuild, runFundus } from '../helpers/processes.ts';

// The `fundus` command's surface as a user meets it, run as a process: help and version on every
// command without side effects, one table of exit codes, the progress display on a real
// pseudo-terminal (util-linux `script`) and as plain lines elsewhere, and a clear word on an old Node.

const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const SAMPLES = resolve(ROOT, 'samples/web');
const scratch = () => mkdtempSync(join(tmpdir(), 'fundus-usage-'));

describe('help and version', () => {
  it('the top-level help lists every command and subcommand', async () => {
    const run = await runFundus(['--help']);
    expect(run.code).toBe(0);
    for (const command of ['ingest', 'crawl', 'serve', 'fediverse ingest', 'fediverse fetch', 'keys create', 'index copy', 'index status', 'index optimize', 'demo']) {
      expect(run.stdout).toContain(`fundus ${command}`);
    }
    expect(run.stdout).toMatch(/Exit codes: 0 .*, 1 .*, 2 /);
    expect((await runFundus(['-h'])).stdout).toBe(run.stdout);
    expect((await runFundus(['help'])).stdout).toBe(run.stdout);
  });

  it('every command and subcommand answers --help and -h with its usage, exit 0, and does nothing else', async () => {
    const dir = scratch();
    const data = join(dir, 'data');
    const cases: [string[], RegExp][] = [
      [['ingest', '--data', data, SAMPLES], /^fundus ingest --data DIR/],
      [['crawl', '--data', data, '--seed', 'http://127.0.0.1:9/'], /^fundus crawl --data DIR/],
      [['serve', '--data', data, '--port', '0'], /^fundus serve --data DIR/],
      [['demo'], /^fundus demo/],
      [['keys', 'create', '--data', data, '--name', 'x', '--limit', '1/s'], /fundus keys create/],
      [['keys', 'list', '--data', data], /fundus keys list/],
      [['keys', 'revoke', '--data', data, 'x'], /fundus keys revoke/],
      [['keys', 'set-limit', '--data', data, 'x', '--limit', '2/s'], /fundus keys set-limit/],
      [['index', 'copy', '--from', 'sqlite', '--to', 'typesense', '--data', data], /fundus index copy/],
      [['index', 'status'], /fundus index status/],
      [['index', 'optimize', '--data', data], /fundus index optimize/],
      [['fediverse', 'ingest', '--data', data, join(ROOT, 'samples/fediverse')], /fundus fediverse ingest/],
      [['fediverse', 'fetch', '--data', data, '--instance', 'social.example'], /fundus fediverse fetch/],
    ];
    // --help everywhere, -h on every other case (each run is a process start: CI time).
    const asked = cases.map(([argv, usage], i): [string[], RegExp] => [[...argv, i % 2 ? '-h' : '--help'], usage]);
    const runs = await Promise.all(asked.map(([argv]) => runFundus(argv, {}, 60_000)));
    asked.forEach(([argv, usage], i) => {
      const run = runs[i];
      expect(run.code, `${argv.join(' ')}: ${run.stderr}`).toBe(0); // a demo or server that ran would not exit by itself
      expect(run.stdout, argv.join(' ')).toMatch(usage);
      expect(run.stderr, argv.join(' ')).toBe('');
    });
    expect(existsSync(data), 'no command made its data directory').toBe(false);
    expect((await runFundus(['help', 'keys'])).stdout).toMatch(/fundus keys create/);
  }, 180_000);

  it('--version prints the version on every command, with no side effects', async () => {
    const data = join(scratch(), 'data');
    const runs = await Promise.all([['--version'], ['ingest', '--data', data, SAMPLES, '--version'], ['keys', 'create', '--data', data, '--version'], ['demo', '--version']].map((argv) => runFundus(argv)));
    for (const run of runs) {
      expect(run.code).toBe(0);
      expect(run.stdout.trim()).toBe(`fundus ${VERSION} (Node.js ${process.versions.node})`);
    }
    expect(existsSync(data)).toBe(false);
  });
});

describe('exit codes: 0 done, 1 failed, 2 wrong command line', () => {
  it('gives 2 for every kind of usage mistake, naming it', async () => {
    const data = join(scratch(), 'data');
    const cases: [string[], RegExp][] = [
      [[], /fundus ingest/],
      [['frobnicate'], /unknown command "frobnicate"/],
      [['ingest', SAMPLES], /--data: required/],
      [['ingest', '--data', data], /nothing to ingest/],
      [['ingest', '--data', data, '--bogus', SAMPLES], /--bogus/],
      [['ingest', '--data', data, '--workers', '0', SAMPLES], /--workers: must be a positive number/],
      [['crawl', '--data', data], /--seed/],
      [['crawl', '--data', data, '--seed', 'not a url'], /not a URL/],
      [['serve', '--data', data, '--port', 'abc'], /--port \/ FUNDUS_PORT/],
      [['keys'], /fundus keys create/],
      [['keys', 'create', '--data', data, '--name', 'x'], /--limit/],
      [['keys', 'frob', '--data', data], /unknown keys command/],
      [['index'], /fundus index copy/],
      [['index', 'frob'], /unknown subcommand/],
      [['index', 'copy', '--from', 'x', '--to', 'y'], /only --from sqlite --to typesense/],
      [['fediverse'], /ingest or fetch/],
      [['fediverse', 'ingest', '--data', data], /nothing to ingest/],
    ];
    const runs = await Promise.all(cases.map(([argv]) => runFundus(argv, {}, 60_000)));
    cases.forEach(([argv, message], i) => {
      expect(runs[i].code, `fundus ${argv.join(' ')}\n${runs[i].stderr}`).toBe(2);
      expect(runs[i].stderr, argv.join(' ')).toMatch(message);
    });
    expect(existsSync(data)).toBe(false);
  }, 180_000);

  it('gives 1 when the command runs and fails, and creates nothing on the way', async () => {
    const data = join(scratch(), 'data');
    const revoke = await runFundus(['keys', 'revoke', '--data', data, 'nobody']);
    expect(revoke.code).toBe(1);
    expect(revoke.stderr).toMatch(/no key with the id or name "nobody"/);
    const optimize = await runFundus(['index', 'optimize', '--data', data]);
    expect(optimize.code).toBe(1);
    expect(optimize.stderr).toMatch(/no index at/);
    expect(existsSync(data)).toBe(false);
  });

  it('keys list on a missing data directory lists nothing and does not create it', async () => {
    const data = join(scratch(), 'missing');
    const list = await runFundus(['keys', 'list', '--data', data]);
    expect(list.code).toBe(0);
    expect(list.stdout.trim()).toBe('No project read keys.');
    expect((await runFundus(['keys', 'list', '--data', data, '--json'])).stdout.trim()).toBe('[]');
    expect(existsSync(data)).toBe(false);
  });
});

// A Node without node:sqlite (the system's Node 20 on the development machines).
const OLD_NODE = '/usr/bin/node';
const oldNodeVersion = existsSync(OLD_NODE) ? spawnSync(OLD_NODE, ['--version'], { encoding: 'utf8' }).stdout.trim() : '';
const hasOldNode = /^v(1\d|2[0-3])\./.test(oldNodeVersion);
if (!hasOldNode) console.warn(`SKIPPED "an old Node": needs a Node older than 24 at ${OLD_NODE} (found ${oldNodeVersion || 'none'})`);

describe.skipIf(!hasOldNode)('an old Node', () => {
  it(`names the Node version it needs instead of failing on node:sqlite (${oldNodeVersion})`, () => {
    requireBuild();
    const run = spawnSync(OLD_NODE, [FUNDUS_BIN, 'ingest', '--help'], { encoding: 'utf8', timeout: 60_000 });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`fundus needs Node.js 24 or newer (it uses node:sqlite); this is Node.js ${oldNodeVersion.slice(1)}`);
    expect(run.stderr).toContain('npx fundus');
    expect(run.stderr).not.toMatch(/ERR_UNKNOWN_BUILTIN_MODULE|at .*\.js:\d+/);
    expect(run.stdout).toBe('');
  });
});

// The progress display on a real pseudo-terminal: util-linux `script` runs the command on one.
const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;
if (!hasScript) console.warn('SKIPPED "progress on a terminal": needs util-linux `script` (package bsdutils) to make a pseudo-terminal');

function onPseudoTerminal(argv: string[]): Promise<{ code: number | null; output: string }> {
  requireBuild();
  const command = [process.execPath, FUNDUS_BIN, ...argv].map((arg) => `'${arg.replace(/'/g, `'\\''`)}'`).join(' ');
  return new Promise((done, reject) => {
    const child = spawn('script', ['-q', '-e', '-c', command, '/dev/null'], { env: { ...process.env, SHELL: '/bin/sh', TERM: 'xterm' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('close', (code) => done({ code, output }));
  });
}

const CLEAR = '\r\x1b[K';

describe.skipIf(!hasScript)('progress on a terminal', () => {
  it('ingest rewrites one progress line in place and clears it before each message and the summary', async () => {
    const data = join(scratch(), 'data');
    const { code, output } = await onPseudoTerminal(['ingest', '--data', data, SAMPLES]);
    expect(code, output).toBe(0);
    const frames = output.split(CLEAR).filter((part) => /^ {2}\d+ read · \d+ prepared · \d+ stored · \d+ skipped · \d+\/s · [\d.]+ s/.test(part));
    expect(frames.length, output).toBeGreaterThanOrEqual(2); // drawn at once, and again at least for the final merge
    expect(frames.some((frame) => frame.includes('optimizing the index'))).toBe(true);
    // Every line of its own (a skipped file, the merge's report, the summary) starts on a cleared line.
    for (const line of [`skipped ${SAMPLES}/`, 'optimized the index in ', 'read 57, added ']) {
      const at = output.indexOf(line);
      expect(at, `${line} in ${JSON.stringify(output)}`).toBeGreaterThan(0);
      expect(output.slice(at - CLEAR.length, at)).toBe(CLEAR);
    }
    expect(output.trimEnd()).toMatch(/read 57, added \d+, updated \d+, unchanged \d+, duplicates \d+, near-duplicates \d+, skipped 1 \(NOINDEX 1\)$/);
  }, 180_000);

  it('index optimize shows its phase with the time spent, then the result on a clean line', async () => {
    const data = join(scratch(), 'data');
    expect((await runFundus(['ingest', '--data', data, '--quiet', SAMPLES])).code).toBe(0);
    const { code, output } = await onPseudoTerminal(['index', 'optimize', '--data', data]);
    expect(code, output).toBe(0);
    expect(output).toMatch(/\r\x1b\[K {2}[\d.]+ s · optimizing the index \(merge, score lists, head-term lists\) \([\d.]+ s\)/);
    expect(output).toContain(`${CLEAR}optimized in `);
  }, 180_000);
});

describe('progress without a terminal', () => {
  it('writes no carriage returns or escape codes into a pipe', async () => {
    const data = join(scratch(), 'data');
    const run = await runFundus(['ingest', '--data', data, SAMPLES]);
    expect(run.code).toBe(0);
    expect(run.stderr + run.stdout).not.toMatch(/[\r\x1b]/);
    expect(run.stderr).toMatch(/^skipped .*: NOINDEX: /m);
    expect(run.stdout).toMatch(/^read 57, added 53/m);
  }, 120_000);
});

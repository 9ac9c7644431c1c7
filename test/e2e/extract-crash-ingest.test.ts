import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SqliteIndex } from '../../services/index/sqlite/sqlite-index.ts';
import { childrenOf, cpuSeconds, isAlive } from '../helpers/proc.ts';
import { FUNDUS_BIN, requireBuild, runFundus } from '../helpers/processes.ts';

// Extraction that blows its heap or crashes natively, through `fundus ingest` as a process: the file
// is reported with its error code and skipped, every other file is indexed, the run exits 0 ("a bad
// file is reported and skipped, and the run goes on"). The misbehaviour comes from test-only hooks
// that only an environment variable can select (by file name); the same files without it are just files.

const HOOKS_ENV = 'FUNDUS_TEST_ONLY_EXTRACT_HOOKS';
const html = (title: string, body: string) =>
  `<!doctype html><html lang="de"><head><meta charset="utf-8"><title>${title}</title></head><body><main><h1>${title}</h1><p>${body}</p></main></body></html>`;

const HOSTILE = { 'abbruch.html': 'abort', 'speicherfehler.html': 'segfault', 'wachsende-liste.html': 'grow-one-array', 'wachsende-tabelle.html': 'grow-map' } as const;
const GOOD = ['rathaus', 'bibliothek', 'schwimmbad', 'friedhof', 'wertstoffhof', 'musikschule'];

function inputFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), 'fundus-crash-input-'));
  for (const name of GOOD) writeFileSync(join(folder, `${name}.html`), html(`Seite ${name}`, `Öffnungszeiten und Anschrift: ${name} der Gemeinde.`));
  for (const name of Object.keys(HOSTILE)) writeFileSync(join(folder, name), html(`Datei ${name}`, 'Ein gewöhnlicher Absatz über die Gemeindeverwaltung.'));
  return folder;
}

async function documentCount(data: string): Promise<number> {
  const index = new SqliteIndex({ file: join(data, 'index.sqlite'), readOnly: true });
  try {
    return (await index.stats()).documents;
  } finally {
    await index.close();
  }
}

const sleep = (ms: number) => new Promise((wake) => setTimeout(wake, ms));

describe('fundus ingest with extraction that crashes', () => {
  it('reports heap exhaustion and native crashes per file, indexes every other file, exits 0', async () => {
    const input = inputFolder();
    const data = mkdtempSync(join(tmpdir(), 'fundus-crash-data-'));
    const run = await runFundus(['ingest', '--data', data, input], { [HOOKS_ENV]: JSON.stringify(HOSTILE) }, 240_000);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/abbruch\.html: WORKER_FAILED: .*ended by SIGABRT/);
    expect(run.stderr).toMatch(/speicherfehler\.html: WORKER_FAILED: .*ended by SIGSEGV/);
    expect(run.stderr).toMatch(/wachsende-liste\.html: OUT_OF_MEMORY: .*heap limit 512 MB \(FATAL ERROR: .*heap out of memory\)/);
    expect(run.stderr).toMatch(/wachsende-tabelle\.html: OUT_OF_MEMORY: .*heap limit 512 MB \(FATAL ERROR: .*heap out of memory\)/);
    expect(run.stdout).toMatch(/read 10, added 6, .*skipped 4 \((?=.*WORKER_FAILED 2)(?=.*OUT_OF_MEMORY 2)/);
    expect(await documentCount(data)).toBe(6);
  }, 300_000);

  // The time limit counts the CPU time of the file's process (a busy machine must not lose good
  // files), with a wall-clock guard of 4 × --timeout-ms for a file that waits without CPU.
  it('kills a file stuck in a loop (CPU time) and one that waits without CPU (wall-clock guard): TIMEOUT, the run goes on', async () => {
    const input = mkdtempSync(join(tmpdir(), 'fundus-crash-timeout-'));
    for (const name of GOOD) writeFileSync(join(input, `${name}.html`), html(`Seite ${name}`, `Öffnungszeiten und Anschrift: ${name} der Gemeinde.`));
    for (const name of ['endlos.html', 'wartet.html']) writeFileSync(join(input, name), html(`Datei ${name}`, 'Ein gewöhnlicher Absatz.'));
    const data = mkdtempSync(join(tmpdir(), 'fundus-crash-data-'));
    const hooks = { 'endlos.html': 'hang', 'wartet.html': 'block' };
    const run = await runFundus(['ingest', '--data', data, '--timeout-ms', '1500', input], { [HOOKS_ENV]: JSON.stringify(hooks) }, 240_000);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/endlos\.html: TIMEOUT: .*after \d+ ms of CPU time \(limit 1500 ms\)/);
    expect(run.stderr).toMatch(/wartet\.html: TIMEOUT: .*no answer after \d+ ms \(wall-clock limit 6000 ms; \d+ ms of CPU time\)/);
    expect(run.stdout).toMatch(/read 8, added 6, .*skipped 2 \(TIMEOUT 2\)/);
    expect(await documentCount(data)).toBe(6);
  }, 300_000);

  it('ignores the hooks without the test-only variable: the same files are ordinary documents', async () => {
    const input = inputFolder();
    const data = mkdtempSync(join(tmpdir(), 'fundus-crash-data-'));
    const run = await runFundus(['ingest', '--data', data, input], { [HOOKS_ENV]: '' });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/read 10, added 10, .*skipped 0/);
    expect(await documentCount(data)).toBe(10);
  }, 180_000);

  it('leaves no extraction process behind when the command is killed during a job stuck in a loop', async () => {
    requireBuild();
    const input = join(mkdtempSync(join(tmpdir(), 'fundus-crash-hang-')), 'in');
    mkdirSync(input);
    writeFileSync(join(input, 'endlos.html'), html('Endlos', 'Ein Parser, der nie fertig wird.'));
    const data = mkdtempSync(join(tmpdir(), 'fundus-crash-data-'));
    const cli = spawn(process.execPath, [FUNDUS_BIN, 'ingest', '--data', data, '--workers', '1', '--timeout-ms', '600000', input], {
      env: { ...process.env, [HOOKS_ENV]: JSON.stringify({ 'endlos.html': 'hang' }) },
      stdio: 'ignore',
    });
    const exited = new Promise((resolve) => cli.on('exit', resolve));
    let stuck: number | undefined;
    try {
      // Wait (bounded) until the extraction process has spun for 5 CPU seconds: the job is stuck.
      for (let i = 0; i < 600 && stuck === undefined; i++) {
        stuck = childrenOf(cli.pid!).find((pid) => (cpuSeconds(pid) ?? 0) >= 5);
        if (stuck === undefined) await sleep(200);
      }
      expect(stuck, 'no extraction process got stuck in the hook').toBeDefined();
      // Its watchdog (a shell where there is one) ends it, then itself.
      const watchdogs = childrenOf(stuck!);
      cli.kill('SIGKILL');
      await exited;
      let alive = true;
      for (let i = 0; i < 150 && alive; i++) {
        alive = isAlive(stuck!);
        if (alive) await sleep(200);
      }
      expect(alive, `extraction process ${stuck} outlived the killed command`).toBe(false);
      for (let i = 0; i < 50 && watchdogs.some((pid) => cpuSeconds(pid) !== null); i++) await sleep(100);
      expect(watchdogs.filter((pid) => cpuSeconds(pid) !== null), 'a watchdog outlived its process').toEqual([]);
    } finally {
      cli.kill('SIGKILL');
      // A failed run must not leave a spinning process on the machine.
      if (stuck !== undefined && cpuSeconds(stuck) !== null) process.kill(stuck, 'SIGKILL');
    }
  }, 180_000);
});

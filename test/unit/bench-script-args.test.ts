import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/processes.ts';

// Every benchmark and load script that takes options answers `--help` with its usage (its opening
// comment) and a wrong option with one line and exit code 2 (scripts/bench/lib/args.ts), before it
// starts any work: a newcomer finds out how to run it without reading its source.
const SCRIPTS = ['scripts/bench', 'scripts/load'].flatMap((dir) =>
  readdirSync(join(ROOT, dir))
    .filter((name) => name.endsWith('.ts'))
    .map((name) => join(dir, name))
    .filter((file) => readFileSync(join(ROOT, file), 'utf8').includes('scriptArgs(import.meta.filename')),
);

function run(file: string, option: string) {
  return spawnSync(process.execPath, [join(ROOT, file), option], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
}

describe('benchmark scripts: --help and wrong options', () => {
  it('finds the scripts with options', () => {
    expect(SCRIPTS).toContain('scripts/bench/search.ts');
    expect(SCRIPTS).toContain('scripts/bench/ingest.ts');
    expect(SCRIPTS).toContain('scripts/load/quota.ts');
    expect(SCRIPTS.length).toBeGreaterThanOrEqual(17);
  });

  it.each(SCRIPTS)('%s', (file) => {
    const opening = readFileSync(join(ROOT, file), 'utf8').split('\n')[0].replace(/^\/\/ ?/, '');
    const help = run(file, '--help');
    expect(help.status).toBe(0);
    expect(help.stdout.split('\n')[0]).toBe(opening);
    expect(help.stdout).not.toMatch(/^\/\//m);

    const wrong = run(file, '--no-such-option');
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toMatch(/: Unknown option '--no-such-option'[^\n]*\n\(--help prints the usage\)\n$/);
    expect(wrong.stderr).not.toMatch(/\n\s+at /); // no stack trace
  }, 60_000);
});

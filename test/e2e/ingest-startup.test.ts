import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandLine } from '../helpers/proc.ts';
import { ROOT, runFundus } from '../helpers/processes.ts';

// Start-up of `fundus ingest` as a process: commands are loaded only when they run (looked up by
// own name only), and the extraction processes, which now start before the index is opened, are
// ended when the index cannot be opened.

const scratch = () => mkdtempSync(join(tmpdir(), 'fundus-ingest-startup-'));

/** Processes whose command line contains `marker` (Linux /proc); [] where /proc cannot tell. */
function processesWith(marker: string): number[] {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  return pids.map(Number).filter((pid) => commandLine(pid).join(' ').includes(marker));
}

describe('fundus ingest start-up', () => {
  it('names of Object.prototype are unknown commands, not commands', async () => {
    for (const name of ['toString', 'constructor', '__proto__', 'hasOwnProperty']) {
      const run = await runFundus([name]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`unknown command "${name}"`);
    }
    const help = await runFundus(['help', 'constructor']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^fundus — read-only search/);
  });

  it('an index that cannot be opened fails the run (exit 1) and ends the extraction processes started before it', async () => {
    const dir = scratch();
    const blocker = join(dir, 'not-a-folder');
    writeFileSync(blocker, 'a file where the data directory should be');
    // An odd size limit makes the extraction processes of this run recognisable: it is in their arguments.
    const maxMb = 3.217;
    const marker = `"maxBytes":${Math.round(maxMb * 1024 * 1024)}`;
    const run = await runFundus(['ingest', '--data', join(blocker, 'data'), '--quiet', '--max-mb', String(maxMb), resolve(ROOT, 'samples/web')]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^fundus: .*(ENOTDIR|not a directory|unable to open)/im);
    // Bounded wait: a process left behind would show up in every round.
    let left = processesWith(marker);
    for (let round = 0; round < 50 && left.length > 0; round++) {
      await new Promise((wake) => setTimeout(wake, 100));
      left = processesWith(marker);
    }
    expect(left).toEqual([]);
  });
});

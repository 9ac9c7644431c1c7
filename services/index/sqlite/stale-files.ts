import { readdirSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { scoreListsFile } from './score-lists.ts';

// The writer builds the score lists in "<index>.lists.<pid>.tmp" (and ".part.tmp") and renames
// them when done; a killed run leaves them behind, as big as the lists. The next writer to open
// the index removes those whose process is gone (a live one may still be writing its own).

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // exists, owned by someone else
  }
}

/** Removes temporary files of dead writers beside the index file; returns their names. */
export function removeStaleTemporaries(indexFile: string): string[] {
  const lists = basename(scoreListsFile(indexFile));
  const pattern = new RegExp(`^${lists.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.(\\d+)(\\.part)?\\.tmp$`);
  const folder = dirname(indexFile);
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return removed;
  }
  for (const name of names) {
    const pid = Number(pattern.exec(name)?.[1]);
    if (!pid || pid === process.pid || processAlive(pid)) continue;
    rmSync(join(folder, name), { force: true });
    removed.push(name);
  }
  return removed;
}

import { join } from 'node:path';

/** The fediverse index lives beside the web index in the data directory, as its own SQLite file. */
export function fediverseIndexFile(dataDir: string): string {
  return join(dataDir, 'fediverse.sqlite');
}

import { readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { SqliteIndex } from '../index/sqlite/sqlite-index.ts';
import { ingestFediverseFiles } from '../ingest/fediverse/files.ts';
import { fediverseIndexFile } from '../ingest/fediverse/paths.ts';
import { runIngest } from './ingest-command.ts';
import { projectRoot } from './paths.ts';
import { formatSummary } from './progress.ts';
import { serveCommand } from './serve-command.ts';

// `npm start`: the first README command. Ingests the demo collection (idempotent: a second start
// changes nothing) into .fundus-demo/ and serves it on the default loopback ports.

export const DEMO_USAGE = `fundus demo [--port P] [--web-port P] [--admin-port P] [other serve flags]

What npm start runs: ingests the demo collection (samples/web, samples/office and the fediverse
posts in samples/fediverse) into .fundus-demo/ in the project folder, then serves it like
"fundus serve" on the default loopback ports. A second start changes nothing in the index.`;

const DEMO_INSTANCES = 'social.lindenau.example,mastodon.altmark.example';

export async function demoCommand(argv: string[]): Promise<number> {
  const samples = resolve(projectRoot(), 'samples');
  const dataDir = resolve(projectRoot(), '.fundus-demo');
  const ingestDemo = () => runIngest({
    dataDir,
    paths: [join(samples, 'web'), join(samples, 'office')],
    manifests: [],
    maxBytes: 50 * 1024 * 1024,
    workers: 2,
    timeoutMs: 30_000,
    quiet: true,
  });
  // The demo index is derived data: one written by another version of the program is rebuilt.
  const summary = await ingestDemo().catch((error: Error) => {
    if (!/layout version/.test(error.message)) throw error;
    rmSync(dataDir, { recursive: true, force: true });
    return ingestDemo();
  });
  console.error(`demo collection: ${formatSummary(summary)}`);

  const fediverse = new SqliteIndex({ file: fediverseIndexFile(dataDir) });
  const posts = readdirSync(join(samples, 'fediverse'))
    .filter((name) => name.endsWith('.json'))
    .map((name) => join(samples, 'fediverse', name));
  const { total } = await ingestFediverseFiles(fediverse, posts);
  await fediverse.close();
  console.error(`demo fediverse posts: ${JSON.stringify(total)}`);

  process.env.FUNDUS_FEDIVERSE_INSTANCES ||= DEMO_INSTANCES;
  return serveCommand(['--data', dataDir, ...argv]);
}

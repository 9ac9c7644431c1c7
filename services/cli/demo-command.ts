import { resolve } from 'node:path';
import { runIngest } from './ingest-command.ts';
import { projectRoot } from './paths.ts';
import { formatSummary } from './progress.ts';
import { serveCommand } from './serve-command.ts';

// `npm start`: the first README command. Ingests the demo collection (idempotent: a second start
// changes nothing) into .fundus-demo/ and serves it on the default loopback ports.

export async function demoCommand(argv: string[]): Promise<number> {
  const repo = projectRoot();
  const dataDir = resolve(repo, '.fundus-demo');
  const summary = await runIngest({
    dataDir,
    paths: [resolve(repo, 'samples/web'), resolve(repo, 'samples/office')],
    manifests: [],
    maxBytes: 50 * 1024 * 1024,
    workers: 2,
    timeoutMs: 30_000,
    quiet: true,
  });
  console.error(`demo collection: ${formatSummary(summary)}`);
  return serveCommand(['--data', dataDir, ...argv]);
}

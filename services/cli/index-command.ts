import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { clientsPerNode, createTypesenseClient } from '../index/typesense/client.ts';
import { aliasTarget } from '../index/typesense/collections.ts';
import { copySqliteToTypesense } from '../index/typesense/copy.ts';
import { COLLECTIONS, type CollectionKind } from '../index/typesense/schema.ts';
import { ensureSearchKey, SEARCH_KEY_ACTIONS } from '../index/typesense/search-key.ts';
import { SqliteIndex } from '../index/sqlite/sqlite-index.ts';
import { fediverseIndexFile } from '../ingest/fediverse/paths.ts';
import { loadConfig } from './config.ts';
import { createProgressDisplay } from './progress-display.ts';
import { UsageError } from './usage.ts';

// `fundus index ...`: moving the embedded index into a Typesense cluster, looking at it, optimizing
// the embedded index.
// The Typesense nodes and key come from TYPESENSE_NODES / TYPESENSE_API_KEY (as for `serve`).

export const INDEX_USAGE = `fundus index copy --from sqlite --to typesense --data DIR [options]
fundus index status [--collection web|fediverse]
fundus index search-key --to typesense
fundus index optimize --data DIR [--collection web|fediverse]

copy     reads every record of DIR/index.sqlite (read-only, a consistent snapshot) and imports it
         in batches into a fresh collection (fundus_web_v1_<UTC stamp>); when all records are in,
         the alias (fundus_web) is switched to it in one step, so searches never see a partial
         index. The previous collection is kept for a rollback unless --drop-previous is given.
  --collection web|fediverse   which index (default web)
  --sqlite-file FILE           copy from this file instead of DIR/index.sqlite (DIR/fediverse.sqlite)
  --batch-size N               records per JSONL import request (default 200)
  --drop-previous              delete the collection the alias pointed at before
search-key  creates, with the admin key in TYPESENSE_API_KEY, the search-only key whose value is
         TYPESENSE_SEARCH_KEY (at least 16 characters): actions ${SEARCH_KEY_ACTIONS.join(', ')} on the
         aliases ${Object.values(COLLECTIONS).join(', ')}. Serving replicas (gateway, web) then run with
         TYPESENSE_SEARCH_KEY only. Idempotent: run again, it changes nothing (or fixes the key's rights).
status   prints where the alias points and how many records the collection holds.
optimize merges the embedded index into one segment and rebuilds its score lists (DIR/index.lists:
         every frequent word's documents and frequencies, from which searches are ranked) and its
         head-term lists (the stored first ranks of every word that matches many documents).
         Ingestion does this at its end; until it has run again after other writes, searches are
         answered by FTS5 alone (slower on large collections, the same results). --min-matches N
         sets how many documents a word needs for a head-term list.

Needs TYPESENSE_NODES (comma-separated https://host:port) and TYPESENSE_API_KEY (an admin key).`;

function typesenseSettings(data: string | undefined, env: NodeJS.ProcessEnv) {
  const config = loadConfig({ data, index: 'typesense' }, env);
  if (config.index.kind !== 'typesense') throw new Error('unreachable: index kind');
  if (!config.index.apiKey) throw new UsageError('TYPESENSE_API_KEY (an admin key) is needed here; TYPESENSE_SEARCH_KEY only serves searches');
  return { nodes: config.index.nodes, apiKey: config.index.apiKey };
}

/** The embedded index of this kind in the data dir: index.sqlite (web) or fediverse.sqlite. */
function sqliteIndexFile(data: string | undefined, env: NodeJS.ProcessEnv, kind: CollectionKind): string {
  const config = loadConfig({ data, index: 'sqlite' }, env);
  if (config.index.kind !== 'sqlite') throw new Error('unreachable: index kind');
  return kind === 'fediverse' ? fediverseIndexFile(config.dataDir) : config.index.file;
}

function collectionKind(value: string | undefined): CollectionKind {
  const kind = value ?? 'web';
  if (!(kind in COLLECTIONS)) throw new UsageError(`--collection must be one of ${Object.keys(COLLECTIONS).join(', ')}`);
  return kind as CollectionKind;
}

async function copy(argv: string[], env: NodeJS.ProcessEnv, out: NodeJS.WritableStream): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      from: { type: 'string' },
      to: { type: 'string' },
      data: { type: 'string' },
      collection: { type: 'string' },
      'sqlite-file': { type: 'string' },
      'batch-size': { type: 'string' },
      'drop-previous': { type: 'boolean', default: false },
    },
  });
  if (values.from !== 'sqlite' || values.to !== 'typesense') throw new UsageError('only --from sqlite --to typesense is supported');
  const batchSize = values['batch-size'] === undefined ? 200 : Number(values['batch-size']);
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10_000) throw new UsageError('--batch-size must be a whole number from 1 to 10000');
  const kind = collectionKind(values.collection);
  const file = values['sqlite-file'] ?? sqliteIndexFile(values.data, env, kind);
  const settings = typesenseSettings(values.data, env);
  const client = createTypesenseClient(settings);
  const started = Date.now();
  const progress = createProgressDisplay({ counters: ['documents', 'aliases'], rateOf: 'documents' });
  progress.phase(`copying into ${COLLECTIONS[kind]}`);
  const summary = await copySqliteToTypesense({
    client,
    nodeClients: clientsPerNode(settings),
    sqliteFile: file,
    alias: COLLECTIONS[kind],
    batchSize,
    dropPrevious: values['drop-previous'],
    onProgress: ({ documents, aliases }) => {
      progress.set('documents', documents);
      progress.set('aliases', aliases);
    },
  }).finally(() => progress.stop());
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  out.write(`copied ${summary.documents} documents and ${summary.aliases} aliases from ${file} into ${summary.collection} in ${seconds} s\n`);
  out.write(`alias ${COLLECTIONS[kind]} -> ${summary.collection}${summary.previous ? ` (was ${summary.previous}${summary.dropped ? ', dropped' : ', kept for a rollback'})` : ''}\n`);
  return 0;
}

async function searchKey(argv: string[], env: NodeJS.ProcessEnv, out: NodeJS.WritableStream): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { to: { type: 'string' }, data: { type: 'string' } } });
  if (values.to !== 'typesense') throw new UsageError('search-key needs --to typesense');
  const value = env.TYPESENSE_SEARCH_KEY;
  if (!value) throw new UsageError('search-key needs TYPESENSE_SEARCH_KEY (the value of the key to create)');
  if (value.length < 16) throw new UsageError('TYPESENSE_SEARCH_KEY must be at least 16 characters');
  const collections = Object.values(COLLECTIONS);
  const outcome = await ensureSearchKey(createTypesenseClient(typesenseSettings(values.data, env)), value, collections);
  out.write(`search-only key (TYPESENSE_SEARCH_KEY) ${outcome}: ${SEARCH_KEY_ACTIONS.join(', ')} on ${collections.join(', ')}\n`);
  return 0;
}

async function status(argv: string[], env: NodeJS.ProcessEnv, out: NodeJS.WritableStream): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { collection: { type: 'string' }, data: { type: 'string' } } });
  const alias = COLLECTIONS[collectionKind(values.collection)];
  const client = createTypesenseClient(typesenseSettings(values.data, env));
  const health = await client.health.retrieve().catch((error: Error) => ({ ok: false, error: error.message }));
  out.write(`health: ${health.ok ? 'ok' : `not ok${'error' in health ? ` (${health.error})` : ''}`}\n`);
  const target = await aliasTarget(client, alias);
  if (!target) {
    out.write(`alias ${alias}: not created yet\n`);
    return 1;
  }
  const collection = await client.collections(target).retrieve();
  out.write(`alias ${alias} -> ${target}: ${collection.num_documents} records (documents, aliases and one meta record)\n`);
  return 0;
}

async function optimize(argv: string[], env: NodeJS.ProcessEnv, out: NodeJS.WritableStream): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { data: { type: 'string' }, collection: { type: 'string' }, 'min-matches': { type: 'string' } } });
  const minMatches = values['min-matches'] === undefined ? undefined : Number(values['min-matches']);
  if (minMatches !== undefined && !(Number.isInteger(minMatches) && minMatches >= 1)) throw new UsageError('--min-matches must be a whole number of at least 1');
  const file = sqliteIndexFile(values.data, env, collectionKind(values.collection));
  // Optimizing nothing would create an empty index as a side effect: say so instead.
  if (!existsSync(file)) throw new Error(`no index at ${file} (ingest documents first)`);
  const index = new SqliteIndex({ file });
  const progress = createProgressDisplay({ counters: [] });
  try {
    progress.phase('optimizing the index (merge, score lists, head-term lists)');
    const started = performance.now();
    const built = await index.optimize({ headTermMinMatches: minMatches });
    await progress.stop();
    const lists = built.scoreLists
      ? `${built.scoreLists.lists} score lists (${built.scoreLists.postings} postings, ${Math.round(built.scoreLists.bytes / 2 ** 20)} MiB) in ${built.scoreLists.seconds.toFixed(1)} s`
      : 'no score lists (an in-memory index)';
    out.write(
      `optimized in ${((performance.now() - started) / 1000).toFixed(1)} s: ${lists}; ${built.lists} head-term lists (words in at least ${built.minMatches} documents) in ${built.seconds.toFixed(1)} s\n`,
    );
    return 0;
  } finally {
    await progress.stop();
    index.closeSync();
  }
}

export async function runIndexCommand(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
  io: { out: NodeJS.WritableStream; err: NodeJS.WritableStream } = { out: process.stdout, err: process.stderr },
): Promise<number> {
  const [subcommand, ...rest] = argv;
  if (!subcommand || subcommand === '--help' || subcommand === '-h' || subcommand === 'help') {
    (subcommand ? io.out : io.err).write(`${INDEX_USAGE}\n`);
    return subcommand ? 0 : 2;
  }
  try {
    if (subcommand === 'copy') return await copy(rest, env, io.out);
    if (subcommand === 'status') return await status(rest, env, io.out);
    if (subcommand === 'search-key') return await searchKey(rest, env, io.out);
    if (subcommand === 'optimize') return await optimize(rest, env, io.out);
    throw new UsageError(`unknown subcommand "${subcommand}"`);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err.write(`fundus index: ${error.message}\n\n${INDEX_USAGE}\n`);
      return 2;
    }
    throw error;
  }
}

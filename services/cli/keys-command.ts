import { parseArgs } from 'node:util';
import { RedisKeyStore } from '../access/key-store-redis.ts';
import { openSqliteKeyStore } from '../access/key-store-sqlite.ts';
import { type KeyRecord, type KeyStore, KeyStoreError } from '../access/key-store.ts';
import { LIMIT_HINT } from '../access/limits.ts';
import { silentLog } from '../access/log.ts';
import { loadPepper } from '../access/pepper-file.ts';
import { closeRedis, connectRedis, createRedisClient } from '../access/redis-client.ts';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, loadConfig } from './config.ts';
import { UsageError } from './usage.ts';

// `fundus keys ...`: project read keys from the command line (issue 4). The key store is the one
// the server uses: Redis when REDIS_URL is set, else `<data>/access.sqlite`. A new key is printed
// alone on the last line of stdout, so scripts can take it with `tail -n 1`.

export const KEYS_USAGE = `fundus keys create --data DIR --name NAME --limit LIMIT
fundus keys list --data DIR [--json]
fundus keys revoke --data DIR ID_OR_NAME
fundus keys set-limit --data DIR ID_OR_NAME --limit LIMIT

LIMIT is ${LIMIT_HINT}.
With REDIS_URL set, the commands act on the shared Redis key store instead of DIR; they then need
the servers' FUNDUS_KEY_PEPPER or FUNDUS_KEY_PEPPER_FILE (README "Security").`;

export interface KeysCommandIo {
  out: NodeJS.WritableStream;
  err: NodeJS.WritableStream;
}

// A command run once may wait for a Redis that is starting or busy (a fresh deployment).
const REDIS_CONNECT_WAIT_MS = 10_000;

/** The key store; null when only reading and the data directory holds none (nothing is created then). */
async function openStore(data: string | undefined, env: NodeJS.ProcessEnv, readOnly: boolean): Promise<KeyStore | null> {
  const config = loadConfig({ data }, env);
  if (!config.access.redisUrl) {
    if (readOnly && !existsSync(join(config.dataDir, 'access.sqlite'))) return null;
    return openSqliteKeyStore(config.dataDir, undefined, loadPepper(config.access.keyPepper));
  }
  const pepper = loadPepper(config.access.keyPepper);
  const client = createRedisClient(config.access.redisUrl, silentLog);
  if (!(await connectRedis(client, REDIS_CONNECT_WAIT_MS))) {
    await closeRedis(client);
    throw new KeyStoreError('UNAVAILABLE', 'Redis (REDIS_URL) is not reachable; no key was changed');
  }
  return new RedisKeyStore({ client, pepper, ownsClient: true });
}

function describe(record: KeyRecord): string {
  return `${record.id} "${record.name}" (limit ${record.limit})`;
}

function table(records: KeyRecord[]): string {
  const rows = [['ID', 'NAME', 'LIMIT', 'CREATED', 'REVOKED', 'LAST USED'], ...records.map((r) => [r.id, r.name, r.limit, r.createdAt, r.revokedAt ?? '-', r.lastUsedDay ?? '-'])];
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  return rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column])).join('  ').trimEnd()).join('\n');
}

async function resolve(store: KeyStore, idOrName: string | undefined): Promise<KeyRecord> {
  if (!idOrName) throw new UsageError('name the key: an id (fk_...) or its name');
  const record = await store.find(idOrName);
  if (!record) throw new KeyStoreError('NOT_FOUND', `no key with the id or name "${idOrName}"`);
  return record;
}

async function run(subcommand: string, rest: string[], env: NodeJS.ProcessEnv, io: KeysCommandIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: { data: { type: 'string' }, name: { type: 'string' }, limit: { type: 'string' }, json: { type: 'boolean', default: false } },
  });
  const print = (line: string) => io.out.write(`${line}\n`);
  if (subcommand === 'create' && (!values.name || !values.limit)) throw new UsageError('create needs --name NAME and --limit LIMIT');
  if (subcommand === 'set-limit' && !values.limit) throw new UsageError('set-limit needs --limit LIMIT');
  if (!['create', 'list', 'revoke', 'set-limit'].includes(subcommand)) throw new UsageError(`unknown keys command "${subcommand}"`);

  const store = await openStore(values.data, env, subcommand !== 'create');
  if (!store) {
    // No key store yet: nothing to list, nothing to change, and no directory made as a side effect.
    if (subcommand === 'list') {
      print(values.json ? '[]' : 'No project read keys.');
      return 0;
    }
    if (!positionals[0]) throw new UsageError('name the key: an id (fk_...) or its name');
    throw new KeyStoreError('NOT_FOUND', `no key with the id or name "${positionals[0] ?? ''}" (no key store in this data directory)`);
  }
  try {
    switch (subcommand) {
      case 'create': {
        const { key, record } = await store.create({ name: values.name!, limit: values.limit! });
        print(`Created project read key ${describe(record)}.`);
        print('Store it now: it is shown only this once, and only its hash is kept.');
        print(key);
        return 0;
      }
      case 'list': {
        const records = await store.list();
        if (values.json) print(JSON.stringify(records, null, 2));
        else print(records.length ? table(records) : 'No project read keys.');
        return 0;
      }
      case 'revoke': {
        const record = await resolve(store, positionals[0]);
        if (record.revokedAt || !(await store.revoke(record.id))) {
          io.err.write(`fundus keys: ${describe(record)} was already revoked\n`);
          return 1;
        }
        print(`Revoked ${describe(record)}.`);
        return 0;
      }
      default: {
        const record = await resolve(store, positionals[0]);
        if (!(await store.setLimit(record.id, values.limit!))) {
          io.err.write(`fundus keys: ${describe(record)} is revoked; its limit cannot change\n`);
          return 1;
        }
        print(`Limit of ${record.id} "${record.name}" is now ${(await store.find(record.id))?.limit ?? values.limit}.`);
        return 0;
      }
    }
  } finally {
    await store.close();
  }
}

export async function runKeysCommand(argv: string[], env: NodeJS.ProcessEnv = process.env, io: KeysCommandIo = { out: process.stdout, err: process.stderr }): Promise<number> {
  const args = argv[0] === 'keys' ? argv.slice(1) : argv;
  const [subcommand, ...rest] = args;
  if (!subcommand || subcommand === '--help' || subcommand === '-h' || subcommand === 'help') {
    (subcommand ? io.out : io.err).write(`${KEYS_USAGE}\n`);
    return subcommand ? 0 : 2;
  }
  try {
    return await run(subcommand, rest, env, io);
  } catch (error) {
    if (error instanceof UsageError || String((error as NodeJS.ErrnoException).code).startsWith('ERR_PARSE_ARGS')) {
      io.err.write(`fundus keys: ${(error as Error).message}\n\n${KEYS_USAGE}\n`);
      return 2;
    }
    if (error instanceof KeyStoreError || error instanceof ConfigError) {
      io.err.write(`fundus keys: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

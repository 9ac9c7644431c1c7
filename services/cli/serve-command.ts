import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { createAccess } from '../access/access-guard.ts';
import { analyzeWord } from '../core/analysis/index.ts';
import type { DocumentIndex } from '../core/index-port.ts';
import { buildAdminApp } from '../admin/app.ts';
import { buildConfiguredGateway } from './gateway-app.ts';
import { REUSE_PORT_SUPPORTED, startGatewayThreads, type GatewayThreads } from './gateway-threads.ts';
import { SqliteReadPool } from '../index/sqlite/read-pool.ts';
import { SqliteIndex } from '../index/sqlite/sqlite-index.ts';
import { openWhenReady } from '../index/sqlite/waiting-index.ts';
import { openTypesenseIndex } from '../index/typesense/open.ts';
import { fediverseIndexFile } from '../ingest/fediverse/paths.ts';
import { buildSearchWebApp } from '../search-web/app.ts';
import { addDrainHooks } from '../http/drain.ts';
import { ConfigError, loadConfig, type Config } from './config.ts';

export const SERVE_USAGE = `fundus serve --data DIR [--role gateway|web|admin]... [--host H] [--port P]

Serves the index in DIR. Roles (default: all, in one process):
  gateway  REST API v1, /mcp, /openapi.json, /docs     --host/--port (127.0.0.1:8082)
  web      public search page and /api/*                --web-host/--web-port (127.0.0.1:8080)
  admin    admin panel (needs FUNDUS_ADMIN_TOKEN)        --admin-host/--admin-port (127.0.0.1:8081)
Every setting can also be given as an environment variable (see infra/env.example).`;

export interface RunningServices {
  urls: Record<string, string>;
  /** Readiness off (503 on /readyz), connections closed after each answer, still serving; resolves after `ms`. */
  drain(ms: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * The web index and, for the web role, the fediverse index: embedded SQLite files (opened read-only;
 * before the first ingestion or while a writer holds the lock, serve waits: waiting-index.ts) or
 * Typesense collections.
 */
async function openIndexes(config: Config, log: pino.Logger, gatewayThreads: number): Promise<{ index: DocumentIndex | null; fediverseIndex: DocumentIndex | null }> {
  const wantsFediverse = config.roles.includes('web');
  // Serving threads read the index themselves; the main thread needs it only for the web role.
  if (gatewayThreads > 0 && !wantsFediverse) return { index: null, fediverseIndex: null };
  if (config.index.kind === 'sqlite') {
    const { file, searchWorkers } = config.index;
    const waiting = (name: string) => ({
      onWait: (reason: string) => log.warn({ index: name }, `index not ready, waiting: ${reason}`),
      onOpen: () => log.info({ index: name }, 'index open'),
    });
    return {
      index: openWhenReady({
        open: () => (searchWorkers > 0 ? new SqliteReadPool({ file, workers: searchWorkers, openWaitMs: 0 }) : new SqliteIndex({ file, readOnly: true, openWaitMs: 0 })),
        ...waiting('web'),
      }),
      // Fediverse posts are optional: until their index exists an empty one answers.
      fediverseIndex: wantsFediverse
        ? openWhenReady({ open: () => new SqliteIndex({ file: fediverseIndexFile(config.dataDir), readOnly: true, openWaitMs: 0 }), standIn: emptyIndex(), ...waiting('fediverse') })
        : null,
    };
  }
  // Readers need only the search-only key (`fundus index search-key`); they never create an alias.
  const connection = { nodes: config.index.nodes, apiKey: config.index.searchKey ?? config.index.apiKey };
  return {
    index: await openTypesenseIndex({ ...connection, collection: 'web' }),
    fediverseIndex: wantsFediverse ? await openTypesenseIndex({ ...connection, collection: 'fediverse' }) : null,
  };
}

/** An index with nothing in it, in memory (nothing written to disk). */
function emptyIndex(): DocumentIndex {
  return new SqliteIndex({ file: ':memory:' });
}

/**
 * Standard output, written in chunks of at least 4 KiB (and at least every second): one write per
 * request line cost a busy gateway a tenth of its time. Flushed when the services close.
 */
function bufferedStdout(): { stream: NodeJS.WritableStream; close(): void } {
  const destination = pino.destination({ dest: 1, minLength: 4096, sync: false });
  // A closed standard output (EPIPE) loses log lines, never the service.
  destination.on('error', () => undefined);
  const timer = setInterval(() => destination.flush(), 1000).unref();
  return {
    stream: destination as unknown as NodeJS.WritableStream,
    close() {
      clearInterval(timer);
      try {
        destination.flushSync();
      } catch {
        // standard output already gone (a closed pipe): nothing left to tell
      }
    },
  };
}

/**
 * Serving threads of the gateway (gateway-threads.ts): FUNDUS_GATEWAY_THREADS, else one per core
 * where SO_REUSEPORT exists; embedded index only. Not by default with REDIS_URL: every thread then
 * holds a Redis connection of its own for the keys, and in the live kit one replica's thread once
 * stayed unable to check keys for minutes after start (cause not found; README "Search speed").
 */
export function gatewayThreadCount(config: Config): number {
  if (!config.roles.includes('gateway') || config.index.kind !== 'sqlite' || !REUSE_PORT_SUPPORTED) return 0;
  return config.gateway.threads ?? (config.access.redisUrl ? 0 : availableParallelism());
}

export async function startServices(config: Config, givenLogStream?: NodeJS.WritableStream): Promise<RunningServices> {
  const stdout = givenLogStream ? null : bufferedStdout();
  const logStream = givenLogStream ?? stdout!.stream;
  const log = pino({ level: config.logLevel }, logStream);
  const threadCount = gatewayThreadCount(config);
  const { index, fediverseIndex } = await openIndexes(config, log, threadCount);
  // Query analysis runs here (unless serving threads answer every search): load the compound lexicon before the first request.
  if (index) analyzeWord('Bundestagswahl');
  const access = await createAccess(config, log);
  const apps: FastifyInstance[] = [];
  const urls: Record<string, string> = {};
  let gatewayThreads: GatewayThreads | null = null;
  let draining = false;
  const drainable = (app: FastifyInstance) => {
    addDrainHooks(app, () => draining);
    apps.push(app);
  };
  const closeAll = async () => {
    await Promise.allSettled([...apps.map((app) => app.close()), gatewayThreads?.close()]);
    await access.close();
    await index?.close();
    await fediverseIndex?.close();
    stdout?.close();
  };
  try {
    if (threadCount > 0) {
      gatewayThreads = await startGatewayThreads({
        config,
        count: threadCount,
        budgets: access.budgets,
        logStream,
        onThreadLost: (error) => log.error({ err: error ?? undefined }, 'a gateway thread stopped; the others go on serving'),
      });
      urls.gateway = gatewayThreads.url;
    } else if (config.roles.includes('gateway') && index) {
      const app = await buildConfiguredGateway({ config, index, guard: access.guard, logStream });
      drainable(app);
      urls.gateway = await app.listen({ host: config.gateway.host, port: config.gateway.port });
    }
    if (fediverseIndex && index) {
      const app = await buildSearchWebApp({
        index,
        fediverseIndex,
        guard: access.publicGuard,
        countBudgetMs: config.gateway.countBudgetMs,
        fediverseInstances: config.web.fediverseInstances,
        externalUrl: config.web.externalUrl,
        logLevel: config.logLevel,
        logStream,
      });
      drainable(app);
      urls.web = await app.listen({ host: config.web.host, port: config.web.port });
    }
    if (config.roles.includes('admin')) {
      if (config.admin.token) {
        const app = await buildAdminApp({
          keyStore: access.keyStore,
          adminToken: config.admin.token,
          logLevel: config.logLevel,
          logStream,
          secureCookies: config.admin.externalUrl?.startsWith('https:') ?? false,
          allowedHosts: config.access.allowedHosts,
        });
        drainable(app);
        urls.admin = await app.listen({ host: config.admin.host, port: config.admin.port });
      } else if (config.rolesExplicit) {
        throw new ConfigError(['FUNDUS_ADMIN_TOKEN: required for the admin role (at least 16 characters)']);
      } else {
        log.warn('admin panel not started: set FUNDUS_ADMIN_TOKEN to enable it');
      }
    }
  } catch (error) {
    await closeAll();
    throw error;
  }
  log.info({ urls }, 'fundus is serving');
  const drain = async (ms: number) => {
    draining = true;
    await gatewayThreads?.drain();
    if (ms <= 0) return;
    log.info({ ms }, 'draining: not ready, still serving');
    await new Promise((resolve) => setTimeout(resolve, ms));
  };
  return { urls, drain, close: closeAll };
}

export function serveFlags(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: false,
    options: {
      data: { type: 'string' },
      role: { type: 'string', multiple: true },
      host: { type: 'string' },
      port: { type: 'string' },
      'web-host': { type: 'string' },
      'web-port': { type: 'string' },
      'admin-host': { type: 'string' },
      'admin-port': { type: 'string' },
      'external-url': { type: 'string' },
      'log-level': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  }).values;
}

/**
 * Runs until SIGTERM/SIGINT, then drains for FUNDUS_DRAIN_MS (not ready, still serving), stops
 * accepting, lets in-flight requests finish within FUNDUS_SHUTDOWN_TIMEOUT_MS, and exits.
 */
export async function serveCommand(argv: string[]): Promise<number> {
  const flags = serveFlags(argv);
  if (flags.help) {
    console.log(SERVE_USAGE);
    return 0;
  }
  const { role, help: _help, ...rest } = flags;
  const config = loadConfig({ ...rest, role: role?.join(',') });
  // Listen for the stop signal before starting, so that a signal during start-up also stops cleanly.
  const stopped = new Promise<void>((resolve) => {
    process.once('SIGTERM', () => resolve());
    process.once('SIGINT', () => resolve());
  });
  const running = await startServices(config);
  for (const [name, url] of Object.entries(running.urls)) console.error(`fundus ${name}: ${url}`);
  await stopped;
  await running.drain(config.drainMs);
  const timer = setTimeout(() => process.exit(1), config.shutdownTimeoutMs).unref();
  await running.close();
  clearTimeout(timer);
  return 0;
}

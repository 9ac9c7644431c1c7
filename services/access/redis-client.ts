import { Redis } from 'ioredis';
import type { AccessLog } from './log.ts';

// One ioredis connection per process for budgets and keys. No request may hang on a dead Redis:
// the offline queue is off (commands fail at once while disconnected), every command has a short
// timeout, and reconnection is retried at least once a second so that recovery is quick.

export const REDIS_COMMAND_TIMEOUT_MS = 500;

export function createRedisClient(url: string, log: AccessLog): Redis {
  const client = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    connectTimeout: 1000,
    maxRetriesPerRequest: 0,
    retryStrategy: (attempt) => Math.min(100 * attempt, 1000),
  });
  // Only state changes are logged (never the URL: it may carry a password).
  let reachable: boolean | null = null;
  client.on('ready', () => {
    if (reachable !== true) log.info({ component: 'access' }, 'redis reachable: shared budgets and keys in use');
    reachable = true;
  });
  client.on('error', () => {
    if (reachable !== false) log.warn({ component: 'access' }, 'redis unreachable: falling back to in-process budgets until it returns');
    reachable = false;
  });
  client.on('close', () => {
    if (reachable === true) log.warn({ component: 'access' }, 'redis connection closed: falling back to in-process budgets until it returns');
    reachable = false;
  });
  return client;
}

/** Connects, waiting at most `timeoutMs`; false when Redis did not answer in time (the client keeps retrying). */
export async function connectRedis(client: Redis, timeoutMs: number): Promise<boolean> {
  if (client.status === 'ready') return true;
  if (client.status === 'wait') client.connect().catch(() => {});
  return new Promise((resolve) => {
    const timer = setTimeout(() => finish(false), timeoutMs);
    const onReady = () => finish(true);
    function finish(ok: boolean) {
      clearTimeout(timer);
      client.off('ready', onReady);
      resolve(ok);
    }
    client.on('ready', onReady);
  });
}

/** Closes politely, and hard after a short wait when Redis does not answer. */
export async function closeRedis(client: Redis): Promise<void> {
  if (client.status === 'end') return;
  if (client.status !== 'ready') {
    client.disconnect();
    return;
  }
  await Promise.race([client.quit().catch(() => {}), new Promise((resolve) => setTimeout(resolve, 500))]);
  client.disconnect();
}

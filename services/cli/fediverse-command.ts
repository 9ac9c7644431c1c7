import { parseArgs } from 'node:util';
import type { ApplySummary } from '../ingest/fediverse/apply.ts';
import { DEFAULT_FETCH, fetchTimeline } from '../ingest/fediverse/fetch-timeline.ts';
import { ingestFediverseFiles } from '../ingest/fediverse/files.ts';
import { fediverseIndexFile } from '../ingest/fediverse/paths.ts';
import { parseNetwork } from '../ingest/sources/address-guard.ts';
import { SqliteIndex } from '../index/sqlite/sqlite-index.ts';
import { loadConfig } from './config.ts';
import { UsageError } from './usage.ts';

export const FEDIVERSE_USAGE = `fundus fediverse ingest --data DIR FILE...
fundus fediverse fetch --data DIR --instance HOST [--max N] [--delay-ms N] [--max-seconds N]
                       [--allow-private] [--allow-net CIDR]...

Fills the fediverse index (DIR/fediverse.sqlite) that the public search page searches.

  ingest   reads Mastodon API status arrays (JSON, as /api/v1/timelines/public returns them)
           and ActivityPub outbox collections (outbox.json of an unpacked account archive;
           an actor.json beside it supplies the author's opt-out flags)
  fetch    pages the public local timeline of one instance politely (https)
    --instance HOST   the instance, e.g. social.example
    --max N           stop after N posts (default ${DEFAULT_FETCH.maxPosts})
    --delay-ms N      pause before every request (default ${DEFAULT_FETCH.delayMs})
    --max-seconds N   stop after N seconds, waits included (default ${DEFAULT_FETCH.timeLimitMs / 1000})
    --base-url URL    talk to another address than https://HOST (for tests and mirrors)
    --allow-private   also connect to loopback, private, link-local and other non-public
                      addresses; default: public addresses only, checked after DNS resolution
                      on every request and redirect (as fundus crawl does)
    --allow-net CIDR  allow one non-public network only, e.g. 10.1.0.0/16 (repeatable)

Only public posts go in; accounts with indexable: false, discoverable: false, noindex or a
#nobot bio are skipped. A post is removed only on an explicit signal: a Delete activity, a
404/410 when fetch looks up a stored post that no longer appears, or the post seen again as
no longer public or by an author who opted out since.`;

function formatApplied(summary: ApplySummary): string {
  const skipped = Object.entries(summary.skipped)
    .filter(([, count]) => count > 0)
    .map(([reason, count]) => `${reason} ${count}`)
    .join(', ');
  return (
    `added ${summary.added}, updated ${summary.updated}, unchanged ${summary.unchanged}, removed ${summary.removed}` +
    (summary.stale ? `, older than stored ${summary.stale}` : '') +
    (skipped ? `, skipped: ${skipped}` : '')
  );
}

function positiveInt(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0) throw new UsageError(`--${name}: must be a whole number >= 0, got "${value}"`);
  return number;
}

const HOST = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}$/;

async function ingestFiles(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { data: { type: 'string' }, help: { type: 'boolean', default: false } } });
  if (values.help) return usage(0);
  if (!values.data) throw new UsageError('--data: required (the data directory)');
  if (positionals.length === 0) throw new UsageError('nothing to ingest: give one or more JSON files');
  const index = new SqliteIndex({ file: fediverseIndexFile(loadConfig({ data: values.data }).dataDir) });
  try {
    const { total, files } = await ingestFediverseFiles(index, positionals);
    for (const file of files) console.error(file.error ? `skipped ${file.error}` : `${file.file}: ${formatApplied(file.summary!)}`);
    console.log(formatApplied(total));
    return files.some((file) => file.error) ? 1 : 0;
  } finally {
    await index.optimize();
    await index.close();
  }
}

async function fetchInstance(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    allowPositionals: false,
    options: {
      data: { type: 'string' },
      instance: { type: 'string' },
      max: { type: 'string' },
      'delay-ms': { type: 'string' },
      'max-seconds': { type: 'string' },
      'base-url': { type: 'string' },
      'allow-private': { type: 'boolean', default: false },
      'allow-net': { type: 'string', multiple: true },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) return usage(0);
  if (!values.data) throw new UsageError('--data: required (the data directory)');
  const instance = values.instance?.trim().toLowerCase() ?? '';
  if (!HOST.test(instance)) throw new UsageError(`--instance: a host name like social.example is required, got "${values.instance ?? ''}"`);
  let baseUrl: string | undefined;
  if (values['base-url']) {
    try {
      const url = new URL(values['base-url']);
      if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('scheme');
      baseUrl = url.origin;
    } catch {
      throw new UsageError(`--base-url: must be an http(s) URL, got "${values['base-url']}"`);
    }
  }
  const allowedNetworks = (values['allow-net'] ?? []).map((cidr) => {
    try {
      parseNetwork(cidr);
    } catch (error) {
      throw new UsageError(`--allow-net: ${(error as Error).message}`);
    }
    return cidr.trim();
  });
  const index = new SqliteIndex({ file: fediverseIndexFile(loadConfig({ data: values.data }).dataDir) });
  try {
    const summary = await fetchTimeline(index, {
      instance,
      baseUrl,
      allowPrivate: values['allow-private'],
      allowedNetworks,
      maxPosts: positiveInt('max', values.max, DEFAULT_FETCH.maxPosts),
      delayMs: positiveInt('delay-ms', values['delay-ms'], DEFAULT_FETCH.delayMs),
      timeLimitMs: positiveInt('max-seconds', values['max-seconds'], DEFAULT_FETCH.timeLimitMs / 1000) * 1000,
      onPage: (page) => console.error(`page ${page.number}: ${page.statuses} posts`),
    });
    console.log(
      `${instance}: ${summary.seen} posts read in ${summary.requests} requests (${summary.pages} pages, ${summary.rechecked} looked up again); ` +
        `${formatApplied(summary)}; stopped: ${summary.stopped}${summary.httpStatus ? ` (HTTP ${summary.httpStatus})` : ''}${summary.refused ? ` (${summary.refused})` : ''}`,
    );
    return ['http_error', 'network_error', 'address_refused'].includes(summary.stopped) ? 1 : 0;
  } finally {
    await index.optimize();
    await index.close();
  }
}

function usage(code: number): number {
  (code === 0 ? console.log : console.error)(FEDIVERSE_USAGE);
  return code;
}

/** `fundus fediverse ingest|fetch ...`; returns the exit code. */
export async function runFediverseCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  try {
    if (sub === 'ingest') return await ingestFiles(rest);
    if (sub === 'fetch') return await fetchInstance(rest);
    if (sub === '--help' || sub === 'help') return usage(0);
    console.error(sub ? `fundus fediverse: unknown subcommand "${sub}"` : 'fundus fediverse: ingest or fetch?');
    return usage(2);
  } catch (error) {
    if (error instanceof UsageError || (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS'))) {
      console.error(`fundus fediverse ${sub}: ${error.message}`);
      return 2;
    }
    throw error;
  }
}

import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { createMemoryBudgets, type Budgets } from '../../services/access/budgets.ts';
import type { RequestGuard } from '../../services/access/guard.ts';
import { createPublicGuard } from '../../services/access/public-guard.ts';
import type { StoredDocument } from '../../services/core/document.ts';
import { SqliteIndex } from '../../services/index/sqlite/sqlite-index.ts';
import { applyVerdicts } from '../../services/ingest/fediverse/apply.ts';
import { ingestFediverseFiles } from '../../services/ingest/fediverse/files.ts';
import { statusVerdict } from '../../services/ingest/fediverse/mastodon.ts';
import { buildSearchWebApp } from '../../services/search-web/app.ts';

// A search front end on a free loopback port over fresh web and fediverse indexes, plus builders of
// Mastodon status JSON for fixtures of our own.

export const NOW = new Date('2026-11-22T12:00:00Z');
export const SAMPLE_FEDIVERSE_DIR = resolve('samples/fediverse');

/** The fediverse sample files (Mastodon arrays and outbox.json), or [] with a loud note when missing. */
export function sampleFediverseFiles(): string[] {
  const files = existsSync(SAMPLE_FEDIVERSE_DIR) ? readdirSync(SAMPLE_FEDIVERSE_DIR).filter((f) => f.endsWith('.json') && f !== 'actor.json') : [];
  if (files.length === 0) console.warn(`NOTE: no fediverse samples in ${SAMPLE_FEDIVERSE_DIR}; tests use their own fixtures only`);
  return files.sort().map((f) => join(SAMPLE_FEDIVERSE_DIR, f));
}

/** The real public guard (60/min unless told otherwise) over its own in-memory budget. */
export function realPublicGuard(options: { budgets?: Budgets; points?: number } = {}): RequestGuard {
  return createPublicGuard({
    config: { access: { allowedOrigins: [], publicLimit: { points: options.points ?? 60, durationSeconds: 60 } } },
    budgets: options.budgets ?? createMemoryBudgets(),
  });
}

let statusCounter = 0;

export interface StatusSpec {
  id?: string;
  instance?: string;
  user?: string;
  name?: string;
  content: string;
  createdAt?: string;
  editedAt?: string | null;
  visibility?: string;
  language?: string | null;
  tags?: string[];
  spoiler?: string;
  account?: Record<string, unknown>;
  reblog?: unknown;
}

/** A status as Mastodon's REST API returns it. */
export function mastodonStatus(spec: StatusSpec): Record<string, unknown> {
  const instance = spec.instance ?? 'social.example';
  const user = spec.user ?? 'anna';
  const id = spec.id ?? String(110_000_000_000_000_000n + BigInt(++statusCounter));
  return {
    id,
    created_at: spec.createdAt ?? '2026-11-01T10:00:00.000Z',
    edited_at: spec.editedAt ?? null,
    in_reply_to_id: null,
    sensitive: Boolean(spec.spoiler),
    spoiler_text: spec.spoiler ?? '',
    visibility: spec.visibility ?? 'public',
    language: spec.language === undefined ? 'de' : spec.language,
    uri: `https://${instance}/users/${user}/statuses/${id}`,
    url: `https://${instance}/@${user}/${id}`,
    replies_count: 1,
    reblogs_count: 2,
    favourites_count: 3,
    content: spec.content,
    reblog: spec.reblog ?? null,
    account: {
      id: `acc-${user}`,
      username: user,
      acct: user,
      display_name: spec.name ?? user[0].toUpperCase() + user.slice(1),
      discoverable: true,
      indexable: true,
      noindex: false,
      note: '<p>Hallo!</p>',
      url: `https://${instance}/@${user}`,
      ...spec.account,
    },
    tags: (spec.tags ?? []).map((name) => ({ name, url: `https://${instance}/tags/${name}` })),
    media_attachments: [],
    mentions: [],
  };
}

export async function putStatuses(index: SqliteIndex, statuses: unknown[], now = NOW) {
  return applyVerdicts(index, statuses.map((status) => statusVerdict(status)), now);
}

export interface TestSearchWeb {
  url: string;
  index: SqliteIndex;
  fediverseIndex: SqliteIndex;
  logs: () => string;
  close(): Promise<void>;
}

export async function startTestSearchWeb(options: {
  webDocs?: StoredDocument[];
  statuses?: unknown[];
  fediverseFiles?: string[];
  guard: RequestGuard;
  fediverseInstances?: string[];
}): Promise<TestSearchWeb> {
  const dir = mkdtempSync(join(tmpdir(), 'fundus-web-'));
  const index = new SqliteIndex({ file: join(dir, 'index.sqlite') });
  const fediverseIndex = new SqliteIndex({ file: join(dir, 'fediverse.sqlite') });
  await index.writeBatch(async () => {
    for (const doc of options.webDocs ?? []) await index.put(doc);
  });
  if (options.fediverseFiles?.length) await ingestFediverseFiles(fediverseIndex, options.fediverseFiles, () => NOW);
  if (options.statuses?.length) await putStatuses(fediverseIndex, options.statuses);
  const logStream = new PassThrough();
  let logText = '';
  logStream.on('data', (chunk) => (logText += chunk.toString()));
  const app = await buildSearchWebApp({
    index,
    fediverseIndex,
    guard: options.guard,
    countBudgetMs: 1000,
    fediverseInstances: options.fediverseInstances ?? [],
    externalUrl: 'http://127.0.0.1:8080',
    logLevel: 'info',
    logStream,
    now: () => NOW,
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    url,
    index,
    fediverseIndex,
    logs: () => logText,
    async close() {
      await app.close();
      await index.close();
      await fediverseIndex.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

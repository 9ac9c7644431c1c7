import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { runFediverseCommand } from '../../services/cli/fediverse-command.ts';
import { documentIdForUrl } from '../../services/core/urls.ts';
import { SqliteIndex } from '../../services/index/sqlite/sqlite-index.ts';
import { fetchTimeline, nextLink } from '../../services/ingest/fediverse/fetch-timeline.ts';
import { fediverseIndexFile } from '../../services/ingest/fediverse/paths.ts';
import { mastodonStatus, NOW } from '../helpers/search-web.ts';

// `fundus fediverse fetch` against a local HTTP server that answers like a Mastodon instance's public
// API: pages of 40 with max_id and Link headers, a 429 with Retry-After, an opted-out account, a
// private post, and on a second run a deleted post (404), an edited post and an account that opted out.

const INSTANCE = 'social.example';
// The mock instance listens on loopback, which the fetch client refuses unless the operator opts in.
const LOCAL = { allowedNetworks: ['127.0.0.1/32'] };

interface Mock {
  /** Newest first, as the timeline returns them. */
  timeline: Record<string, unknown>[];
  /** Posts that still exist but are not in the timeline any more. */
  hidden: Record<string, unknown>[];
  deleted: Set<string>;
  /** max_id values (or "first") that answer 429 once. */
  throttleOnce: Map<string, string>;
  requests: { path: string; query: URLSearchParams; userAgent: string | undefined }[];
}

let mock: Mock;
let server: Server;
let baseUrl: string;
let dir: string;
let index: SqliteIndex;

function makeTimeline(): Record<string, unknown>[] {
  const statuses: Record<string, unknown>[] = [];
  for (let i = 0; i < 95; i++) {
    const id = String(200_000 - i);
    const createdAt = new Date(Date.UTC(2026, 10, 20, 12) - i * 3600_000).toISOString();
    const optedOut = i === 10 || i === 50;
    statuses.push(
      mastodonStatus({
        id,
        instance: INSTANCE,
        user: optedOut ? 'leise' : `nutzer${i % 7}`,
        content: `<p>Beitrag ${i} über den Wochenmarkt</p>`,
        createdAt,
        visibility: i === 20 ? 'private' : 'public',
        account: optedOut ? { note: '<p>Bitte keine Bots #nobot</p>' } : {},
      }),
    );
  }
  return statuses;
}

function send(response: import('node:http').ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  response.end(JSON.stringify(body));
}

beforeAll(async () => {
  server = createServer((request, response) => {
    const url = new URL(request.url!, 'http://127.0.0.1');
    mock.requests.push({ path: url.pathname, query: url.searchParams, userAgent: request.headers['user-agent'] });
    if (url.pathname === '/api/v1/timelines/public') {
      const maxId = url.searchParams.get('max_id');
      const throttle = mock.throttleOnce.get(maxId ?? 'first');
      if (throttle) {
        mock.throttleOnce.delete(maxId ?? 'first');
        return send(response, 429, { error: 'Too many requests' }, { 'retry-after': throttle });
      }
      const limit = Math.min(40, Number(url.searchParams.get('limit') ?? 20));
      const page = mock.timeline.filter((s) => maxId === null || BigInt(s.id as string) < BigInt(maxId)).slice(0, limit);
      // Like Mastodon: a Link header while the page is full; our fetcher falls back to max_id otherwise.
      const headers: Record<string, string> =
        page.length === limit ? { link: `<${baseUrl}/api/v1/timelines/public?local=true&limit=40&max_id=${page.at(-1)!.id}>; rel="next", <${baseUrl}/api/v1/timelines/public?local=true&limit=40&min_id=${page[0].id}>; rel="prev"` } : {};
      return send(response, 200, page, headers);
    }
    const status = /^\/api\/v1\/statuses\/(\d+)$/.exec(url.pathname);
    if (status) {
      if (mock.deleted.has(status[1])) return send(response, 404, { error: 'Record not found' });
      const found = [...mock.timeline, ...mock.hidden].find((s) => s.id === status[1]);
      return found ? send(response, 200, found) : send(response, 404, { error: 'Record not found' });
    }
    send(response, 404, { error: 'Not found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  mock = { timeline: makeTimeline(), hidden: [], deleted: new Set(), throttleOnce: new Map(), requests: [] };
  dir = mkdtempSync(join(tmpdir(), 'fundus-fetch-'));
  index = new SqliteIndex({ file: fediverseIndexFile(dir) });
});

afterEach(async () => {
  await index.close();
  rmSync(dir, { recursive: true, force: true });
});

function recorder() {
  const waits: number[] = [];
  return { waits, sleep: async (ms: number) => void waits.push(ms) };
}

const idOf = (status: Record<string, unknown>) => documentIdForUrl(status.uri as string);

describe('fediverse fetch', () => {
  it('pages the public local timeline politely, waits out a 429 and skips opted-out and private posts', async () => {
    mock.throttleOnce.set(String(200_000 - 39), '2');
    const { waits, sleep } = recorder();
    const summary = await fetchTimeline(index, { instance: INSTANCE, baseUrl, ...LOCAL, delayMs: 250, sleep, now: () => NOW });

    expect(summary).toMatchObject({ stopped: 'end', pages: 3, seen: 95, added: 92, removed: 0 });
    expect(summary.skipped).toMatchObject({ opted_out: 2, not_public: 1 });
    const timeline = mock.requests.filter((r) => r.path === '/api/v1/timelines/public');
    expect(timeline.map((r) => r.query.get('max_id'))).toEqual([null, '199961', '199961', '199921', '199906']);
    for (const request of timeline) {
      expect(request.query.get('local')).toBe('true');
      expect(request.query.get('limit')).toBe('40');
      expect(request.userAgent).toMatch(/^Fundus\//);
    }
    // One pause before every request but the first, and the 2 seconds the 429 asked for.
    expect(waits.filter((ms) => ms === 2000)).toHaveLength(1);
    expect(waits.filter((ms) => ms === 250)).toHaveLength(mock.requests.length - 1);
    expect(await index.getDocument(idOf(mock.timeline[10]))).toBeNull();
    expect(await index.getDocument(idOf(mock.timeline[20]))).toBeNull();
    expect((await index.getDocument(idOf(mock.timeline[0])))!.content).toMatchObject({ author_handle: '@nutzer0@social.example', status_id: '200000' });
  });

  it('on a later run removes a deleted post (404), updates an edited one and drops an author who opted out', async () => {
    const { sleep } = recorder();
    await fetchTimeline(index, { instance: INSTANCE, baseUrl, ...LOCAL, delayMs: 0, sleep, now: () => NOW });
    const [deleted, edited, kept, optingOut] = [mock.timeline[30], mock.timeline[31], mock.timeline[60], mock.timeline[61]];

    mock.timeline = mock.timeline.filter((s) => s !== deleted && s !== kept);
    mock.hidden = [kept];
    mock.deleted.add(deleted.id as string);
    Object.assign(edited, { content: '<p>Beitrag 31: der Wochenmarkt fällt aus</p>', edited_at: '2026-11-21T09:00:00.000Z' });
    optingOut.account = { ...(optingOut.account as object), indexable: false };
    mock.requests = [];

    const summary = await fetchTimeline(index, { instance: INSTANCE, baseUrl, ...LOCAL, delayMs: 0, sleep, now: () => NOW });
    expect(summary).toMatchObject({ stopped: 'end', seen: 93, updated: 1, removed: 2, added: 0, rechecked: 2 });
    expect(await index.getDocument(idOf(deleted))).toBeNull();
    expect(await index.getDocument(idOf(optingOut))).toBeNull();
    expect((await index.getDocument(idOf(kept)))?.text, 'absent from the listing is no proof of deletion').toBe('Beitrag 60 über den Wochenmarkt');
    expect((await index.getDocument(idOf(edited)))?.text).toBe('Beitrag 31: der Wochenmarkt fällt aus');
    const lookups = mock.requests.filter((r) => r.path.startsWith('/api/v1/statuses/')).map((r) => r.path);
    expect(lookups.sort()).toEqual([`/api/v1/statuses/${deleted.id}`, `/api/v1/statuses/${kept.id}`].sort());
  });

  it('stops at the post limit', async () => {
    const summary = await fetchTimeline(index, { instance: INSTANCE, baseUrl, ...LOCAL, maxPosts: 50, delayMs: 0, sleep: recorder().sleep });
    expect(summary).toMatchObject({ stopped: 'max_posts', seen: 50, requests: 2 });
    expect((await index.stats()).documents).toBe(48);
  });

  it('gives up instead of waiting past its time limit', async () => {
    mock.throttleOnce.set('first', '3600');
    const { waits, sleep } = recorder();
    const summary = await fetchTimeline(index, { instance: INSTANCE, baseUrl, ...LOCAL, timeLimitMs: 60_000, delayMs: 0, sleep });
    expect(summary).toMatchObject({ stopped: 'rate_limited', httpStatus: 429, requests: 1, seen: 0 });
    expect(waits.every((ms) => ms < 60_000)).toBe(true);
  });

  it('speaks https by default and follows only same-origin Link headers', async () => {
    const fetchStub = vi.fn(async (_url: string) => new Response('[]', { status: 200, headers: { 'content-type': 'application/json' } }));
    await fetchTimeline(index, { instance: INSTANCE, fetch: fetchStub as unknown as typeof fetch, sleep: recorder().sleep });
    expect(fetchStub.mock.calls[0][0]).toBe('https://social.example/api/v1/timelines/public?local=true&limit=40');
    expect(nextLink('<https://social.example/api/v1/timelines/public?max_id=5>; rel="next"', 'https://social.example')).toBe('https://social.example/api/v1/timelines/public?max_id=5');
    expect(nextLink('<https://evil.example/x?max_id=5>; rel="next"', 'https://social.example')).toBeNull();
    expect(nextLink('<https://social.example/x?min_id=5>; rel="prev"', 'https://social.example')).toBeNull();
  });
});

describe('fundus fediverse (CLI)', () => {
  it('fetch fills DIR/fediverse.sqlite; ingest reads files; bad usage exits 2', async () => {
    const output = vi.spyOn(console, 'log').mockImplementation(() => {});
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const data = mkdtempSync(join(tmpdir(), 'fundus-fetch-cli-'));
      const code = await runFediverseCommand(['fetch', '--data', data, '--instance', INSTANCE, '--base-url', baseUrl, '--allow-net', '127.0.0.1/32', '--delay-ms', '0', '--max', '60']);
      expect(code).toBe(0);
      expect(output.mock.calls.flat().join('\n')).toMatch(/social\.example: 60 posts read .*stopped: max_posts/);
      const stored = new SqliteIndex({ file: join(data, 'fediverse.sqlite'), readOnly: true });
      expect((await stored.stats()).documents).toBe(57); // 60 read: two opted out, one private
      await stored.close();
      expect(await runFediverseCommand(['fetch', '--data', data, '--instance', 'not a host'])).toBe(2);
      expect(await runFediverseCommand(['fetch', '--instance', INSTANCE])).toBe(2);
      expect(await runFediverseCommand(['fetch', '--data', data, '--instance', INSTANCE, '--allow-net', 'intranet'])).toBe(2);
      expect(await runFediverseCommand(['ingest', '--data', data])).toBe(2);
      expect(await runFediverseCommand(['frobnicate'])).toBe(2);
      rmSync(data, { recursive: true, force: true });
    } finally {
      output.mockRestore();
      errors.mockRestore();
    }
  });
});

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Errors, type Client } from 'typesense';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeQuery } from '../../services/core/analysis/index.ts';
import { AppError } from '../../services/core/errors.ts';
import type { IndexQuery } from '../../services/core/index-port.ts';
import { storeDocument } from '../../services/core/use-cases/store-document.ts';
import { SqliteIndex } from '../../services/index/sqlite/sqlite-index.ts';
import { clientsPerNode, createTypesenseClient, type TypesenseConnection } from '../../services/index/typesense/client.ts';
import { aliasTarget, dropCollection } from '../../services/index/typesense/collections.ts';
import { copySqliteToTypesense } from '../../services/index/typesense/copy.ts';
import { importJsonl } from '../../services/index/typesense/importer.ts';
import { openTypesenseIndex } from '../../services/index/typesense/open.ts';
import { collectionSchema, TYPESENSE_SCHEMA_VERSION } from '../../services/index/typesense/schema.ts';
import { ensureSearchKey, SEARCH_KEY_ACTIONS, searchKeyDescription } from '../../services/index/typesense/search-key.ts';
import type { TypesenseIndex } from '../../services/index/typesense/typesense-index.ts';
import { CONTRACT_DOCS, makeDoc } from '../helpers/documents.ts';
import { runFundus, startFundus } from '../helpers/processes.ts';
import { loadTypesenseApiChecker, TYPESENSE_OPENAPI_FILE } from '../helpers/typesense-openapi.ts';
import { TypesenseStandIn } from '../helpers/typesense-stand-in.ts';
import { indexContract } from './index-contract.ts';

// The Typesense suite: the shared index contract, the server behaviour the adapter relies on, and
// the adapter on a 3-node cluster. ONE suite, run against every target there is:
// - the stand-in (test/helpers/typesense-stand-in.ts) over HTTP on 127.0.0.1 — always;
// - a real server named by TYPESENSE_URL (comma-separated node URLs; + TYPESENSE_API_KEY), or
// - containers of TYPESENSE_IMAGE started with testcontainers (Docker, or podman's socket through
//   DOCKER_HOST, see ../shared/CONTAINERS.md), when that image is present locally.
// Every request and answer is checked against Typesense's API description (../shared/typesense/
// openapi.yml); where the description is silent the test names the Typesense source file. A few
// checks need a control only the stand-in has (holding replication, slowing searches); against a
// real server they run without it, or say that they cannot.

const API_KEY = process.env.TYPESENSE_API_KEY ?? 'fundus-test-key';
const api = loadTypesenseApiChecker();
if (!api) console.warn(`\n*** typesense suite: API description checks SKIPPED: ${TYPESENSE_OPENAPI_FILE} is absent ***\n`);

interface Cluster {
  urls: string[];
  stopNode(i: number): Promise<void>;
  startNode(i: number): Promise<void>;
  /** Stand-in only: the stand-in itself (replication, readiness and slowness controls). */
  standIn?: TypesenseStandIn;
}

interface Target {
  name: string;
  /** URLs of a one-node server (set in beforeAll). */
  single: string[];
  standIn?: TypesenseStandIn;
  cluster: Cluster | null;
  start(): Promise<void>;
  stop(): Promise<void>;
}

function connection(urls: string[], extra: Partial<TypesenseConnection> = {}): TypesenseConnection {
  return { nodes: urls, apiKey: API_KEY, retryIntervalSeconds: 0.05, ...(api ? { axiosAdapter: api.adapter } : {}), ...extra };
}

const freshName = (prefix = 'fundus_test') => `${prefix}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;

/** A fresh alias per test (a writer creates it); closing the index drops its collection again. */
async function freshIndex(urls: string[], alias = freshName()): Promise<TypesenseIndex> {
  const index = await openTypesenseIndex({ ...connection(urls), alias, create: true });
  const close = index.close.bind(index);
  index.close = async () => {
    const client = createTypesenseClient(connection(urls));
    const target = await aliasTarget(client, alias);
    await client.aliases(alias).delete().catch(() => undefined);
    if (target) await dropCollection(client, target);
    await close();
  };
  return index;
}

async function until<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
}

/** Waits until every node answers the query with `total` hits (followers apply writes a moment later). */
async function onEveryNode(urls: string[], alias: string, q: string, total: number): Promise<void> {
  for (const url of urls) {
    const node = await openTypesenseIndex({ ...connection([url]), alias });
    await until(`${total} hits for "${q}" on ${url}`, async () => (await node.search(query(q))).total === total);
  }
}

const query = (q: string, extra: Partial<IndexQuery> = {}): IndexQuery => ({ terms: analyzeQuery(q), order: 'relevance', limit: 10, offset: 0, countBudgetMs: 1000, ...extra });

// ---- targets ----------------------------------------------------------------------------------

function standInTarget(): Target {
  const single = new TypesenseStandIn({ apiKey: API_KEY });
  // A 5.5 s election: longer than Typesense's 5 s election timeout, which the write retries must outlast;
  // followers apply each write 20 ms after the leader, as a real cluster does a moment later.
  const cluster = new TypesenseStandIn({ nodes: 3, apiKey: API_KEY, electionMs: 5_500, replicationDelayMs: 20 });
  const target: Target = {
    name: 'stand-in (HTTP on 127.0.0.1)',
    single: [],
    standIn: single,
    cluster: { urls: [], standIn: cluster, stopNode: (i) => cluster.stopNode(i), startNode: (i) => cluster.startNode(i) },
    async start() {
      target.single = await single.listen();
      target.cluster!.urls = await cluster.listen();
    },
    async stop() {
      await Promise.all([single.close(), cluster.close()]);
    },
  };
  return target;
}

function urlTarget(raw: string): Target {
  const urls = raw.split(',').map((u) => u.trim()).filter(Boolean);
  return {
    name: `server at TYPESENSE_URL (${urls.join(', ')})`,
    single: [urls[0]],
    // Nodes of a cluster behind TYPESENSE_URL cannot be stopped from here.
    cluster: urls.length >= 3 ? { urls, stopNode: async () => undefined, startNode: async () => undefined } : null,
    async start() {},
    async stop() {},
  };
}

async function imageTarget(image: string): Promise<Target | string> {
  if (!process.env.DOCKER_HOST && !(await import('node:fs')).existsSync('/var/run/docker.sock')) return 'no container engine (set DOCKER_HOST, e.g. unix:///run/podman/podman.sock)';
  const tc = await import('testcontainers');
  try {
    const runtime = await tc.getContainerRuntimeClient();
    if (!(await runtime.image.exists(tc.ImageName.fromString(image)))) return `image ${image} is not present locally (nothing is pulled)`;
  } catch (error) {
    return `container engine not usable: ${error instanceof Error ? error.message : String(error)}`;
  }
  type Started = Awaited<ReturnType<InstanceType<typeof tc.GenericContainer>['start']>>;
  const command = (extra: string[] = []) => ['--data-dir', '/data', `--api-key=${API_KEY}`, ...extra];
  let single: Started | null = null;
  let network: Awaited<ReturnType<InstanceType<typeof tc.Network>['start']>> | null = null;
  let nodes: Started[] = [];
  const names = ['ts1', 'ts2', 'ts3'];
  const target: Target = {
    name: `${image} in containers`,
    single: [],
    cluster: {
      urls: [],
      stopNode: async (i) => void (await nodes[i].stop()),
      startNode: async () => undefined,
    },
    async start() {
      single = await new tc.GenericContainer(image)
        .withCommand(command())
        .withTmpFs({ '/data': 'rw' })
        .withExposedPorts(8108)
        .withWaitStrategy(tc.Wait.forHttp('/health', 8108).forStatusCode(200))
        .withStartupTimeout(120_000)
        .start();
      target.single = [`http://${single.getHost()}:${single.getMappedPort(8108)}`];
      network = await new tc.Network().start();
      const nodesFile = names.map((name) => `${name}:8107:8108`).join(',');
      nodes = await Promise.all(
        names.map((name) =>
          new tc.GenericContainer(image)
            .withNetwork(network!)
            .withNetworkAliases(name)
            .withCopyContentToContainer([{ content: nodesFile, target: '/etc/typesense/nodes' }])
            .withCommand(command(['--nodes=/etc/typesense/nodes', '--peering-port=8107', '--api-port=8108', '--reset-peers-on-error']))
            .withTmpFs({ '/data': 'rw' })
            .withExposedPorts(8108)
            .withWaitStrategy(tc.Wait.forListeningPorts())
            .withStartupTimeout(120_000)
            .start(),
        ),
      );
      target.cluster!.urls = nodes.map((node) => `http://${node.getHost()}:${node.getMappedPort(8108)}`);
      for (const url of target.cluster!.urls) await until(`${url}/health`, async () => (await fetch(`${url}/health`)).ok, 120_000);
    },
    async stop() {
      await Promise.allSettled([single?.stop(), ...nodes.map((node) => node.stop())]);
      await network?.stop();
    },
  };
  return target;
}

const targets: Target[] = [standInTarget()];
if (process.env.TYPESENSE_URL) targets.push(urlTarget(process.env.TYPESENSE_URL));
else if (process.env.TYPESENSE_IMAGE) {
  const found = await imageTarget(process.env.TYPESENSE_IMAGE);
  if (typeof found === 'string') console.warn(`\n*** typesense suite against a real server SKIPPED: TYPESENSE_IMAGE=${process.env.TYPESENSE_IMAGE}: ${found} ***\n`);
  else targets.push(found);
} else {
  console.warn('\n*** typesense suite against a real server SKIPPED: set TYPESENSE_URL (a running server) or TYPESENSE_IMAGE (a local image for testcontainers); it ran against the stand-in only ***\n');
}

// ---- the suite --------------------------------------------------------------------------------

/** A small collection for the server-behaviour checks. */
async function scratch(client: Client, fields: Record<string, unknown>[] = []): Promise<string> {
  const name = freshName('fundus_probe');
  await client.collections().create({
    name,
    fields: [
      { name: 's', type: 'string', optional: true },
      { name: 'tags', type: 'string[]', optional: true },
      { name: 'n', type: 'int64', optional: true },
      { name: 'kind', type: 'string', optional: true, facet: false },
      { name: 'f', type: 'string', optional: true, facet: true },
      ...fields,
    ],
  } as never);
  return name;
}

/** The adapter's own import (typesense-js's adds its option `throwOnFail` to the query, which is not an API parameter). */
async function importAll(client: Client, collection: string, docs: Record<string, unknown>[]): Promise<void> {
  await importJsonl(client, collection, docs, 30_000);
}

async function searchOne(client: Client, search: Record<string, unknown>): Promise<{ found?: number; hits?: { document: Record<string, unknown> }[]; code?: number; error?: string; search_cutoff?: boolean }> {
  const response = (await client.multiSearch.perform({ searches: [search] } as never, {})) as unknown as { results: Record<string, unknown>[] };
  return response.results[0] as never;
}

const ids = (result: { hits?: { document: Record<string, unknown> }[] }) => (result.hits ?? []).map((hit) => hit.document.id);

for (const target of targets) {
  describe(`typesense suite: ${target.name}`, () => {
    beforeAll(async () => {
      await target.start();
    }, 600_000);
    afterAll(async () => {
      await target.stop();
      if (api) expect(api.violations, 'requests and answers outside Typesense\'s API description').toEqual([]);
    });

    indexContract(`typesense (${target.name})`, () => freshIndex(target.single));

    describe('server behaviour the adapter relies on', () => {
      let client: Client;
      const dropped: string[] = [];
      beforeAll(() => {
        client = createTypesenseClient(connection(target.single));
      });
      afterAll(async () => {
        for (const name of dropped) await dropCollection(client, name).catch(() => undefined);
      });
      const probe = async (fields?: Record<string, unknown>[]) => {
        const name = await scratch(client, fields);
        dropped.push(name);
        return name;
      };

      it('breaks ties newest first, and an upsert keeps a record\'s place (include/topster.h is_greater: ties by seq_id; src/collection.cpp to_doc keeps the seq_id)', async () => {
        const c = await probe();
        await importAll(client, c, [{ id: 'a', n: 1 }, { id: 'b', n: 1 }, { id: 'c', n: 1 }]);
        expect(ids(await searchOne(client, { collection: c, q: '*', sort_by: 'n:desc' }))).toEqual(['c', 'b', 'a']);
        await importAll(client, c, [{ id: 'a', n: 1, s: 'changed' }]);
        expect(ids(await searchOne(client, { collection: c, q: '*', sort_by: 'n:desc' }))).toEqual(['c', 'b', 'a']);
      });

      it('allows one _eval per sort_by, and scores a weighted _eval by its first matching filter (src/collection.cpp, src/collection_manager.cpp parse_multi_eval, src/index.cpp)', async () => {
        const c = await probe();
        await importAll(client, c, [
          { id: 'none', tags: ['x'] },
          { id: 'both', tags: ['a', 'b'] },
          { id: 'onlyb', tags: ['b'] },
          { id: 'onlya', tags: ['a'] },
        ]);
        const two = await searchOne(client, { collection: c, q: '*', sort_by: '_eval(tags:=`a`):desc,_eval(tags:=`b`):desc' });
        expect(two).toMatchObject({ code: 422, error: 'Only one sorting eval expression is allowed.' });
        // `both` matches the first filter (3) although it matches the second (2) too: not a sum.
        const weighted = await searchOne(client, { collection: c, q: '*', sort_by: '_eval([ (tags:=`a`):3, (tags:=`b`):2 ]):desc,n:desc' });
        expect(ids(weighted)).toEqual(['onlya', 'both', 'onlyb', 'none']);
      });

      it('compares string filters token by token after tokenizing and folding; ids exactly (src/tokenizer.cpp, src/filter_result_iterator.cpp)', async () => {
        const c = await probe();
        await importAll(client, c, [
          { id: 'Doc-A', s: 'Stadt-A.example' },
          { id: 'doc-b', s: 'Häuser am See' },
          { id: 'doc-c', s: 'Häuser' },
        ]);
        expect(ids(await searchOne(client, { collection: c, q: '*', filter_by: 's:=`stadtaexample`' }))).toEqual(['Doc-A']);
        expect(ids(await searchOne(client, { collection: c, q: '*', filter_by: 's:=`HAUSER`' }))).toEqual(['doc-c']);
        expect(ids(await searchOne(client, { collection: c, q: '*', filter_by: 'id:=`doc-a`' }))).toEqual([]);
        expect(ids(await searchOne(client, { collection: c, q: '*', filter_by: 'id:=[`Doc-A`, `doc-b`]' })).sort()).toEqual(['Doc-A', 'doc-b']);
      });

      it('applies typos, prefixes and dropped words unless told not to (src/collection.cpp collection_search_args_t::init defaults)', async () => {
        const c = await probe();
        await importAll(client, c, [{ id: 'h', s: 'haus am see' }]);
        const strict = { num_typos: '0', prefix: 'false', drop_tokens_threshold: 0, typo_tokens_threshold: 0 };
        for (const q of ['hauz', 'hau', 'haus zebra']) {
          expect(ids(await searchOne(client, { collection: c, q, query_by: 's' })), q).toEqual(['h']);
          expect(ids(await searchOne(client, { collection: c, q, query_by: 's', ...strict })), `${q} strict`).toEqual([]);
        }
      });

      it('checks facet and sort flags of fields (src/collection.cpp)', async () => {
        const c = await probe();
        await importAll(client, c, [{ id: '1', kind: 'k', f: 'v', s: 'x' }]);
        expect(await searchOne(client, { collection: c, q: '*', facet_by: 'kind' })).toMatchObject({ code: 404 });
        expect(await searchOne(client, { collection: c, q: '*', facet_by: 'f' })).toMatchObject({ found: 1 });
        expect(await searchOne(client, { collection: c, q: '*', sort_by: 's:asc' })).toMatchObject({ code: 404 });
      });

      it('pages: `page` wins over `offset`, `limit` is per_page, at most 250 (src/collection.cpp search)', async () => {
        const c = await probe();
        await importAll(client, c, [{ id: '1', n: 3 }, { id: '2', n: 2 }, { id: '3', n: 1 }]);
        expect(ids(await searchOne(client, { collection: c, q: '*', sort_by: 'n:desc', page: 2, per_page: 1, offset: 0 }))).toEqual(['2']);
        expect(ids(await searchOne(client, { collection: c, q: '*', sort_by: 'n:desc', offset: 2, limit: 1 }))).toEqual(['3']);
        expect(await searchOne(client, { collection: c, q: '*', per_page: 251 })).toMatchObject({ code: 422 });
      });

      it('refuses more than limit_multi_searches (50) searches in one request (src/core_api.cpp post_multi_search)', async () => {
        const c = await probe();
        const searches = Array.from({ length: 51 }, () => ({ collection: c, q: '*' }));
        await expect(client.multiSearch.perform({ searches } as never, {})).rejects.toBeInstanceOf(Errors.RequestMalformed);
        await expect(client.multiSearch.perform({ searches: searches.slice(1) } as never, {})).resolves.toBeTruthy();
      });

      it('points an alias at a collection without checking that it exists (src/collection_manager.cpp upsert_symlink)', async () => {
        const alias = freshName('fundus_alias');
        await client.aliases().upsert(alias, { collection_name: `${alias}_missing` });
        expect(await aliasTarget(client, alias)).toBe(`${alias}_missing`);
        await client.aliases(alias).delete();
      });

      it('scopes API keys by action and collection; a key value is taken once (src/auth_manager.cpp, src/http_data.cpp)', async () => {
        const c = await probe();
        await importAll(client, c, [{ id: '1', s: 'x' }]);
        const value = `fundus-probe-${Math.random().toString(36).slice(2)}-key`;
        const created = (await client.keys().create({ value, description: 'probe', actions: ['documents:search'], collections: [c] } as never)) as unknown as { id: number };
        await expect(client.keys().create({ value, description: 'probe', actions: ['documents:search'], collections: [c] } as never)).rejects.toBeInstanceOf(Errors.ObjectAlreadyExists);
        const scoped = createTypesenseClient(connection(target.single, { apiKey: value }));
        expect(ids(await searchOne(scoped, { collection: c, q: '*' }))).toEqual(['1']);
        await expect(scoped.collections(c).documents().create({ id: '2' } as never)).rejects.toBeInstanceOf(Errors.RequestUnauthorized);
        await expect(scoped.collections(c).retrieve()).rejects.toBeInstanceOf(Errors.RequestUnauthorized);
        await expect(scoped.multiSearch.perform({ searches: [{ collection: `${c}_other`, q: '*' }] } as never, {})).rejects.toBeInstanceOf(Errors.RequestUnauthorized);
        expect((await scoped.health.retrieve()).ok).toBe(true); // /health needs no key (src/core_api.cpp handle_authentication)
        await client.keys(created.id).delete();
      });
    });

    describe('readers with the search-only key', () => {
      it('search, read and check health with TYPESENSE_SEARCH_KEY alone, and cannot write', async () => {
        const writer = await freshIndex(target.single);
        try {
          for (const spec of CONTRACT_DOCS) await writer.put(makeDoc(spec));
          const admin = createTypesenseClient(connection(target.single));
          const value = `fundus-search-${Math.random().toString(36).slice(2)}-key`;
          expect(await ensureSearchKey(admin, value, [writer.collection])).toBe('created');
          expect(await ensureSearchKey(admin, value, [writer.collection])).toBe('unchanged');
          const reader = await openTypesenseIndex({ ...connection(target.single, { apiKey: value }), alias: writer.collection });
          expect((await reader.search(query('Haus'))).total).toBe(3);
          expect((await reader.stats()).documents).toBe(CONTRACT_DOCS.length);
          expect(await reader.getDocument(makeDoc(CONTRACT_DOCS[0]).id)).not.toBeNull();
          expect(await reader.ping()).toBe(true);
          const refused = await reader.put(makeDoc({ url: 'https://neu.example/', title: 'Neu', text: 'Neu.' })).catch((error: unknown) => error);
          expect(refused).toBeInstanceOf(AppError);
          expect(refused).toMatchObject({ code: 'INDEX_UNAVAILABLE', message: expect.stringMatching(/refused the API key/) });
          const { keys } = (await admin.keys().retrieve()) as unknown as { keys: { id: number; actions: string[]; value_prefix: string }[] };
          const ours = keys.filter((key) => key.value_prefix === value.slice(0, 4) && key.actions.join() === SEARCH_KEY_ACTIONS.join());
          for (const key of ours) await admin.keys(key.id).delete();
        } finally {
          await writer.close();
        }
      });

      it('`fundus serve` runs with TYPESENSE_SEARCH_KEY alone and never creates the alias (a process)', async () => {
        const admin = createTypesenseClient(connection(target.single));
        const existing = await aliasTarget(admin, 'fundus_web');
        const value = `fundus-serve-${Math.random().toString(36).slice(2)}-key`;
        await ensureSearchKey(admin, value, ['fundus_web', 'fundus_fediverse']);
        const env = { FUNDUS_INDEX: 'typesense', TYPESENSE_NODES: target.single.join(','), TYPESENSE_SEARCH_KEY: value, TYPESENSE_API_KEY: '', FUNDUS_DATA: mkdtempSync(join(tmpdir(), 'fundus-ts-serve-')) };
        const search = async (url: string) => fetch(`${url}/v1/search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ q: 'Haus' }) });
        let writer: TypesenseIndex | null = null;
        const serving = await startFundus(['--role', 'gateway', '--port', '0'], env);
        try {
          if (!existing) {
            // No alias yet: the replica answers "index unavailable" and creates nothing.
            expect((await search(serving.urls.gateway)).status).toBe(503);
            expect(await aliasTarget(admin, 'fundus_web')).toBeNull();
            writer = await freshIndex(target.single, 'fundus_web');
            for (const spec of CONTRACT_DOCS) await writer.put(makeDoc(spec));
            const answer = await until('a search through the gateway', async () => {
              const response = await search(serving.urls.gateway);
              return response.status === 200 ? ((await response.json()) as { total: number }) : false;
            });
            expect(answer.total).toBe(3);
          } else {
            expect((await search(serving.urls.gateway)).status).toBe(200);
          }
        } finally {
          await serving.stop();
          await writer?.close();
          const { keys } = (await admin.keys().retrieve()) as unknown as { keys: { id: number; description: string }[] };
          for (const key of keys.filter((k) => k.description === searchKeyDescription(value))) await admin.keys(key.id).delete();
        }
      });

      it('`fundus index search-key --to typesense` creates the key once (a process, with the admin key)', async () => {
        const value = `fundus-cli-${Math.random().toString(36).slice(2)}-key`;
        const env = { TYPESENSE_NODES: target.single.join(','), TYPESENSE_API_KEY: API_KEY, TYPESENSE_SEARCH_KEY: value, FUNDUS_INDEX: 'typesense' };
        const first = await runFundus(['index', 'search-key', '--to', 'typesense'], env);
        expect(first.stderr).toBe('');
        expect(first).toMatchObject({ code: 0, stdout: expect.stringContaining('search-only key (TYPESENSE_SEARCH_KEY) created: documents:search, aliases:get on fundus_web, fundus_fediverse') });
        const again = await runFundus(['index', 'search-key', '--to', 'typesense'], env);
        expect(again).toMatchObject({ code: 0, stdout: expect.stringContaining('unchanged') });
        expect(again.stdout + again.stderr).not.toContain(value); // the secret is never printed
        const admin = createTypesenseClient(connection(target.single));
        const { keys } = (await admin.keys().retrieve()) as unknown as { keys: { id: number; description: string; value_prefix: string }[] };
        const ours = keys.filter((key) => key.value_prefix === value.slice(0, 4) && key.description.startsWith('fundus search-only key'));
        expect(ours).toHaveLength(1);
        await admin.keys(ours[0].id).delete();
      });
    });

    describe.skipIf(!target.cluster)('the adapter on a 3-node cluster', () => {
      const cluster = target.cluster!;
      const standIn = () => cluster.standIn;

      it('reads its own writes back while followers lag (round-robin reads)', async () => {
        const index = await freshIndex(cluster.urls);
        standIn()?.holdReplication(true);
        try {
          const doc = makeDoc(CONTRACT_DOCS[0]);
          for (let i = 0; i < 3; i++) {
            // Each call may reach another node; followers have not applied the writes.
            expect(await index.put(doc)).toBe(i === 0 ? 'added' : 'unchanged');
          }
          expect(await index.put({ ...doc, text: `${doc.text} Neu.`, changedAt: '2026-11-20T08:00:00.000Z' })).toBe('updated');
          for (let i = 0; i < 3; i++) {
            expect((await index.findByContentHash(doc.contentHash))?.id).toBe(doc.id);
            expect((await index.getDocument(doc.id))?.text).toContain('Neu.');
          }
          if (standIn()) expect(standIn()!.lag(standIn()!.followers()[0])).toBeGreaterThan(0);
        } finally {
          standIn()?.holdReplication(false);
          await index.close();
        }
      });

      it('copies into a lagging cluster: counts from the import answers, the alias swaps when every node holds them', async () => {
        const file = join(mkdtempSync(join(tmpdir(), 'fundus-ts-copy-')), 'index.sqlite');
        const sqlite = new SqliteIndex({ file });
        for (const spec of CONTRACT_DOCS) await storeDocument(sqlite, makeDoc(spec));
        await sqlite.close();
        const alias = freshName();
        const client = createTypesenseClient(connection(cluster.urls));
        standIn()?.holdReplication(true);
        // Followers catch up a moment later, while the copy waits for them.
        const release = setTimeout(() => standIn()?.holdReplication(false), 1_500);
        try {
          const summary = await copySqliteToTypesense({ client, sqliteFile: file, alias, nodeClients: clientsPerNode(connection(cluster.urls)), agreeTimeoutMs: 60_000 });
          expect(summary.documents).toBe(CONTRACT_DOCS.length);
          for (const node of clientsPerNode(connection(cluster.urls))) {
            expect(await aliasTarget(node, alias).catch(() => null)).toBe(summary.collection);
            expect((await node.collections(summary.collection).retrieve()).num_documents).toBe(CONTRACT_DOCS.length + 1); // + the meta record
          }
          await client.aliases(alias).delete();
          await dropCollection(client, summary.collection);
        } finally {
          clearTimeout(release);
          standIn()?.holdReplication(false);
        }
      });

      it('a serving replica never creates or moves the alias, and serves once it exists', async () => {
        const alias = freshName();
        const reader = await openTypesenseIndex({ ...connection(cluster.urls), alias });
        await expect(reader.search(query('Haus'))).rejects.toMatchObject({ code: 'INDEX_UNAVAILABLE' });
        const admin = createTypesenseClient(connection(cluster.urls));
        for (const node of clientsPerNode(connection(cluster.urls))) expect(await aliasTarget(node, alias)).toBeNull();
        const writer = await freshIndex(cluster.urls, alias);
        try {
          for (const spec of CONTRACT_DOCS) await writer.put(makeDoc(spec));
          if (standIn()) {
            // A follower that has not applied a new alias yet: a reader opening there must not create it.
            const other = freshName();
            standIn()!.holdReplication(true);
            await admin.collections().create(collectionSchema(`${other}_v${TYPESENSE_SCHEMA_VERSION}`) as never);
            await admin.aliases().upsert(other, { collection_name: `${other}_v${TYPESENSE_SCHEMA_VERSION}` });
            const follower = standIn()!.followers()[0];
            const lagBefore = standIn()!.lag(follower);
            const onFollower = await openTypesenseIndex({ ...connection([cluster.urls[follower]]), alias: other });
            await expect(onFollower.search(query('Haus'))).rejects.toMatchObject({ code: 'INDEX_UNAVAILABLE' });
            expect(standIn()!.nodes[follower].state.aliases.has(other)).toBe(false);
            expect(standIn()!.lag(follower)).toBe(lagBefore); // the reader wrote nothing
            standIn()!.holdReplication(false);
            expect(await aliasTarget(clientsPerNode(connection(cluster.urls))[follower], other)).toBe(`${other}_v${TYPESENSE_SCHEMA_VERSION}`);
            await admin.aliases(other).delete();
            await dropCollection(admin, `${other}_v${TYPESENSE_SCHEMA_VERSION}`);
          }
          await until('replicated hits', async () => (await reader.search(query('Haus'))).total === 3);
          expect(await aliasTarget(admin, alias)).toBe(`${alias}_v${TYPESENSE_SCHEMA_VERSION}`);
        } finally {
          standIn()?.holdReplication(false);
          await writer.close();
        }
      });

      it('a writer (ingest) starting while followers lag neither moves the alias nor writes elsewhere', async () => {
        const alias = freshName();
        const client = createTypesenseClient(connection(cluster.urls));
        // A rebuilt collection behind the alias (as `fundus index copy` leaves it), not yet on the followers.
        const rebuilt = `${alias}_v${TYPESENSE_SCHEMA_VERSION}_20260101000000`;
        standIn()?.holdReplication(true);
        const release = setTimeout(() => standIn()?.holdReplication(false), 1_000);
        try {
          await client.collections().create(collectionSchema(rebuilt) as never);
          await client.aliases().upsert(alias, { collection_name: rebuilt });
          const writer = await openTypesenseIndex({ ...connection(cluster.urls), alias, create: true });
          await writer.put(makeDoc(CONTRACT_DOCS[0]));
          for (const node of clientsPerNode(connection(cluster.urls))) expect(await aliasTarget(node, alias)).toBe(rebuilt);
          // The document + the meta record, once replicated (any node may answer).
          await until('the write on every node', async () => (await client.collections(rebuilt).retrieve()).num_documents === 2);
          await expect(client.collections(`${alias}_v${TYPESENSE_SCHEMA_VERSION}`).retrieve()).rejects.toBeInstanceOf(Errors.ObjectNotFound);
        } finally {
          clearTimeout(release);
          standIn()?.holdReplication(false);
          await client.aliases(alias).delete().catch(() => undefined);
          await dropCollection(client, rebuilt);
        }
      });

      it('keeps answering when a node is not ready or goes away, and writes outlast an election longer than 5 s', async () => {
        const index = await freshIndex(cluster.urls);
        try {
          await index.writeBatch(async () => {
            for (const spec of CONTRACT_DOCS) await index.put(makeDoc(spec));
          });
          await onEveryNode(cluster.urls, index.collection, 'Haus', 3);
          if (standIn()) {
            standIn()!.setReady(1, false); // 503 "Not Ready or Lagging" (src/http_server.cpp)
            for (let i = 0; i < 6; i++) expect((await index.search(query('Haus'))).total).toBe(3);
            expect(await index.ping()).toBe(true);
            for (const i of [0, 1, 2]) standIn()!.setReady(i, false); // /health: 503 {"ok": false} (src/core_api.cpp get_health)
            expect(await index.ping()).toBe(false);
            for (const i of [0, 1, 2]) standIn()!.setReady(i, true);
          }
          const leader = standIn()?.leader ?? 0;
          await cluster.stopNode(leader);
          for (let i = 0; i < 6; i++) expect((await index.search(query('Haus'))).total).toBe(3);
          expect(await index.ping()).toBe(true);
          // The stand-in's election takes 5.5 s; the write is retried until a leader answers.
          await index.put(makeDoc({ url: 'https://nach-ausfall.example/', title: 'Haus nach dem Ausfall', text: 'Ein Haus.' }));
          await until('the write after the failover', async () => (await index.search(query('Haus'))).total === 4);
          await cluster.startNode(leader);
        } finally {
          await index.close().catch(() => undefined);
        }
      }, 120_000);

      it.skipIf(!cluster.standIn)('lets the server cut a slow search short (gte) before the client gives up (stand-in control: slow searches)', async () => {
        const index = await freshIndex(cluster.urls);
        try {
          await index.writeBatch(async () => {
            for (const spec of CONTRACT_DOCS) await index.put(makeDoc(spec));
          });
          await onEveryNode(cluster.urls, index.collection, 'Haus', 3);
          for (const node of standIn()!.nodes) node.state.searchDelayMs = 60_000; // slower than the client's 5 s timeout
          const result = await index.search(query('Haus', { limit: 1 }));
          expect(result.totalRelation).toBe('gte');
        } finally {
          for (const node of standIn()!.nodes) node.state.searchDelayMs = 0;
          await index.close();
        }
      });
    });
  });
}

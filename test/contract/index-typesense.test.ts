import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeQuery } from '../../services/core/analysis/index.ts';
import { createTypesenseClient } from '../../services/index/typesense/client.ts';
import { dropCollection, aliasTarget } from '../../services/index/typesense/collections.ts';
import { openTypesenseIndex } from '../../services/index/typesense/open.ts';
import type { TypesenseIndex } from '../../services/index/typesense/typesense-index.ts';
import { CONTRACT_DOCS, makeDoc } from '../helpers/documents.ts';
import { indexContract } from './index-contract.ts';

// The index contract against a real Typesense: a server named by TYPESENSE_URL (+ TYPESENSE_API_KEY),
// else containers when a Docker engine answers (one node for the contract, three nodes for the
// cluster test). Where neither exists the suite is skipped LOUDLY (DESIGN.md section 6).

// Pinned to the server line the typesense-js 3.x client is written for; bump both together.
const TYPESENSE_IMAGE = 'typesense/typesense:30.1';
const API_KEY = process.env.TYPESENSE_API_KEY ?? 'fundus-test-key';

async function dockerAvailable(): Promise<boolean> {
  if (!process.env.DOCKER_HOST && !existsSync('/var/run/docker.sock')) return false;
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    await getContainerRuntimeClient();
    return true;
  } catch {
    return false;
  }
}

/** A fresh alias per test; closing the index drops its collection again. */
async function freshIndex(nodes: string[]): Promise<TypesenseIndex> {
  const alias = `fundus_test_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const index = await openTypesenseIndex({ nodes, apiKey: API_KEY, alias });
  const close = index.close.bind(index);
  index.close = async () => {
    const client = createTypesenseClient({ nodes, apiKey: API_KEY });
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
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
}

const serverUrl = process.env.TYPESENSE_URL;
const docker = serverUrl ? false : await dockerAvailable();

if (serverUrl) {
  indexContract(`typesense server at TYPESENSE_URL (${serverUrl})`, () => freshIndex(serverUrl.split(',').map((u) => u.trim())));
} else if (docker) {
  const { GenericContainer, Network, Wait } = await import('testcontainers');
  type Started = Awaited<ReturnType<InstanceType<typeof GenericContainer>['start']>>;
  const command = (extra: string[] = []) => ['--data-dir', '/data', `--api-key=${API_KEY}`, '--enable-cors', ...extra];

  describe(`typesense in Docker (${TYPESENSE_IMAGE}, one node)`, () => {
    let container: Started;
    let url = '';
    beforeAll(async () => {
      container = await new GenericContainer(TYPESENSE_IMAGE)
        .withCommand(command())
        .withTmpFs({ '/data': 'rw' })
        .withExposedPorts(8108)
        .withWaitStrategy(Wait.forHttp('/health', 8108).forStatusCode(200))
        .withStartupTimeout(120_000)
        .start();
      url = `http://${container.getHost()}:${container.getMappedPort(8108)}`;
    });
    afterAll(async () => {
      await container?.stop();
    });
    indexContract(`typesense ${TYPESENSE_IMAGE} in Docker`, () => freshIndex([url]));
  });

  describe(`typesense in Docker (${TYPESENSE_IMAGE}, a 3-node Raft cluster)`, () => {
    const names = ['ts1', 'ts2', 'ts3'];
    let network: Awaited<ReturnType<InstanceType<typeof Network>['start']>>;
    let nodes: Started[] = [];
    let urls: string[] = [];
    beforeAll(async () => {
      network = await new Network().start();
      const nodesFile = names.map((name) => `${name}:8107:8108`).join(',');
      nodes = await Promise.all(
        names.map((name) =>
          new GenericContainer(TYPESENSE_IMAGE)
            .withNetwork(network)
            .withNetworkAliases(name)
            .withCopyContentToContainer([{ content: nodesFile, target: '/etc/typesense/nodes' }])
            .withCommand(command(['--nodes=/etc/typesense/nodes', '--peering-port=8107', '--api-port=8108', '--reset-peers-on-error']))
            .withTmpFs({ '/data': 'rw' })
            .withExposedPorts(8108)
            .withWaitStrategy(Wait.forListeningPorts())
            .withStartupTimeout(120_000)
            .start(),
        ),
      );
      urls = nodes.map((node) => `http://${node.getHost()}:${node.getMappedPort(8108)}`);
      for (const url of urls) {
        await until(`${url}/health`, async () => (await fetch(`${url}/health`)).ok, 120_000);
      }
    });
    afterAll(async () => {
      await Promise.allSettled(nodes.map((node) => node.stop()));
      await network?.stop();
    });

    it('serves reads and writes through every node and keeps answering when one node stops', async () => {
      const index = await freshIndex(urls);
      await index.writeBatch(async () => {
        for (const spec of CONTRACT_DOCS) await index.put(makeDoc(spec));
      });
      const haus = { terms: analyzeQuery('Haus'), order: 'relevance' as const, limit: 10, offset: 0, countBudgetMs: 1000 };
      // Followers apply the Raft log shortly after the leader answers: wait for replication.
      await until('replicated hits', async () => (await index.search(haus)).total === 3);
      await nodes[0].stop();
      for (let i = 0; i < 6; i++) expect((await index.search(haus)).total).toBe(3);
      expect(await index.ping()).toBe(true);
      // A write after losing a node: the remaining two still form a quorum (a new leader if needed).
      await index.put(makeDoc({ url: 'https://nach-ausfall.example/', title: 'Haus nach dem Ausfall', text: 'Ein Haus.' }));
      await until('the write after the failover', async () => (await index.search(haus)).total === 4);
      await index.close().catch(() => undefined);
    });
  });
} else {
  const reason = 'SKIPPED: no Typesense server (set TYPESENSE_URL, and TYPESENSE_API_KEY) and no Docker engine for testcontainers';
  console.warn(`\n*** index contract: typesense ${reason} ***\n*** The adapter's logic is covered by test/unit/typesense-*.test.ts with a stand-in transport, not by a real server. ***\n`);
  describe.skip(`index contract: typesense — ${reason}`, () => {
    it('runs the shared index contract against a real Typesense', () => {});
    it('runs a 3-node Typesense cluster and survives losing one node', () => {});
  });
}

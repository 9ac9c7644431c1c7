import { Errors, type Client } from 'typesense';
import { clientOptions, clientsPerNode, createTypesenseClient, type TypesenseConnection } from './client.ts';
import { resolveCollection } from './collections.ts';
import { isRetryable } from './errors.ts';
import { COLLECTIONS, type CollectionKind } from './schema.ts';
import { TypesenseIndex } from './typesense-index.ts';

export interface OpenTypesenseOptions extends TypesenseConnection {
  /** Which index: the web index (default) or the fediverse index, each its own alias. */
  collection?: CollectionKind;
  /** Alias name override (tests use a fresh alias each). */
  alias?: string;
  /**
   * Create the versioned collection and the alias when they do not exist yet (writers: ingest).
   * Default false: a serving replica never creates or moves an alias. On a cluster its alias GET may
   * reach a follower that has not applied the alias yet (src/raft_server.cpp: followers answer
   * reads from their own state), and Typesense's alias PUT does not check that the target exists
   * (src/collection_manager.cpp upsert_symlink), so a creating reader could point the alias at an
   * empty collection. A reader that finds no alias starts anyway and answers INDEX_UNAVAILABLE
   * until ingestion or `fundus index copy` has created it.
   */
  create?: boolean;
  /**
   * How long start-up waits for an unreachable cluster (default 60 s), so that replicas started
   * together with Typesense do not crash-loop while it elects a leader. Other errors fail at once.
   */
  startupWaitMs?: number;
}

async function resolveWhenReachable(client: Client, alias: string, create: boolean, waitMs: number, nodeClients: Client[]): Promise<void> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      await resolveCollection(client, alias, { create, nodeClients });
      return;
    } catch (error) {
      if (!create && error instanceof Errors.ObjectNotFound) return; // not created yet: see `create`
      const cause = error instanceof Error && error.cause !== undefined ? error.cause : error;
      if (!isRetryable(cause) || Date.now() >= deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}

/** Opens the index port on Typesense: checks the alias and its layout version, then reads through the alias. */
export async function openTypesenseIndex(options: OpenTypesenseOptions): Promise<TypesenseIndex> {
  const client = createTypesenseClient(options);
  const alias = options.alias ?? COLLECTIONS[options.collection ?? 'web'];
  await resolveWhenReachable(client, alias, options.create ?? false, options.startupWaitMs ?? 60_000, clientsPerNode(options));
  // A probe must answer within its own timeout: one short try per node, no waiting in between.
  const healthClient = createTypesenseClient({ ...options, connectionTimeoutSeconds: 2, numRetries: Math.max(0, options.nodes.length - 1), retryIntervalSeconds: 0 });
  // The server cuts a search off (and says so) before the client stops waiting for it.
  const timeoutMs = clientOptions(options).connectionTimeoutSeconds! * 1000;
  return new TypesenseIndex(client, { collection: alias, healthClient, searchCutoffMs: Math.max(100, Math.floor(timeoutMs / 2)) });
}

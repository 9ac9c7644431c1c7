import { createTypesenseClient, type TypesenseConnection } from './client.ts';
import { resolveCollection } from './collections.ts';
import { COLLECTIONS, type CollectionKind } from './schema.ts';
import { TypesenseIndex } from './typesense-index.ts';

export interface OpenTypesenseOptions extends TypesenseConnection {
  /** Which index: the web index (default) or the fediverse index, each its own alias. */
  collection?: CollectionKind;
  /** Alias name override (tests use a fresh alias each). */
  alias?: string;
  /**
   * Create the versioned collection and the alias when they do not exist yet (default true), as a
   * SQLite reader creates an empty file: a replica that starts before ingestion serves an empty index.
   */
  create?: boolean;
}

/** Opens the index port on Typesense: checks the alias and its layout version, then reads through the alias. */
export async function openTypesenseIndex(options: OpenTypesenseOptions): Promise<TypesenseIndex> {
  const client = createTypesenseClient(options);
  const alias = options.alias ?? COLLECTIONS[options.collection ?? 'web'];
  await resolveCollection(client, alias, { create: options.create ?? true });
  // A probe must answer within its own timeout: one short try per node, no waiting in between.
  const healthClient = createTypesenseClient({ ...options, connectionTimeoutSeconds: 2, numRetries: Math.max(0, options.nodes.length - 1), retryIntervalSeconds: 0 });
  return new TypesenseIndex(client, { collection: alias, healthClient });
}

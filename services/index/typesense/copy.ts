import type { Client } from 'typesense';
import { SqliteIndex } from '../sqlite/sqlite-index.ts';
import { createCollection, dropCollection, swapAlias, untilAliasEverywhere } from './collections.ts';
import { importRecords } from './importer.ts';
import { aliasRecord, metaRecord, toRecord, type TypesenseRecord } from './record.ts';
import { rebuildStamp, versionedName } from './schema.ts';

// `fundus index copy --from sqlite --to typesense`: moves an embedded index into a cluster. It
// fills a fresh versioned collection and swaps the alias only when every record is in, so readers
// keep answering from the old collection until then; the old collection is kept for a rollback.
//
// On a cluster typesense-js sends each request to the next node, and followers answer reads from
// their own, possibly lagging, state (src/raft_server.cpp). So the count is taken from the import
// answers (each line confirmed by the leader), and before the swap every node is asked until it
// holds them all: a reader sent to any node after the swap finds the whole collection.

export interface CopyOptions {
  client: Client;
  /** The SQLite index file (opened read-only; a running ingest may keep writing to it). */
  sqliteFile: string;
  alias: string;
  batchSize?: number;
  dropPrevious?: boolean;
  now?: () => Date;
  onProgress?: (progress: { documents: number; aliases: number }) => void;
  /** One client per node (see clientsPerNode); without them only the import answers are checked. */
  nodeClients?: Client[];
  /** How long the nodes may take to agree on the count (default 120 s). */
  agreeTimeoutMs?: number;
}

export interface CopySummary {
  collection: string;
  previous: string | null;
  dropped: boolean;
  documents: number;
  aliases: number;
}

async function importInBatches(
  client: Client,
  collection: string,
  rows: Iterable<unknown>,
  convert: (row: never) => TypesenseRecord,
  batchSize: number,
  onBatch: (count: number) => void,
): Promise<{ sent: number; confirmed: number }> {
  let batch: TypesenseRecord[] = [];
  let sent = 0;
  let confirmed = 0;
  const send = async () => {
    if (!batch.length) return;
    confirmed += await importRecords(client, collection, batch, { batchSize });
    sent += batch.length;
    onBatch(batch.length);
    batch = [];
  };
  for (const row of rows) {
    batch.push(convert(row as never));
    if (batch.length >= batchSize) await send();
  }
  await send();
  return { sent, confirmed };
}

/** Waits until every node reports `expected` records in `collection` (lagging followers catch up). */
export async function untilNodesHold(clients: Client[], collection: string, expected: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const counts: (number | string)[] = clients.map(() => 'not asked');
  for (;;) {
    await Promise.all(
      clients.map(async (client, i) => {
        if (counts[i] === expected) return;
        try {
          counts[i] = (await client.collections(collection).retrieve()).num_documents;
        } catch (error) {
          counts[i] = error instanceof Error ? error.message : String(error);
        }
      }),
    );
    if (counts.every((count) => count === expected)) return;
    if (Date.now() >= deadline) {
      throw new Error(`the nodes do not all hold the ${expected} records of ${collection} after ${timeoutMs} ms (${counts.map((c, i) => `node ${i}: ${c}`).join(', ')})`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export async function copySqliteToTypesense(options: CopyOptions): Promise<CopySummary> {
  const { client, alias } = options;
  const batchSize = options.batchSize ?? 200;
  const index = new SqliteIndex({ file: options.sqliteFile, readOnly: true });
  const collection = versionedName(alias, undefined, rebuildStamp((options.now ?? (() => new Date()))()));
  const progress = { documents: 0, aliases: 0 };
  try {
    await createCollection(client, collection);
    const { documents: docs, aliases: aliasRows, last } = await index.snapshot(async (snapshot) => ({
      documents: await importInBatches(client, collection, snapshot.documents(), toRecord, batchSize, (count) => {
        progress.documents += count;
        options.onProgress?.(progress);
      }),
      aliases: await importInBatches(
        client,
        collection,
        snapshot.aliases(),
        (row: { aliasId: string; url: string; documentId: string }) => aliasRecord(row.aliasId, row.url, row.documentId),
        batchSize,
        (count) => {
          progress.aliases += count;
          options.onProgress?.(progress);
        },
      ),
      last: snapshot.lastDocumentChange,
    }));
    const meta = last ? await importRecords(client, collection, [metaRecord(last)]) : 0;

    const documents = docs.sent;
    const aliases = aliasRows.sent;
    const expected = documents + aliases + (last ? 1 : 0);
    const confirmed = docs.confirmed + aliasRows.confirmed + meta;
    if (confirmed !== expected) {
      throw new Error(`Typesense confirmed ${confirmed} of ${expected} records imported into ${collection}: the alias ${alias} was left unchanged`);
    }
    try {
      if (options.nodeClients?.length) await untilNodesHold(options.nodeClients, collection, expected, options.agreeTimeoutMs ?? 120_000);
    } catch (error) {
      throw new Error(`${error instanceof Error ? error.message : String(error)}: the alias ${alias} was left unchanged`);
    }
    const previous = await swapAlias(client, alias, collection, undefined, options.nodeClients);
    // Done means done on every node: a reader sent anywhere now reads the new collection.
    if (options.nodeClients?.length) await untilAliasEverywhere(options.nodeClients, alias, collection, options.agreeTimeoutMs ?? 120_000);
    const dropped = Boolean(options.dropPrevious && previous && previous !== collection);
    if (dropped) await dropCollection(client, previous!);
    return { collection, previous, dropped, documents, aliases };
  } finally {
    await index.close();
  }
}

import type { Client } from 'typesense';
import { SqliteIndex } from '../sqlite/sqlite-index.ts';
import { createCollection, dropCollection, swapAlias } from './collections.ts';
import { importRecords } from './importer.ts';
import { aliasRecord, metaRecord, toRecord, type TypesenseRecord } from './record.ts';
import { rebuildStamp, versionedName } from './schema.ts';

// `fundus index copy --from sqlite --to typesense`: moves an embedded index into a cluster. It
// fills a fresh versioned collection and swaps the alias only when every record is in, so readers
// keep answering from the old collection until then; the old collection is kept for a rollback.

export interface CopyOptions {
  client: Client;
  /** The SQLite index file (opened read-only; a running ingest may keep writing to it). */
  sqliteFile: string;
  alias: string;
  batchSize?: number;
  dropPrevious?: boolean;
  now?: () => Date;
  onProgress?: (progress: { documents: number; aliases: number }) => void;
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
): Promise<number> {
  let batch: TypesenseRecord[] = [];
  let total = 0;
  const send = async () => {
    if (!batch.length) return;
    await importRecords(client, collection, batch, { batchSize });
    total += batch.length;
    onBatch(batch.length);
    batch = [];
  };
  for (const row of rows) {
    batch.push(convert(row as never));
    if (batch.length >= batchSize) await send();
  }
  await send();
  return total;
}

export async function copySqliteToTypesense(options: CopyOptions): Promise<CopySummary> {
  const { client, alias } = options;
  const batchSize = options.batchSize ?? 200;
  const index = new SqliteIndex({ file: options.sqliteFile, readOnly: true });
  const collection = versionedName(alias, undefined, rebuildStamp((options.now ?? (() => new Date()))()));
  const progress = { documents: 0, aliases: 0 };
  try {
    await createCollection(client, collection);
    const { documents, aliases, last } = await index.snapshot(async (snapshot) => ({
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
    if (last) await importRecords(client, collection, [metaRecord(last)]);

    const expected = documents + aliases + (last ? 1 : 0);
    const stored = (await client.collections(collection).retrieve()).num_documents;
    if (stored !== expected) {
      throw new Error(`copy into ${collection} holds ${stored} records, expected ${expected}: the alias ${alias} was left unchanged`);
    }
    const previous = await swapAlias(client, alias, collection);
    const dropped = Boolean(options.dropPrevious && previous && previous !== collection);
    if (dropped) await dropCollection(client, previous!);
    return { collection, previous, dropped, documents, aliases };
  } finally {
    await index.close();
  }
}

import { DatabaseSync } from 'node:sqlite';
import type { Client } from 'typesense';
import type { DocumentType, StoredDocument } from '../../core/document.ts';
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

interface DocumentRow {
  id: string;
  url: string;
  canonical_url: string;
  host: string;
  source_domain: string;
  source_id: string;
  title: string;
  text: string;
  content_type: string;
  document_type: string;
  language: string | null;
  published_at: string | null;
  modified_at: string | null;
  content_date: string | null;
  dates: string;
  fetched_at: string;
  content_hash: string;
  fingerprint: string | null;
  topic: string | null;
  is_news: number;
  content: string;
  duplicate_of: string | null;
  changed_at: string;
}

/** A row of the SQLite adapter's `documents` table (services/index/sqlite/schema.ts, layout 1). */
export function documentOfRow(row: DocumentRow): StoredDocument {
  return {
    id: row.id,
    url: row.url,
    canonicalUrl: row.canonical_url,
    host: row.host,
    sourceDomain: row.source_domain,
    sourceId: row.source_id,
    title: row.title,
    text: row.text,
    contentType: row.content_type,
    documentType: row.document_type as DocumentType,
    language: row.language,
    publishedAt: row.published_at,
    modifiedAt: row.modified_at,
    contentDate: row.content_date,
    dates: JSON.parse(row.dates),
    fetchedAt: row.fetched_at,
    contentHash: row.content_hash,
    fingerprint: row.fingerprint,
    topic: row.topic,
    isNews: row.is_news === 1,
    content: JSON.parse(row.content),
    duplicateOf: row.duplicate_of,
    changedAt: row.changed_at,
  };
}

function openReadOnly(file: string): DatabaseSync {
  const db = new DatabaseSync(file, { readOnly: true });
  const version = db.prepare(`SELECT value FROM meta WHERE key = 'schema_version'`).get() as { value: string } | undefined;
  if (version?.value !== '1') {
    db.close();
    throw new Error(`${file}: SQLite index layout ${version?.value ?? 'unknown'}; this copy reads layout 1`);
  }
  return db;
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
  const db = openReadOnly(options.sqliteFile);
  const collection = versionedName(alias, undefined, rebuildStamp((options.now ?? (() => new Date()))()));
  const progress = { documents: 0, aliases: 0 };
  try {
    await createCollection(client, collection);
    // One read transaction: the copy is a consistent snapshot even while ingestion goes on.
    db.exec('BEGIN');
    const documents = await importInBatches(
      client,
      collection,
      db.prepare('SELECT * FROM documents ORDER BY seq').iterate(),
      (row: DocumentRow) => toRecord(documentOfRow(row)),
      batchSize,
      (count) => {
        progress.documents += count;
        options.onProgress?.(progress);
      },
    );
    const aliases = await importInBatches(
      client,
      collection,
      db.prepare('SELECT alias_id, url, document_id FROM aliases ORDER BY alias_id').iterate(),
      (row: { alias_id: string; url: string; document_id: string }) => aliasRecord(row.alias_id, row.url, row.document_id),
      batchSize,
      (count) => {
        progress.aliases += count;
        options.onProgress?.(progress);
      },
    );
    const last = db.prepare(`SELECT value FROM meta WHERE key = 'last_document_change'`).get() as { value: string } | undefined;
    db.exec('COMMIT');
    if (last) await importRecords(client, collection, [metaRecord(last.value)]);

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
    if (db.isTransaction) db.exec('ROLLBACK');
    db.close();
  }
}

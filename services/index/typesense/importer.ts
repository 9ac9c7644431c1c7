import { Errors, type Client } from 'typesense';
import { anyOf } from './query.ts';
import type { TypesenseRecord } from './record.ts';
import { WRITE_RETRY, withRetry, type RetryPolicy } from './retry.ts';

// Batched writes: JSONL import with action=upsert (idempotent, so a retried batch is harmless),
// deletes by id list. Lines that fail with a server fault are retried alone; a line Typesense
// rejects as invalid stops the batch, since retrying cannot fix it.

export interface ImportOptions {
  /** Documents per import request. */
  batchSize?: number;
  /** Upper bound of one request body; a batch is cut earlier when its JSON grows past it. */
  maxBatchBytes?: number;
  retry?: RetryPolicy;
}

const DEFAULTS = { batchSize: 200, maxBatchBytes: 8 * 1024 * 1024 };

export function chunkRecords(records: readonly TypesenseRecord[], batchSize: number, maxBatchBytes: number): TypesenseRecord[][] {
  const chunks: TypesenseRecord[][] = [];
  let chunk: TypesenseRecord[] = [];
  let bytes = 0;
  for (const record of records) {
    const size = Buffer.byteLength(JSON.stringify(record)) + 1;
    if (chunk.length > 0 && (chunk.length >= batchSize || bytes + size > maxBatchBytes)) {
      chunks.push(chunk);
      chunk = [];
      bytes = 0;
    }
    chunk.push(record);
    bytes += size;
  }
  if (chunk.length) chunks.push(chunk);
  return chunks;
}

async function importChunk(client: Client, collection: string, records: TypesenseRecord[], retry: RetryPolicy): Promise<void> {
  let remaining = records;
  await withRetry(retry, async () => {
    try {
      await client.collections(collection).documents().import(remaining, { action: 'upsert' });
    } catch (error) {
      if (error instanceof Errors.ImportError) {
        // Keep only the lines that failed; the others are in. withRetry decides whether to go on.
        remaining = remaining.filter((_record, i) => error.importResults[i] && !error.importResults[i].success);
      }
      throw error;
    }
  });
}

export async function importRecords(client: Client, collection: string, records: readonly TypesenseRecord[], options: ImportOptions = {}): Promise<number> {
  const batchSize = options.batchSize ?? DEFAULTS.batchSize;
  const maxBatchBytes = options.maxBatchBytes ?? DEFAULTS.maxBatchBytes;
  let written = 0;
  for (const chunk of chunkRecords(records, batchSize, maxBatchBytes)) {
    await importChunk(client, collection, chunk, options.retry ?? WRITE_RETRY);
    written += chunk.length;
  }
  return written;
}

export async function deleteIds(client: Client, collection: string, ids: readonly string[], retry: RetryPolicy = WRITE_RETRY): Promise<void> {
  for (let i = 0; i < ids.length; i += 100) {
    const filter = anyOf('id', ids.slice(i, i + 100));
    await withRetry(retry, () => client.collections(collection).documents().delete({ filter_by: filter }));
  }
}

/** The failures of an import, for an error message an operator can act on. */
export function describeImportError(error: unknown): string | null {
  if (!(error instanceof Errors.ImportError)) return null;
  const failed = error.importResults.filter((result) => !result.success);
  const sample = failed.slice(0, 3).map((result) => `${result.code ?? '?'} ${result.error ?? ''}`.trim());
  return `${failed.length} record(s) rejected, e.g. ${sample.join('; ')}`;
}

import { Errors, type Client } from 'typesense';
import { TypesenseTimeoutError } from './errors.ts';
import { anyOf } from './query.ts';
import type { TypesenseRecord } from './record.ts';
import { WRITE_RETRY, withRetry, type RetryPolicy } from './retry.ts';

// Batched writes: JSONL import with action=upsert (idempotent, so a retried batch is harmless),
// deletes by id list. Lines that fail with a server fault are retried alone; a line Typesense
// rejects as invalid stops the batch, since retrying cannot fix it.
//
// typesense-js sends imports without any client timeout (Documents.import: skipConnectionTimeout),
// so a stuck node would hold a writer forever; imports here go through the client's request path
// with an abort signal instead, and a timed-out batch is retried (it is an upsert).

export interface ImportOptions {
  /** Documents per import request. */
  batchSize?: number;
  /** Upper bound of one request body; a batch is cut earlier when its JSON grows past it. */
  maxBatchBytes?: number;
  retry?: RetryPolicy;
  /** Longest wait for one import request (default 120 s). */
  timeoutMs?: number;
}

const DEFAULTS = { batchSize: 200, maxBatchBytes: 8 * 1024 * 1024, timeoutMs: 120_000 };

interface ImportLine {
  success: boolean;
  code?: number;
  error?: string;
  document?: string;
}

/** One JSONL import with `action=upsert`, cut off after `timeoutMs`; throws ImportError when a line failed. */
export async function importJsonl(client: Client, collection: string, records: readonly unknown[], timeoutMs: number): Promise<number> {
  const body = records.map((record) => JSON.stringify(record)).join('\n');
  const signal = AbortSignal.timeout(timeoutMs);
  let text: string;
  try {
    text = await client.apiCall.performRequest<string>('post', `/collections/${encodeURIComponent(collection)}/documents/import`, {
      queryParameters: { action: 'upsert' },
      bodyParameters: body,
      additionalHeaders: { 'Content-Type': 'text/plain' },
      abortSignal: signal,
      skipConnectionTimeout: true,
    });
  } catch (error) {
    if (signal.aborted) throw new TypesenseTimeoutError(`import into ${collection}`, timeoutMs);
    throw error;
  }
  const results = String(text)
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as ImportLine);
  const failed = results.filter((result) => !result.success);
  if (failed.length || results.length !== records.length) {
    throw new Errors.ImportError(`${results.length - failed.length} documents imported successfully, ${failed.length} documents failed during import.`, results as never, {
      documentsInJSONLFormat: body,
      options: { action: 'upsert' },
      failedItems: failed as never,
      successCount: results.length - failed.length,
    } as never);
  }
  return results.length;
}

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

/** Imports one chunk; returns how many lines Typesense reported as written (every one, or it throws). */
async function importChunk(client: Client, collection: string, records: TypesenseRecord[], retry: RetryPolicy, timeoutMs: number): Promise<number> {
  let remaining = records;
  let written = 0;
  await withRetry(retry, async () => {
    try {
      written += await importJsonl(client, collection, remaining, timeoutMs);
    } catch (error) {
      if (error instanceof Errors.ImportError) {
        // Keep only the lines that failed; the others are in. withRetry decides whether to go on.
        written += error.importResults.filter((result) => result.success).length;
        remaining = remaining.filter((_record, i) => error.importResults[i] && !error.importResults[i].success);
      }
      throw error;
    }
  });
  return written;
}

/** Imports every record; returns the number of lines Typesense confirmed (the copy checks it). */
export async function importRecords(client: Client, collection: string, records: readonly TypesenseRecord[], options: ImportOptions = {}): Promise<number> {
  const batchSize = options.batchSize ?? DEFAULTS.batchSize;
  const maxBatchBytes = options.maxBatchBytes ?? DEFAULTS.maxBatchBytes;
  let written = 0;
  for (const chunk of chunkRecords(records, batchSize, maxBatchBytes)) {
    written += await importChunk(client, collection, chunk, options.retry ?? WRITE_RETRY, options.timeoutMs ?? DEFAULTS.timeoutMs);
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

import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Errors } from 'typesense';
import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../../services/core/errors.ts';
import { createTypesenseClient } from '../../services/index/typesense/client.ts';
import { isRetryable, translateError, TypesenseTimeoutError } from '../../services/index/typesense/errors.ts';
import { importJsonl } from '../../services/index/typesense/importer.ts';
import { openTypesenseIndex } from '../../services/index/typesense/open.ts';
import { WRITE_RETRY, withRetry } from '../../services/index/typesense/retry.ts';
import { TypesenseIndex } from '../../services/index/typesense/typesense-index.ts';
import { CONTRACT_DOCS, makeDoc } from '../helpers/documents.ts';
import { TypesenseStandIn } from '../helpers/typesense-stand-in.ts';
import { TYPESENSE_SCHEMA_VERSION } from '../../services/index/typesense/schema.ts';

// What is retried, for how long, and what an error becomes when it is not.

const httpError = (status: number, message = '') => new Errors.HTTPError(`Request failed with HTTP code ${status} | Server said: ${message}`, undefined, status);

describe('typesense retries', () => {
  it('retries "not now" answers and network failures, nothing else', () => {
    expect(isRetryable(httpError(408))).toBe(true); // src/core_api.cpp: a request that timed out on the server
    expect(isRetryable(httpError(429))).toBe(true); // src/core_api.cpp: rate limited
    expect(isRetryable(new Errors.ServerError('Not Ready or Lagging', undefined, 503))).toBe(true);
    expect(isRetryable(new Errors.ServerError('Could not find a leader.', undefined, 500))).toBe(true);
    expect(isRetryable(new Errors.ObjectUnprocessable('Server said: Rejecting write: running out of resource type: OUT_OF_DISK', undefined, 422))).toBe(true);
    expect(isRetryable(new Errors.ObjectUnprocessable('Server said: Only upto 250 hits can be fetched per page.', undefined, 422))).toBe(false);
    expect(isRetryable(new Errors.RequestMalformed('Bad JSON.', undefined, 400))).toBe(false);
    expect(isRetryable(new Errors.RequestUnauthorized('Forbidden', undefined, 401))).toBe(false);
    expect(isRetryable(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isRetryable(new TypesenseTimeoutError('import', 10))).toBe(true);
  });

  it('maps what is not retried to clear error codes', () => {
    expect(translateError(new Errors.RequestMalformed('Bad JSON.', undefined, 400), { what: 'x' }).code).toBe('INTERNAL');
    expect(translateError(new Errors.RequestUnauthorized('Forbidden', undefined, 401), { what: 'x' })).toMatchObject({ code: 'INDEX_UNAVAILABLE', message: expect.stringMatching(/API key/) });
    expect(translateError(httpError(429), { what: 'x' })).toMatchObject({ code: 'INDEX_UNAVAILABLE', message: expect.stringMatching(/busy/) });
    expect(translateError(new Errors.ObjectNotFound('Not Found', undefined, 404), { what: 'x', notFound: 'DOCUMENT_NOT_FOUND' }).code).toBe('DOCUMENT_NOT_FOUND');
  });

  it('keeps writing through an election longer than 5 s (the write policy retries for 30 s)', async () => {
    let clock = 0;
    const policy = { ...WRITE_RETRY, now: () => clock, sleep: async (ms: number) => void (clock += ms), random: () => 1 };
    let attempts = 0;
    const result = await withRetry(policy, async () => {
      attempts++;
      // A leader is elected 5.5 s after the first attempt.
      if (clock < 5_500) throw new Errors.ServerError('Could not find a leader.', undefined, 500);
      return 'written';
    });
    expect(result).toBe('written');
    expect(clock).toBeGreaterThanOrEqual(5_500);
    expect(attempts).toBeGreaterThan(2);
    // ... and gives up once the budget is spent.
    clock = 0;
    await expect(withRetry(policy, async () => Promise.reject(httpError(429)))).rejects.toBeInstanceOf(Errors.HTTPError);
    expect(clock).toBeGreaterThanOrEqual(WRITE_RETRY.budgetMs!);
    expect(clock).toBeLessThan(WRITE_RETRY.budgetMs! + WRITE_RETRY.maxDelayMs + 1);
  });

  it('retries imports answered 429, 503 or "running out of resource" and writes the batch', async () => {
    const standIn = new TypesenseStandIn();
    const index = await openTypesenseIndex({ nodes: ['http://ts.test:8108'], apiKey: 'k', axiosAdapter: standIn.adapter, retryIntervalSeconds: 0, create: true });
    const client = createTypesenseClient({ nodes: ['http://ts.test:8108'], apiKey: 'k', axiosAdapter: standIn.adapter, numRetries: 0 });
    const writer = new TypesenseIndex(client, { collection: index.collection, retry: { ...WRITE_RETRY, sleep: async () => {} } });
    const imports = (method: string, path: string) => method === 'POST' && path.endsWith('/import');
    standIn.failNext(1, 429, imports, 'Rate limit exceeded or blocked');
    standIn.failNext(1, 422, imports, 'Rejecting write: running out of resource type: OUT_OF_MEMORY');
    standIn.failNext(1, 503, imports);
    await writer.writeBatch(async () => {
      for (const spec of CONTRACT_DOCS) await writer.put(makeDoc(spec));
    });
    expect(standIn.requests.filter((r) => imports(r.method, r.path))).toHaveLength(4);
    expect(standIn.collections.get(`${index.collection}_v${TYPESENSE_SCHEMA_VERSION}`)!.docs.size).toBe(CONTRACT_DOCS.length + 1); // + the meta record
  });

  it('reports a rejected write as INTERNAL at once', async () => {
    const standIn = new TypesenseStandIn();
    await openTypesenseIndex({ nodes: ['http://ts.test:8108'], apiKey: 'k', axiosAdapter: standIn.adapter, create: true });
    const client = createTypesenseClient({ nodes: ['http://ts.test:8108'], apiKey: 'k', axiosAdapter: standIn.adapter, numRetries: 0 });
    const writer = new TypesenseIndex(client, { collection: 'fundus_web', retry: { ...WRITE_RETRY, sleep: async () => {} } });
    standIn.failNext(5, 400, (method, path) => method === 'POST' && path.endsWith('/documents'), 'Bad JSON.');
    const error = await writer.put(makeDoc(CONTRACT_DOCS[0])).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'INTERNAL' });
    expect(standIn.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/documents'))).toHaveLength(1);
  });
});

describe('typesense import timeout', () => {
  let server: Server | null = null;
  afterEach(async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });

  it('gives up on an import that gets no answer (typesense-js sends imports with no timeout)', async () => {
    const sockets: import('node:net').Socket[] = [];
    // A node that accepts the connection and never answers.
    server = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', () => resolve()));
    const port = (server.address() as AddressInfo).port;
    const client = createTypesenseClient({ nodes: [`http://127.0.0.1:${port}`], apiKey: 'k', numRetries: 0 });
    await expect(importJsonl(client, 'c', [{ id: '1' }], 300)).rejects.toBeInstanceOf(TypesenseTimeoutError);
    for (const socket of sockets) socket.destroy();
  });
});

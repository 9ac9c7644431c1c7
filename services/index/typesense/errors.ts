import { Errors } from 'typesense';
import { AppError, type ErrorCode } from '../../core/errors.ts';

// Typesense's typed errors translated at the boundary (STYLE.md "Errors"): the core sees AppErrors
// with the Typesense error kept as `cause`. A request Typesense calls malformed is our own bug, so it
// is reported as INTERNAL, never as the caller's fault. Statuses that mean "not now" are retried
// (retry.ts) and, when the retries run out, reported as INDEX_UNAVAILABLE:
// - 408: a search or write timed out on the server (src/core_api.cpp, req->overloaded);
// - 429: rate limited (src/core_api.cpp, "Rate limit exceeded or blocked");
// - 503: "Not Ready or Lagging" (src/http_server.cpp) — a node starting, electing or catching up;
// - other 5xx: e.g. 500 "Could not find a leader." (src/raft_server.cpp write_to_leader);
// - 422 "Rejecting write: running out of resource type: ..." (src/raft_server.cpp, disk or memory
//   above the configured limit): a 422 like a bad request, told apart by its message.

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ECONNABORTED', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOTFOUND', 'ERR_SOCKET_CONNECTION_TIMEOUT']);
const RETRYABLE_STATUSES = new Set([408, 429]);
const OUT_OF_RESOURCE = /running out of resource/i;

/** A request this process gave up waiting for (imports have their own timeout, importer.ts). */
export class TypesenseTimeoutError extends Error {
  readonly code = 'ETIMEDOUT';
  constructor(what: string, ms: number) {
    super(`${what}: no answer from Typesense within ${ms} ms`);
    this.name = 'TypesenseTimeoutError';
  }
}

function statusOf(error: unknown): number | undefined {
  return error instanceof Errors.TypesenseError ? error.httpStatus : undefined;
}

export function isRetryableStatus(status: number, message = ''): boolean {
  return status >= 500 || RETRYABLE_STATUSES.has(status) || (status === 422 && OUT_OF_RESOURCE.test(message));
}

/** Server faults, "not now" answers and network failures are worth another attempt. */
export function isRetryable(error: unknown): boolean {
  if (error instanceof Errors.ImportError) {
    const failed = error.importResults.filter((result) => !result.success);
    return failed.length > 0 && failed.every((result) => isRetryableStatus(Number(result.code ?? 0), result.error ?? ''));
  }
  if (error instanceof Errors.ServerError) return true;
  const status = statusOf(error);
  if (status !== undefined) return isRetryableStatus(status, error instanceof Error ? error.message : '');
  if (error instanceof Error && 'code' in error && typeof error.code === 'string') return NETWORK_CODES.has(error.code);
  return false;
}

export interface TranslateContext {
  /** What a 404 means where it happened: a missing document, or a missing collection or alias. */
  notFound?: ErrorCode;
  what: string;
}

export function translateError(error: unknown, context: TranslateContext): AppError {
  if (error instanceof AppError) return error;
  const detail = error instanceof Error ? error.message : String(error);
  if (error instanceof Errors.ObjectNotFound) {
    return new AppError(context.notFound ?? 'INDEX_UNAVAILABLE', { message: `${context.what}: not found in Typesense (${detail})`, cause: error });
  }
  if (error instanceof Errors.RequestUnauthorized || statusOf(error) === 403) {
    return new AppError('INDEX_UNAVAILABLE', {
      message: `${context.what}: Typesense refused the API key (TYPESENSE_API_KEY, or TYPESENSE_SEARCH_KEY for readers: missing, wrong, or without this action)`,
      cause: error,
    });
  }
  if (isRetryable(error)) {
    return new AppError('INDEX_UNAVAILABLE', { message: `${context.what}: Typesense is not reachable or busy (${detail})`, cause: error });
  }
  if (error instanceof Errors.RequestMalformed || error instanceof Errors.ObjectUnprocessable || error instanceof Errors.ImportError || error instanceof Errors.ObjectAlreadyExists) {
    return new AppError('INTERNAL', { message: `${context.what}: Typesense rejected the request (${detail})`, cause: error });
  }
  return new AppError('INTERNAL', { message: `${context.what}: ${detail}`, cause: error });
}

/** A per-search error inside a 200 multi_search answer, as the client would have thrown it alone. */
export function searchResultError(result: { code?: number; error?: string }): Error {
  const code = result.code ?? 500;
  const message = `Request failed with HTTP code ${code} | Server said: ${result.error ?? ''}`;
  if (code === 404) return new Errors.ObjectNotFound(message, undefined, code);
  if (code === 400) return new Errors.RequestMalformed(message, undefined, code);
  if (code === 401) return new Errors.RequestUnauthorized(message, undefined, code);
  if (code === 409) return new Errors.ObjectAlreadyExists(message, undefined, code);
  if (code === 422) return new Errors.ObjectUnprocessable(message, undefined, code);
  if (code >= 500) return new Errors.ServerError(message, undefined, code);
  return new Errors.HTTPError(message, undefined, code);
}

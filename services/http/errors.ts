import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, type ValidationIssue } from '../core/errors.ts';
import type { ErrorResponse } from '../core/schemas/index.ts';
import { boundedEcho } from './bounded-echo.ts';
import { jsonRpcErrorOf } from './json-rpc-errors.ts';
import { trackRouteMethods } from './method-not-allowed.ts';

// One error handler per HTTP app (STYLE.md "Errors"): 422 as HTTPValidationError, every other
// client error in the one small ErrorResponse shape, the stack logged for 5xx only, never the body.
// Routes that speak JSON-RPC (/mcp, marked with `config.jsonRpc`) get the same statuses and headers
// with a JSON-RPC error body, which MCP clients can read.

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Refusals and errors on this route are JSON-RPC error objects (the MCP endpoint). */
    jsonRpc?: boolean;
  }
}

function boundedIssue(issue: ValidationIssue): ValidationIssue {
  const bounded: ValidationIssue = { ...issue };
  if ('input' in issue) bounded.input = boundedEcho(issue.input);
  if (issue.ctx) bounded.ctx = boundedEcho(issue.ctx) as Record<string, unknown>;
  return bounded;
}

export function sendAppError(reply: FastifyReply, error: AppError): FastifyReply {
  reply.headers(error.headers);
  if (reply.request.routeOptions.config?.jsonRpc) return reply.code(error.status).send(jsonRpcErrorOf(error));
  if (error.code === 'VALIDATION_FAILED') return reply.code(422).send({ detail: error.issues.slice(0, 20).map(boundedIssue) });
  const body: ErrorResponse = { detail: error.message, code: error.code };
  if (error.headers['retry-after']) body.retry_after = Number(error.headers['retry-after']);
  return reply.code(error.status).send(body);
}

export function registerErrorHandling(app: FastifyInstance): void {
  const methodsOf = trackRouteMethods(app);
  app.setErrorHandler((error: FastifyError | AppError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof AppError) {
      if (error.status >= 500) request.log.error({ err: error.cause ?? error, code: error.code, route: request.routeOptions.url }, 'request failed');
      return sendAppError(reply, error);
    }
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return sendAppError(reply, new AppError('BODY_TOO_LARGE'));
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      if (request.routeOptions.config?.jsonRpc) return reply.code(status).send(jsonRpcErrorOf({ status, code: error.code ?? 'BAD_REQUEST', message: error.message, headers: {} }));
      return reply.code(status).send({ detail: error.message, code: error.code ?? 'BAD_REQUEST' } satisfies ErrorResponse);
    }
    request.log.error({ err: error, route: request.routeOptions.url }, 'request failed');
    return sendAppError(reply, new AppError('INTERNAL'));
  });
  app.setNotFoundHandler((request, reply) => {
    const allowed = methodsOf(request.url.split('?')[0]);
    if (allowed.length && !allowed.includes(request.method)) {
      return sendAppError(reply, new AppError('METHOD_NOT_ALLOWED', { headers: { allow: allowed.join(', ') } }));
    }
    return sendAppError(reply, new AppError('ROUTE_NOT_FOUND'));
  });
}

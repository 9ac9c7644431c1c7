import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../core/errors.ts';
import type { ErrorResponse } from '../core/schemas/index.ts';
import { trackRouteMethods } from './method-not-allowed.ts';

// One error handler per HTTP app (STYLE.md "Errors"): 422 as HTTPValidationError, every other
// client error in the one small ErrorResponse shape, the stack logged for 5xx only, never the body.

export function sendAppError(reply: FastifyReply, error: AppError): FastifyReply {
  reply.headers(error.headers);
  if (error.code === 'VALIDATION_FAILED') return reply.code(422).send({ detail: error.issues });
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

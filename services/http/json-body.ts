import type { FastifyInstance, FastifyRequest } from 'fastify';
import { validationError } from '../core/errors.ts';

// Bodies are read raw and parsed by the handler, so that a missing, non-JSON or wrongly typed body
// becomes a 422 HTTPValidationError (as FastAPI answers) instead of fastify's 400/415, and so that
// parsing happens after the access checks.

export const BODY_LIMIT_BYTES = 64 * 1024;

export function acceptRawBodies(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT_BYTES }, (_request, body, done) => done(null, body));
}

function isJsonContentType(value: string | undefined): boolean {
  const type = (value ?? '').split(';')[0].trim().toLowerCase();
  return type === 'application/json' || /^application\/[\w.+-]+\+json$/.test(type);
}

function jsonErrorPosition(message: string): number {
  const match = /position (\d+)/.exec(message);
  return match ? Number(match[1]) : 0;
}

/** The parsed JSON object of a request body, or a 422 naming what is wrong with it. */
export function readJsonObject(request: FastifyRequest): Record<string, unknown> {
  const raw = request.body as Buffer | undefined;
  const text = raw && raw.length ? raw.toString('utf8') : '';
  if (!text.trim()) throw validationError([{ type: 'missing', loc: ['body'], msg: 'Field required', input: null }]);
  if (!isJsonContentType(request.headers['content-type'])) {
    throw validationError([
      {
        type: 'model_attributes_type',
        loc: ['body'],
        msg: 'Input should be a valid dictionary or object to extract fields from; send JSON with Content-Type: application/json',
        input: text.length > 200 ? `${text.slice(0, 200)}…` : text,
      },
    ]);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const message = error instanceof Error ? error.message : 'invalid JSON';
    throw validationError([{ type: 'json_invalid', loc: ['body', jsonErrorPosition(message)], msg: 'JSON decode error', input: {}, ctx: { error: message } }]);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw validationError([
      { type: 'model_attributes_type', loc: ['body'], msg: 'Input should be a valid dictionary or object to extract fields from', input: value },
    ]);
  }
  return value as Record<string, unknown>;
}

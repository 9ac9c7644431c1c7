import { isUtf8 } from 'node:buffer';
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

/**
 * The body as text, or a 422 `json_invalid` when it is not valid UTF-8 (RFC 8259 section 8.1):
 * decoding with replacement characters would quietly search for something the client never sent.
 */
export function decodeUtf8Body(raw: Buffer | undefined): string {
  if (!raw || !raw.length) return '';
  const text = raw.toString('utf8');
  if (isUtf8(raw)) return text;
  const position = Math.max(0, text.indexOf('\uFFFD'));
  throw validationError([{ type: 'json_invalid', loc: ['body', position], msg: 'JSON decode error', input: {}, ctx: { error: 'Invalid UTF-8 in the request body' } }]);
}

/** The parsed JSON object of a request body, or a 422 naming what is wrong with it. */
export function readJsonObject(request: FastifyRequest): Record<string, unknown> {
  const text = decodeUtf8Body(request.body as Buffer | undefined);
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

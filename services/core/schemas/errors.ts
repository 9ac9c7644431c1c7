import * as z from 'zod';

export const ValidationError = z
  .object({
    loc: z.array(z.union([z.string(), z.int()])),
    msg: z.string(),
    type: z.string(),
    input: z.unknown().optional(),
    ctx: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: 'ValidationError' });

export const HTTPValidationError = z
  .object({ detail: z.array(ValidationError).optional() })
  .meta({ id: 'HTTPValidationError', description: 'Body of 422: what was invalid and where.' });

/** The one small error shape of 401, 403, 404, 413, 429 and 5xx. */
export const ErrorResponse = z
  .object({
    detail: z.string().describe('What went wrong, for a person.'),
    code: z.string().describe('Stable machine-readable code, e.g. KEY_INVALID, ORIGIN_FORBIDDEN, DOCUMENT_NOT_FOUND, RATE_LIMITED.'),
    retry_after: z.int().min(1).optional().describe('With 429: seconds until the next attempt (same as the Retry-After header).'),
  })
  .meta({ id: 'ErrorResponse' });
export type ErrorResponse = z.infer<typeof ErrorResponse>;

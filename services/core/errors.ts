// One table of stable error codes (STYLE.md "Errors"): every surface maps an AppError to its status.

export const ERROR_CODES = {
  VALIDATION_FAILED: { status: 422, message: 'Invalid parameters' },
  DOCUMENT_NOT_FOUND: { status: 404, message: 'Document not found' },
  ROUTE_NOT_FOUND: { status: 404, message: 'Not found' },
  METHOD_NOT_ALLOWED: { status: 405, message: 'Method not allowed' },
  KEY_INVALID: { status: 401, message: 'The project read key is invalid or revoked' },
  ORIGIN_FORBIDDEN: { status: 403, message: 'This browser origin is not allowed' },
  HOST_FORBIDDEN: { status: 403, message: 'This host name is not served here' },
  RATE_LIMITED: { status: 429, message: 'Request limit reached; retry after the number of seconds in Retry-After' },
  BODY_TOO_LARGE: { status: 413, message: 'Request body too large' },
  INDEX_UNAVAILABLE: { status: 503, message: 'The index is not available' },
  ACCESS_UNAVAILABLE: { status: 503, message: 'Project keys cannot be checked right now; retry shortly' },
  INTERNAL: { status: 500, message: 'Internal error' },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/** One entry of an HTTPValidationError `detail` list (FastAPI/pydantic shape, spec section 2). */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly issues: ValidationIssue[];
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, options: { message?: string; issues?: ValidationIssue[]; headers?: Record<string, string>; cause?: unknown } = {}) {
    super(options.message ?? ERROR_CODES[code].message, { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.status = ERROR_CODES[code].status;
    this.issues = options.issues ?? [];
    this.headers = options.headers ?? {};
  }
}

export function validationError(issues: ValidationIssue[]): AppError {
  return new AppError('VALIDATION_FAILED', { issues });
}

// One table of stable extraction error codes (STYLE.md "Errors"). The ingest run reports them per file
// and skips the file; they are never HTTP errors.

export const EXTRACTION_ERROR_CODES = [
  'EMPTY_FILE',
  'UNSUPPORTED_TYPE',
  'CORRUPT_FILE',
  'ENCRYPTED',
  'TOO_LARGE',
  'DECOMPRESSION_LIMIT',
  'TIMEOUT',
  'OUT_OF_MEMORY',
  'NO_TEXT',
  'WORKER_FAILED',
  'POOL_CLOSED',
] as const;
export type ExtractionErrorCode = (typeof EXTRACTION_ERROR_CODES)[number];

export const EXTRACTION_ERROR_MESSAGES: Record<ExtractionErrorCode, string> = {
  EMPTY_FILE: 'the file is empty',
  UNSUPPORTED_TYPE: 'the bytes are not HTML, PDF, DOCX, DOC or ODT',
  CORRUPT_FILE: 'the file is damaged or truncated',
  ENCRYPTED: 'the file is encrypted or its text may not be extracted',
  TOO_LARGE: 'the file is larger than the size limit',
  DECOMPRESSION_LIMIT: 'the archive inflates beyond the decompression limit',
  TIMEOUT: 'extraction took longer than the time limit',
  OUT_OF_MEMORY: 'extraction exceeded the memory limit',
  NO_TEXT: 'the document contains no text',
  WORKER_FAILED: 'the extraction worker stopped unexpectedly',
  POOL_CLOSED: 'the extraction pool is closed',
};

export class ExtractionError extends Error {
  readonly code: ExtractionErrorCode;

  constructor(code: ExtractionErrorCode, detail?: string, options?: { cause?: unknown }) {
    super(detail ? `${EXTRACTION_ERROR_MESSAGES[code]}: ${detail}` : EXTRACTION_ERROR_MESSAGES[code], options);
    this.name = 'ExtractionError';
    this.code = code;
  }
}

export function isExtractionErrorCode(value: unknown): value is ExtractionErrorCode {
  return typeof value === 'string' && (EXTRACTION_ERROR_CODES as readonly string[]).includes(value);
}

/** Wraps a foreign failure from a parser library; an ExtractionError passes through unchanged. */
export function toExtractionError(error: unknown, fallback: ExtractionErrorCode = 'CORRUPT_FILE'): ExtractionError {
  if (error instanceof ExtractionError) return error;
  if (error instanceof RangeError && /allocation|heap|memory/i.test(error.message)) {
    return new ExtractionError('OUT_OF_MEMORY', error.message, { cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ExtractionError(fallback, message.slice(0, 300), { cause: error });
}

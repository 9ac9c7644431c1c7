// Extraction of HTML, PDF, DOCX, DOC and ODT files into the document model (issue 3, "Extraction").
export type { ExtractInput, ExtractOptions } from './extract-document.ts';
export { DEFAULT_MAX_BYTES, MAX_TEXT_CHARS, extractDocument } from './extract-document.ts';
export type { ExtractionErrorCode } from './errors.ts';
export { EXTRACTION_ERROR_CODES, ExtractionError, isExtractionErrorCode } from './errors.ts';
export { sniffDocumentType } from './sniff.ts';
export type { ExtractionPool, ExtractionPoolOptions, ExtractJobOptions } from './pool.ts';
export { createExtractionPool } from './pool.ts';
export type { ZipLimits } from './zip-guard.ts';
export { DEFAULT_ZIP_LIMITS } from './zip-guard.ts';
export { decideLanguage, detectLanguage } from './language.ts';

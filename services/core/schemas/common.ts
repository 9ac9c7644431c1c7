import * as z from 'zod';
import { DOCUMENT_TYPES } from '../document.ts';

/**
 * An integer field that also accepts an integer written as a JSON string ("10"),
 * as pydantic's lax mode does for the FastAPI clients this API is modelled on.
 */
export function laxInt(schema: z.ZodInt) {
  return z.preprocess((value) => (typeof value === 'string' && /^\s*[+-]?\d+\s*$/.test(value) ? Number(value) : value), schema);
}

export const DocumentTypeSchema = z.enum(DOCUMENT_TYPES).describe('Document type: html, pdf, docx, doc or odt.');

export const DOCUMENT_ID_PATTERN = '^urn:uuid:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

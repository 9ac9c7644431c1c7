import * as z from 'zod';
import { parseOrThrow } from '../../core/validation.ts';

// The SDK validates tool arguments against `inputSchema` itself and words failures in zod's own
// terms. We want one validator for REST and MCP (parseOrThrow with the 422 translator), so the SDK
// gets a pass-through object that *lists* exactly as the strict schema's JSON Schema (zod merges
// `.meta()` into its JSON Schema output), and each tool parses its arguments with the strict schema.

/** A pass-through input schema for `registerTool` that lists as `schema` does. */
export function listedAs(schema: z.ZodObject): z.ZodObject {
  const { $schema: _dialect, ...jsonSchema } = z.toJSONSchema(schema, { io: 'input', target: 'draft-7' });
  return z.looseObject({}).meta(jsonSchema);
}

/** The tool's arguments parsed by `schema`, or an AppError VALIDATION_FAILED naming each bad field. */
export function parseArguments<S extends z.ZodObject>(schema: S, args: unknown): z.output<S> {
  return parseOrThrow(schema, args ?? {}, []);
}

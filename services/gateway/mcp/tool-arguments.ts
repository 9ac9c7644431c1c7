import * as z from 'zod';
import { parseOrThrow } from '../../core/validation.ts';
import { portableJsonSchema, withInputDefaults } from '../../http/json-schema.ts';

// The SDK validates tool arguments against `inputSchema` itself and words failures in zod's own
// terms. We want one validator for REST and MCP (parseOrThrow with the 422 translator), so the SDK
// gets a pass-through object that *lists* exactly as the strict schema's JSON Schema (zod merges
// `.meta()` into its JSON Schema output), and each tool parses its arguments with the strict schema.
//
// The listings are made portable (services/http/json-schema.ts: nullable as anyOf with null, no
// bare `{}`, no ±MAX_SAFE_INTEGER bounds), as the MCP inspector's `--strict` check asks. Output
// schemas are listed the same way: a zod object with nested named schemas would come out with
// zod's own `definitions`, which `.meta()` cannot replace.

function listing(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _dialect, ...jsonSchema } = z.toJSONSchema(schema, { io, target: 'draft-7' });
  return portableJsonSchema(io === 'input' ? withInputDefaults(schema, jsonSchema) : jsonSchema);
}

/** A pass-through input schema for `registerTool` that lists as `schema` does. */
export function listedAs(schema: z.ZodObject): z.ZodObject {
  // Arguments the schema does not name are ignored (zod strips them), never refused: said explicitly.
  return z.looseObject({}).meta({ additionalProperties: true, ...listing(schema, 'input') });
}

/** An output schema for `registerTool` that lists as `schema` does (test/api/mcp-schema.test.ts checks the results against it). */
export function listedOutput(schema: z.ZodObject): z.ZodObject {
  return z.looseObject({}).meta(listing(schema, 'output'));
}

/** The tool's arguments parsed by `schema`, or an AppError VALIDATION_FAILED naming each bad field. */
export function parseArguments<S extends z.ZodObject>(schema: S, args: unknown): z.output<S> {
  return parseOrThrow(schema, args ?? {}, []);
}

import * as z from 'zod';

// zod's JSON Schema output, made portable for the documents other tools read (OpenAPI, MCP tool
// schemas). Validation is untouched: this rewrites only the published description.
//
// - `z.int()` is bounded by ±Number.MAX_SAFE_INTEGER, which zod writes out as minimum/maximum; those
//   are JavaScript's limits, not the API's, so they are dropped (an honest bound is written as .min()).
// - A free-form object comes out as `propertyNames: {type: string}` + `additionalProperties: {}`;
//   JSON object keys are always strings, and `{}` is written `true`, which every validator reads alike.
// - A nullable type comes out as `type: ["string", "null"]`, which several MCP clients and
//   code generators do not understand; `anyOf` with a null branch is read by all of them.

const SAFE = Number.MAX_SAFE_INTEGER;

type Json = Record<string, unknown>;

function isEmptyObject(value: unknown): boolean {
  return !!value && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0;
}

/** Keywords that describe the value as a whole and stay outside an `anyOf` split. */
const ANNOTATIONS = new Set(['description', 'title', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly']);

function splitNullable(schema: Json): Json {
  const types = schema.type as string[];
  const others = types.filter((t) => t !== 'null');
  const outer: Json = {};
  const inner: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'type') continue;
    (ANNOTATIONS.has(key) ? outer : inner)[key] = value;
  }
  const branch = { type: others.length === 1 ? others[0] : others, ...inner };
  return { ...outer, anyOf: [branch, { type: 'null' }] };
}

/** Keywords whose value maps names to schemas (a property named "default" is still a schema). */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
const DATA_KEYWORDS = new Set(['examples', 'example', 'default', 'const', 'enum']);

export function portableJsonSchema<T>(value: T): T {
  if (Array.isArray(value)) return value.map(portableJsonSchema) as T;
  if (!value || typeof value !== 'object') return value;
  let result: Json = {};
  for (const [key, child] of Object.entries(value as Json)) {
    if (key === 'minimum' && child === -SAFE) continue;
    if (key === 'maximum' && child === SAFE) continue;
    if (key === 'propertyNames' && isEmptyObject(Object.fromEntries(Object.entries(child as Json).filter(([k, v]) => !(k === 'type' && v === 'string'))))) continue;
    if (key === 'additionalProperties' && isEmptyObject(child)) {
      result[key] = true;
      continue;
    }
    if (SCHEMA_MAPS.has(key) && child && typeof child === 'object') {
      result[key] = Object.fromEntries(Object.entries(child as Json).map(([name, schema]) => [name, portableJsonSchema(schema)]));
      continue;
    }
    // Example values are data, not schemas: copied as they are.
    result[key] = DATA_KEYWORDS.has(key) ? child : portableJsonSchema(child);
  }
  if (Array.isArray(result.type) && result.type.includes('null') && result.type.length > 1) result = splitNullable(result);
  return result as T;
}

/**
 * zod leaves `default` out of the input JSON Schema of a field that transforms its input (the lax
 * integers, which also take "10"); the default is a valid input all the same, so it is put back for
 * the top-level fields of a request object, where clients look for it.
 */
export function withInputDefaults(schema: z.ZodType, json: Json): Json {
  // A schema with an id comes out as a $ref to its own entry in $defs.
  const defs = json.$defs as Record<string, Json> | undefined;
  const ref = typeof json.$ref === 'string' && json.$ref.startsWith('#/$defs/') ? json.$ref.slice('#/$defs/'.length) : undefined;
  const target = ref && defs?.[ref] ? defs[ref] : json;
  const properties = target.properties as Record<string, Json> | undefined;
  if (!(schema instanceof z.ZodObject) || !properties) return json;
  for (const [name, field] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
    if (field instanceof z.ZodDefault && properties[name] && properties[name].default === undefined) {
      properties[name] = { ...properties[name], default: field.def.defaultValue };
    }
  }
  return json;
}

import * as z from 'zod';
import { ERROR_CODES, type ErrorCode } from '../core/errors.ts';
import { ErrorResponse, HTTPValidationError } from '../core/schemas/index.ts';
import { portableJsonSchema, withInputDefaults } from './json-schema.ts';

// The OpenAPI 3.1 document is generated from the same zod schemas that validate requests
// (DESIGN.md section 2): a limit is written once, and the description can never drift from it.

export interface RouteSpec {
  method: 'GET' | 'POST';
  /** fastify path, e.g. /v1/documents/:document_id */
  path: string;
  operationId: string;
  summary: string;
  description: string;
  tag: string;
  body?: z.ZodType;
  params?: z.ZodObject;
  response: z.ZodType;
  responseDescription: string;
  /** Error statuses this route can answer besides 200. */
  errors: number[];
  /** Accepts the optional ProjectReadKey bearer header; else public (`security: []`). */
  keyed: boolean;
  /** Named request bodies shown in /docs and checked against the schema by the linters. */
  requestExamples?: Record<string, { summary: string; value: unknown }>;
  /** A 200 body as the server answers it. */
  responseExample: unknown;
  /** One example per path parameter. */
  parameterExamples?: Record<string, string>;
  /** The 422 body of a typical mistake, as the server answers it (default: a limit above 50). */
  invalidExample?: unknown;
}

export interface OpenApiInfo {
  title: string;
  description: string;
  version: string;
  servers: { url: string; description: string }[];
  /** Where a person learns more (the docs page or the search page). */
  contactUrl: string;
  tags: { name: string; description: string }[];
  bearer?: { name: string; description: string };
}

/** The project's licence (package.json), as OpenAPI 3.1 writes an SPDX identifier. */
const LICENSE = { name: 'MIT', identifier: 'MIT' };

const ERROR_DESCRIPTIONS: Record<number, string> = {
  401: 'A supplied key is invalid or revoked (never treated as anonymous).',
  403: 'Permission or browser origin not allowed.',
  404: 'Not found.',
  413: 'Request body too large.',
  422: 'Invalid parameters.',
  429: 'Request limit reached; wait the number of seconds in Retry-After.',
};

const LIMIT_TOO_LARGE = {
  detail: [{ type: 'less_than_equal', loc: ['body', 'limit'], msg: 'Input should be less than or equal to 50', input: 500, ctx: { le: 50 } }],
};

/** The body each error status answers with, from the one table of error codes. */
function errorExample(status: number, route: RouteSpec): unknown {
  if (status === 422) return route.invalidExample ?? LIMIT_TOO_LARGE;
  const code = (Object.keys(ERROR_CODES) as ErrorCode[]).find((c) => ERROR_CODES[c].status === status && c !== 'ROUTE_NOT_FOUND' && c !== 'INTERNAL');
  if (!code) return { detail: 'Error', code: 'ERROR' };
  return { detail: ERROR_CODES[code].message, code, ...(status === 429 ? { retry_after: 1 } : {}) };
}

const COMPONENT_PREFIX = '#/components/schemas/';

function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const json = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
  }) as Record<string, unknown>;
  delete json.$schema;
  return portableJsonSchema(io === 'input' ? withInputDefaults(schema, json) : json);
}

/** Converts one schema, moving named sub-schemas (`.meta({ id })`) into components. */
function componentRef(schema: z.ZodType, io: 'input' | 'output', components: Record<string, unknown>): Record<string, unknown> {
  const json = jsonSchemaOf(schema, io);
  const defs = (json.$defs ?? {}) as Record<string, Record<string, unknown>>;
  delete json.$defs;
  for (const [id, def] of Object.entries(defs)) components[id] ??= rewriteRefs(def);
  const rewritten = rewriteRefs(json);
  const id = z.globalRegistry.get(schema)?.id;
  if (typeof rewritten.$ref === 'string' || !id) return rewritten;
  components[id] = rewritten;
  return { $ref: `${COMPONENT_PREFIX}${id}` };
}

function rewriteRefs<T>(value: T): T {
  if (Array.isArray(value)) return value.map(rewriteRefs) as T;
  if (value && typeof value === 'object') {
    const result: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string' && child.startsWith('#/$defs/')) result[key] = child.replace('#/$defs/', COMPONENT_PREFIX);
      else if (key !== '$id') result[key] = rewriteRefs(child);
    }
    return result as T;
  }
  return value;
}

export function buildOpenApiDocument(info: OpenApiInfo, routes: RouteSpec[]): Record<string, unknown> {
  const components: Record<string, unknown> = {};
  const errorRef = componentRef(ErrorResponse, 'output', components);
  const validationRef = componentRef(HTTPValidationError, 'output', components);
  const paths: Record<string, Record<string, unknown>> = {};

  for (const route of routes) {
    const openApiPath = route.path.replace(/:([A-Za-z_]+)/g, '{$1}');
    const responses: Record<string, unknown> = {
      200: {
        description: route.responseDescription,
        content: { 'application/json': { schema: componentRef(route.response, 'output', components), example: route.responseExample } },
      },
    };
    for (const status of route.errors) {
      const headers =
        status === 429
          ? { 'Retry-After': { description: 'Seconds until the next attempt.', schema: { type: 'integer', minimum: 1 } } }
          : undefined;
      responses[status] = {
        description: ERROR_DESCRIPTIONS[status] ?? 'Error.',
        ...(headers ? { headers } : {}),
        content: { 'application/json': { schema: status === 422 ? validationRef : errorRef, example: errorExample(status, route) } },
      };
    }
    const operation: Record<string, unknown> = {
      operationId: route.operationId,
      summary: route.summary,
      description: route.description,
      tags: [route.tag],
      responses,
    };
    // Keyed: anonymous ({}) or with the bearer key; public: no security at all, said explicitly.
    operation.security = route.keyed && info.bearer ? [{}, { [info.bearer.name]: [] }] : [];
    if (route.params) {
      const shape = route.params.shape as Record<string, z.ZodType>;
      operation.parameters = Object.entries(shape).map(([name, schema]) => ({
        name,
        in: 'path',
        required: true,
        description: schema.description,
        schema: jsonSchemaOf(schema, 'input'),
        ...(route.parameterExamples?.[name] ? { example: route.parameterExamples[name] } : {}),
      }));
    }
    if (route.body) {
      operation.requestBody = {
        required: true,
        content: { 'application/json': { schema: componentRef(route.body, 'input', components), ...(route.requestExamples ? { examples: route.requestExamples } : {}) } },
      };
    }
    paths[openApiPath] = { ...paths[openApiPath], [route.method.toLowerCase()]: operation };
  }

  const document: Record<string, unknown> = {
    openapi: '3.1.0',
    info: {
      title: info.title,
      description: info.description,
      version: info.version,
      contact: { name: 'Fundus', url: info.contactUrl },
      license: LICENSE,
    },
    servers: info.servers,
    tags: info.tags,
    paths,
    components: { schemas: components },
  };
  if (info.bearer) {
    (document.components as Record<string, unknown>).securitySchemes = {
      [info.bearer.name]: { type: 'http', scheme: 'bearer', description: info.bearer.description },
    };
  }
  return document;
}

import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv from 'ajv';
import axios from 'axios';
import { parse } from 'yaml';
import type { ConfigurationOptions } from 'typesense';

// Checks every request the Typesense adapter sends, and every answer it gets, against Typesense's
// official API description (../shared/typesense/openapi.yml beside the repository, v30.0; it is
// reference data and is not copied into the project). Query parameters and search parameters
// must be named in the description and have its types and enums; JSON bodies and answers must
// validate against its schemas. It wraps the real HTTP transport of the client, so the same checks
// run against the stand-in and against a real server. Without the file (a clone with nothing beside
// it) the checks are skipped, and the suites that use them say so.

export const TYPESENSE_OPENAPI_FILE = resolve(dirname(fileURLToPath(import.meta.url)), '../../../shared/typesense/openapi.yml');

type Schema = Record<string, any>;

interface Operation {
  template: string;
  pattern: RegExp;
  params: number;
  method: string;
  operation: Schema;
}

export interface TypesenseApiChecker {
  violations: string[];
  /** A transport for the typesense client (TypesenseConnection.axiosAdapter) that checks every exchange. */
  adapter: NonNullable<ConfigurationOptions['axiosAdapter']>;
  /** Checks one exchange; returns its violations. */
  check(method: string, url: string, params: Record<string, unknown>, body: unknown, status: number, response: unknown): string[];
}

/** Null when the description is not beside the repository (the caller says so, loudly). */
export function loadTypesenseApiChecker(file = TYPESENSE_OPENAPI_FILE): TypesenseApiChecker | null {
  if (!existsSync(file)) return null;
  const document = parse(readFileSync(file, 'utf8')) as Schema;
  // The description says a hit's document maps every field to an object (SearchResultHit.document:
  // additionalProperties: {type: object}); documents hold the values they were indexed with
  // (strings, numbers, booleans, arrays: src/collection.cpp), as every client reads them.
  const hitDocument = document.components?.schemas?.SearchResultHit?.properties?.document;
  if (hitDocument) hitDocument.additionalProperties = true;
  const ajv = new Ajv.default({ strict: false, allErrors: true, validateFormats: false, coerceTypes: false });
  const coercing = new Ajv.default({ strict: false, allErrors: true, validateFormats: false, coerceTypes: true });
  for (const instance of [ajv, coercing]) instance.addSchema({ $id: 'typesense', components: document.components }, 'typesense');
  const rewrite = (schema: Schema) => JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"typesense#/components/')) as Schema;
  const deref = (schema: Schema | undefined): Schema | undefined => {
    if (!schema?.$ref) return schema;
    const path = String(schema.$ref).replace(/^#\//, '').split('/');
    return deref(path.reduce((node: Schema, key) => node?.[key], document));
  };
  /** Property names of an object schema, following $ref and allOf. */
  const propertiesOf = (schema: Schema | undefined): Map<string, Schema> => {
    const resolved = deref(schema);
    const found = new Map<string, Schema>();
    if (!resolved) return found;
    for (const [name, property] of Object.entries((resolved.properties ?? {}) as Record<string, Schema>)) found.set(name, property);
    for (const part of (resolved.allOf ?? []) as Schema[]) for (const [name, property] of propertiesOf(part)) found.set(name, property);
    return found;
  };
  const compiled = new Map<string, (value: unknown) => string[]>();
  const validator = (key: string, schema: Schema, coerce = false) => {
    let validate = compiled.get(key);
    if (!validate) {
      const check = (coerce ? coercing : ajv).compile(rewrite(schema));
      validate = (value: unknown) => (check(value) ? [] : (check.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}${e.params && 'allowedValues' in e.params ? ` ${JSON.stringify(e.params.allowedValues)}` : ''}`));
      compiled.set(key, validate);
    }
    return validate;
  };

  const operations: Operation[] = [];
  for (const [template, item] of Object.entries(document.paths as Record<string, Schema>)) {
    for (const method of ['get', 'post', 'put', 'patch', 'delete']) {
      if (!item[method]) continue;
      const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
      operations.push({ template, pattern, params: (template.match(/\{/g) ?? []).length, method, operation: item[method] });
    }
  }
  // Literal paths first: /documents/import before /documents/{documentId}.
  operations.sort((a, b) => a.params - b.params);

  const check = (method: string, url: string, params: Record<string, unknown>, body: unknown, status: number, response: unknown): string[] => {
    const { pathname } = new URL(url);
    const op = operations.find((candidate) => candidate.method === method.toLowerCase() && candidate.pattern.test(pathname));
    const where = `${method.toUpperCase()} ${pathname}`;
    if (!op) return [`${where}: no such operation in the API description`];
    const problems: string[] = [];
    const say = (issues: string[], what: string) => problems.push(...issues.map((issue) => `${where} ${what}: ${issue}`));

    // Query parameters: named ones, or the properties of an object parameter (form style, exploded).
    const known = new Map<string, Schema>();
    for (const parameter of (op.operation.parameters ?? []) as Schema[]) {
      const resolved = deref(parameter)!;
      if (resolved.in !== 'query') continue;
      const schema = deref(resolved.schema);
      if (schema?.type === 'object' || schema?.properties || schema?.allOf) for (const [name, property] of propertiesOf(schema)) known.set(name, property);
      else known.set(resolved.name, resolved.schema ?? {});
    }
    for (const [name, value] of Object.entries(params)) {
      if (value === undefined) continue;
      const schema = known.get(name);
      if (!schema) problems.push(`${where}: query parameter "${name}" is not in the API description`);
      else say(validator(`${op.template} ${op.method} q ${name}`, { type: 'object', properties: { [name]: schema } }, true)({ [name]: value }), `query ${name}`);
    }

    // JSON request bodies (imports are JSONL text: their lines are documents of the collection's schema).
    const requestSchema = op.operation.requestBody?.content?.['application/json']?.schema as Schema | undefined;
    if (requestSchema && typeof body === 'string' && body) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        problems.push(`${where}: body is not JSON`);
      }
      if (parsed !== undefined) {
        say(validator(`${op.template} ${op.method} body`, requestSchema)(parsed), 'body');
        if (pathname === '/multi_search') {
          const allowed = propertiesOf({ $ref: '#/components/schemas/MultiSearchCollectionParameters' });
          for (const [i, search] of (((parsed as Schema).searches ?? []) as Schema[]).entries()) {
            for (const name of Object.keys(search)) if (!allowed.has(name)) problems.push(`${where}: searches[${i}].${name} is not in MultiSearchCollectionParameters`);
          }
        }
      }
    }

    // Answers: a documented status, and a JSON body that fits its schema. 401 and 503 come from
    // the HTTP layer before any route (src/http_server.cpp), 500 "Could not find a leader." from
    // Raft (src/raft_server.cpp): not documented per operation, they are checked as ApiResponse.
    const responses = (op.operation.responses ?? {}) as Record<string, Schema>;
    const documented = responses[String(status)] ?? responses.default;
    const generic = status === 401 || status >= 500;
    if (!documented && !generic) problems.push(`${where}: status ${status} is not documented`);
    const responseSchema = (documented?.content?.['application/json']?.schema as Schema | undefined) ?? (generic ? { $ref: '#/components/schemas/ApiResponse' } : undefined);
    const text = documented?.content?.['application/octet-stream'] || documented?.content?.['text/plain'];
    if (responseSchema && !text && !(pathname === '/health' && status === 503)) {
      let parsed = response;
      if (typeof response === 'string') {
        try {
          parsed = JSON.parse(response);
        } catch {
          problems.push(`${where}: answer ${status} is not JSON`);
          parsed = undefined;
        }
      }
      if (parsed !== undefined) say(validator(`${op.template} ${op.method} ${status}`, responseSchema)(parsed), `answer ${status}`);
    }
    return problems;
  };

  const violations: string[] = [];
  const http = axios.getAdapter('http');
  const adapter = (async (config: Schema) => {
    const response = await http(config as never);
    const data = response.data;
    violations.push(...check(String(config.method ?? 'get'), String(config.url), (config.params ?? {}) as Record<string, unknown>, config.data, response.status, data));
    return response;
  }) as unknown as NonNullable<ConfigurationOptions['axiosAdapter']>;
  return { violations, adapter, check };
}

import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import Ajv from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTRACT_DOCS, makeDoc } from '../helpers/documents.ts';
import { connectClient, createIndexFile, startMcpGateway, type McpTestGateway } from '../helpers/mcp-gateway.ts';

// The tools' JSON Schemas as MCP clients read them: portable (what the official inspector's
// `--strict` check asks: no bare `{}`, nullable as anyOf with null, no JavaScript-only bounds),
// honest capabilities, and results that match the listed output schemas.

let gateway: McpTestGateway;
let client: Client;
let tools: any[];

beforeAll(async () => {
  gateway = await startMcpGateway(await createIndexFile(CONTRACT_DOCS.map(makeDoc)));
  ({ client } = await connectClient(gateway.mcpUrl));
  tools = (await client.listTools()).tools;
});

afterAll(async () => {
  await client?.close();
  await gateway?.close();
});

/** Every (path, sub-schema) of a JSON Schema, walked through the keywords that hold schemas. */
function* subSchemas(schema: any, path = ''): Generator<[string, any]> {
  if (!schema || typeof schema !== 'object') return;
  yield [path, schema];
  for (const key of ['properties', 'definitions', '$defs']) {
    for (const [name, child] of Object.entries(schema[key] ?? {})) yield* subSchemas(child, `${path}/${key}/${name}`);
  }
  for (const key of ['items', 'additionalProperties', 'not']) if (typeof schema[key] === 'object') yield* subSchemas(schema[key], `${path}/${key}`);
  for (const key of ['anyOf', 'oneOf', 'allOf']) for (const [i, child] of (schema[key] ?? []).entries()) yield* subSchemas(child, `${path}/${key}/${i}`);
}

describe('tool schemas', () => {
  it('lists the four tools, each with an input and an output schema', () => {
    expect(tools.map((t) => t.name).sort()).toEqual(['get_document', 'index_stats', 'list_sources', 'search_index']);
    for (const tool of tools) {
      expect(tool.inputSchema.type, tool.name).toBe('object');
      expect(tool.outputSchema?.type, tool.name).toBe('object');
    }
  });

  it('has no bare additionalProperties {}, no type arrays and no ±MAX_SAFE_INTEGER bounds', () => {
    const problems: string[] = [];
    for (const tool of tools) {
      for (const kind of ['inputSchema', 'outputSchema']) {
        for (const [path, schema] of subSchemas(tool[kind])) {
          const where = `${tool.name}.${kind}${path}`;
          const additional = schema.additionalProperties;
          if (additional && typeof additional === 'object' && Object.keys(additional).length === 0) problems.push(`${where}: additionalProperties {}`);
          if (Array.isArray(schema.type)) problems.push(`${where}: type ${JSON.stringify(schema.type)}`);
          if (Math.abs(schema.minimum ?? 0) === Number.MAX_SAFE_INTEGER || Math.abs(schema.maximum ?? 0) === Number.MAX_SAFE_INTEGER) problems.push(`${where}: safe-integer bound`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('writes nullable fields as anyOf with a null branch', () => {
    const search = tools.find((t) => t.name === 'search_index');
    expect(search.inputSchema.properties.source.anyOf).toEqual([{ type: 'string', maxLength: 253 }, { type: 'null' }]);
    const stats = tools.find((t) => t.name === 'index_stats');
    expect(stats.outputSchema.properties.last_document_change.anyOf).toEqual([{ type: 'string' }, { type: 'null' }]);
    const hit = search.outputSchema.definitions.SearchHit;
    expect(hit.properties.published_at.anyOf).toEqual([{ type: 'string' }, { type: 'null' }]);
    expect(hit.properties.dates).toMatchObject({ type: 'object', additionalProperties: true });
  });

  it('gives limit and offset their defaults and says that unknown arguments are ignored', () => {
    const { inputSchema } = tools.find((t) => t.name === 'search_index');
    expect(inputSchema.properties.limit).toMatchObject({ default: 10, minimum: 1, maximum: 50 });
    expect(inputSchema.properties.offset).toMatchObject({ default: 0, minimum: 0, maximum: 10000 });
    expect(inputSchema.additionalProperties).toBe(true);
  });

  it('answers with structured content that its listed output schema accepts', async () => {
    const ajv = new Ajv.default({ strict: false });
    const search = await client.callTool({ name: 'search_index', arguments: { query: 'Haus' } });
    const documentId = (search.structuredContent as any).results[0].document_id;
    const calls = {
      search_index: search,
      get_document: await client.callTool({ name: 'get_document', arguments: { document_id: documentId } }),
      list_sources: await client.callTool({ name: 'list_sources', arguments: {} }),
      index_stats: await client.callTool({ name: 'index_stats', arguments: {} }),
    };
    for (const [name, result] of Object.entries(calls)) {
      expect(result.isError, name).toBeFalsy();
      const validate = ajv.compile(tools.find((t) => t.name === name).outputSchema);
      expect(validate(result.structuredContent) ? [] : validate.errors, name).toEqual([]);
    }
    // A result the schema must refuse: the check above can fail.
    const validate = ajv.compile(tools.find((t) => t.name === 'index_stats').outputSchema);
    expect(validate({ ...(calls.index_stats.structuredContent as object), documents: -1 })).toBe(false);
  });
});

describe('capabilities', () => {
  it('does not promise list-changed notifications a stateless server can never send', () => {
    const capabilities = client.getServerCapabilities();
    expect(capabilities?.tools).toBeDefined();
    expect(capabilities?.tools?.listChanged).not.toBe(true);
  });
});

describe('the official MCP inspector (CLI, --strict)', () => {
  it('finds no schema portability problem: 0 errors, 0 warnings', async () => {
    const bin = resolve('node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js');
    // Its catalog and secrets go to a home of its own, not the user's.
    const home = mkdtempSync(join(tmpdir(), 'fundus-inspector-'));
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      [bin, '--cli', gateway.mcpUrl.href, '--transport', 'http', '--method', 'tools/list', '--strict'],
      { env: { ...process.env, HOME: home, XDG_CONFIG_HOME: home }, timeout: 120_000 },
    );
    expect(JSON.parse(stdout).tools.map((t: any) => t.name).sort()).toEqual(['get_document', 'index_stats', 'list_sources', 'search_index']);
    // With --strict every finding is written to stderr ("Warning: tool ..."); none must be there.
    expect(stderr).not.toMatch(/Warning|Error|portability/);
  }, 180_000);
});

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { RequestGuard } from '../../services/access/guard.ts';
import type { StoredDocument } from '../../services/core/document.ts';
import type { DocumentIndex } from '../../services/core/index-port.ts';
import { buildGatewayApp } from '../../services/gateway/app.ts';
import { mcpPlugin } from '../../services/gateway/mcp/plugin.ts';
import { SqliteIndex } from '../../services/index/sqlite/sqlite-index.ts';
import { admitAllGuardForTests } from './open-guard.ts';

// A gateway with the MCP plugin mounted, as `fundus serve` mounts it, on a free loopback port.

export const FIXED_NOW = () => new Date('2026-11-22T12:00:00Z');

/** Writes `docs` into a fresh index file and closes it, so that several gateways can open it read-only. */
export async function createIndexFile(docs: StoredDocument[]): Promise<string> {
  const file = join(mkdtempSync(join(tmpdir(), 'fundus-mcp-')), 'index.sqlite');
  const index = new SqliteIndex({ file });
  await index.writeBatch(async () => {
    for (const doc of docs) await index.put(doc);
  });
  await index.close();
  return file;
}

export interface McpTestGateway {
  url: string;
  mcpUrl: URL;
  logs: () => string;
  close(): Promise<void>;
}

export interface McpGatewayOptions {
  guard?: RequestGuard;
  /** Wraps the opened index, e.g. to make it fail. */
  wrapIndex?: (index: DocumentIndex) => DocumentIndex;
}

export async function startMcpGateway(indexFile: string, options: McpGatewayOptions = {}): Promise<McpTestGateway> {
  const opened = new SqliteIndex({ file: indexFile, readOnly: true });
  const index = options.wrapIndex ? options.wrapIndex(opened) : opened;
  const logStream = new PassThrough();
  let logText = '';
  logStream.on('data', (chunk) => (logText += chunk.toString()));
  const externalUrl = 'http://127.0.0.1:8082';
  const deps = { index, countBudgetMs: 1000, externalUrl, now: FIXED_NOW };
  const app = await buildGatewayApp({
    ...deps,
    guard: options.guard ?? admitAllGuardForTests(),
    logLevel: 'info',
    logStream,
    plugins: [mcpPlugin(deps)],
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    url,
    mcpUrl: new URL('/mcp', url),
    logs: () => logText,
    async close() {
      await app.close();
      await opened.close();
    },
  };
}

/** An SDK client connected over streamable HTTP, with optional extra headers and fetch. */
export async function connectClient(mcpUrl: URL, options: { headers?: Record<string, string>; fetch?: FetchLike } = {}): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(mcpUrl, { requestInit: { headers: options.headers ?? {} }, fetch: options.fetch });
  const client = new Client({ name: 'fundus-tests', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

/** A raw JSON-RPC POST to /mcp, as a client sends it, for checks of status codes and headers. */
export async function postMcp(mcpUrl: URL, message: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(mcpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: typeof message === 'string' ? message : JSON.stringify(message),
  });
}

export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw-test', version: '1' } },
};

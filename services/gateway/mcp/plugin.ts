import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isUtf8 } from 'node:buffer';
import { JSON_RPC_INVALID_REQUEST, JSON_RPC_PARSE_ERROR, jsonRpcError } from '../../http/json-rpc-errors.ts';
import { perPublicOrigin } from '../../http/public-origin.ts';
import { createMcpServer, type McpDeps } from './server.ts';

// The MCP endpoint of spec 4.2: streamable HTTP at {base_url}/mcp, stateless, so that any replica
// behind the proxy can answer any call. The gateway's access checks (401, 403, 429) have already run
// for every HTTP call here, initialisation included, before this handler sees the request.
//
// The SDK's web-standard transport with plain JSON responses (no SSE: no tool streams progress) lets
// the answer go out through fastify's reply as any route's does, so the guard's headers, the common
// response headers and the one request log line stay in place; the SDK still does all of MCP
// (Accept and Content-Type checks, JSON-RPC parsing, protocol versions).

export const MCP_PATH = '/mcp';

// Headers the MCP server never needs; the key has been checked, and handlers should not see it.
const WITHHELD_HEADERS = new Set(['authorization', 'cookie', 'host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive']);

const POST_ONLY = {
  jsonrpc: '2.0',
  error: { code: -32000, message: 'Method not allowed: this MCP server is stateless and answers POST only (no SSE stream to open, no session to delete).' },
  id: null,
} as const;

// JSON-RPC batches are refused (issue 19): one HTTP request is one call of the anonymous budget, and
// a batch of 100 tool calls would have been 100 calls for the price of one. MCP dropped batching in
// protocol 2025-06-18, and the server negotiates that version or a newer one.
const BATCH_REFUSED = jsonRpcError(JSON_RPC_INVALID_REQUEST, 'batch requests are not supported: send one JSON-RPC message per HTTP request', {
  code: 'BATCH_NOT_SUPPORTED',
  status: 400,
});
const NOT_UTF8 = jsonRpcError(JSON_RPC_PARSE_ERROR, 'Parse error: the request body is not valid UTF-8', { code: 'JSON_INVALID', status: 400 });

/** The refusal a body gets before it reaches the SDK, or null. */
function refusalOf(body: Buffer | undefined): typeof BATCH_REFUSED | null {
  if (!body?.length) return null;
  if (!isUtf8(body)) return NOT_UTF8;
  // A JSON text whose first significant character is `[` is an array: no need to parse it twice.
  // A byte order mark is skipped as the SDK's decoder (Request.json) skips it.
  const start = body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? 3 : 0;
  for (const byte of body.subarray(start)) {
    if (byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d) continue;
    return byte === 0x5b ? BATCH_REFUSED : null;
  }
  return null;
}

function toWebRequest(request: FastifyRequest, base: string): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || WITHHELD_HEADERS.has(name)) continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  const body = request.body as Buffer | undefined;
  return new Request(new URL(request.url, base), { method: request.method, headers, body: body?.length ? new Uint8Array(body) : undefined });
}

async function sendWebResponse(reply: FastifyReply, response: Response): Promise<FastifyReply> {
  reply.code(response.status).header('cache-control', 'no-store');
  response.headers.forEach((value, name) => reply.header(name, value));
  const payload = await response.text();
  return reply.send(payload.length ? payload : undefined);
}

/** Registers POST /mcp (and 405 for the methods a stateless server does not serve) on the gateway. */
export function mcpPlugin(deps: Omit<McpDeps, 'externalUrl'> & { externalUrl: string | null }): (app: FastifyInstance) => Promise<void> {
  const originFor = perPublicOrigin(deps.externalUrl, (origin) => origin);
  return async (app) => {
    app.post(MCP_PATH, { config: { jsonRpc: true } }, async (request, reply) => {
      const refusal = refusalOf(request.body as Buffer | undefined);
      if (refusal) return reply.code(400).header('cache-control', 'no-store').send(refusal);
      const server = createMcpServer({ ...deps, externalUrl: originFor(request), log: request.log });
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      try {
        await server.connect(transport);
        return await sendWebResponse(reply, await transport.handleRequest(toWebRequest(request, originFor(request))));
      } finally {
        await server.close();
      }
    });
    app.route({
      method: ['GET', 'DELETE', 'PUT', 'PATCH'],
      url: MCP_PATH,
      config: { jsonRpc: true },
      handler: async (_request, reply) => reply.code(405).header('allow', 'POST').send(POST_ONLY),
    });
  };
}

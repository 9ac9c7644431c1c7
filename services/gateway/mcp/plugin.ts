import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
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
export function mcpPlugin(deps: McpDeps): (app: FastifyInstance) => Promise<void> {
  return async (app) => {
    app.post(MCP_PATH, async (request, reply) => {
      const server = createMcpServer({ ...deps, log: request.log });
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      try {
        await server.connect(transport);
        return await sendWebResponse(reply, await transport.handleRequest(toWebRequest(request, deps.externalUrl)));
      } finally {
        await server.close();
      }
    });
    app.route({
      method: ['GET', 'DELETE', 'PUT', 'PATCH'],
      url: MCP_PATH,
      handler: async (_request, reply) => reply.code(405).header('allow', 'POST').send(POST_ONLY),
    });
  };
}

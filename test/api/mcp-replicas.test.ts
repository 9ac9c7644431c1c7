import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTRACT_DOCS, makeDoc } from '../helpers/documents.ts';
import { connectClient, createIndexFile, startMcpGateway, type McpTestGateway } from '../helpers/mcp-gateway.ts';

// Stateless MCP (issue 5): two gateway replicas over the same index file answer the calls of one
// client interchangeably, as they do behind a load-balancing proxy. The client's fetch plays the
// proxy: it sends `initialize` to one replica and every later call to the other, or alternates.

let replicas: McpTestGateway[];

beforeAll(async () => {
  const indexFile = await createIndexFile(CONTRACT_DOCS.map(makeDoc));
  replicas = [await startMcpGateway(indexFile), await startMcpGateway(indexFile)];
});

afterAll(async () => {
  await Promise.all(replicas.map((replica) => replica.close()));
});

type Route = (method: string, callNumber: number) => number;

/** A fetch that sends each HTTP call to the replica `route` picks, and records who got which method. */
function proxyFetch(route: Route) {
  const served: string[][] = replicas.map(() => []);
  let calls = 0;
  const fetchVia = async (url: string | URL, init?: RequestInit): Promise<Response> => {
    const method = typeof init?.body === 'string' ? (JSON.parse(init.body).method ?? 'response') : `HTTP ${init?.method ?? 'GET'}`;
    const replica = route(method, calls++);
    served[replica].push(method);
    return fetch(new URL(new URL(url).pathname, replicas[replica].url), init);
  };
  return { fetchVia, served };
}

async function runSession(fetchVia: FetchLike) {
  const { client, transport } = await connectClient(replicas[0].mcpUrl, { fetch: fetchVia });
  const search = (await client.callTool({ name: 'search_index', arguments: { query: 'Wahl' } })) as CallToolResult;
  const id = (search.structuredContent as any).results[0].document_id;
  const document = (await client.callTool({ name: 'get_document', arguments: { document_id: id } })) as CallToolResult;
  const sources = (await client.callTool({ name: 'list_sources' })) as CallToolResult;
  const stats = (await client.callTool({ name: 'index_stats' })) as CallToolResult;
  const tools = await client.listTools();
  await client.close();
  return { sessionId: transport.sessionId, search, document, sources, stats, tools };
}

describe('two replicas', () => {
  it('answer the calls of a client initialised on the other replica', async () => {
    const { fetchVia, served } = proxyFetch((method) => (method === 'initialize' ? 0 : 1));
    const session = await runSession(fetchVia);
    expect(session.sessionId).toBeUndefined();
    expect(served[0]).toEqual(['initialize']);
    expect(served[1]).toEqual(expect.arrayContaining(['notifications/initialized', 'tools/call', 'tools/list']));
    for (const result of [session.search, session.document, session.sources, session.stats]) expect(result.isError).toBeFalsy();
    expect(session.tools.tools).toHaveLength(4);
  });

  it('give the same answers whichever replica serves each call', async () => {
    const alternating = proxyFetch((_method, n) => n % 2);
    const pinned = proxyFetch(() => 0);
    const [mixed, single] = [await runSession(alternating.fetchVia), await runSession(pinned.fetchVia)];
    expect(alternating.served[0].filter((m) => m === 'tools/call').length).toBeGreaterThan(0);
    expect(alternating.served[1].filter((m) => m === 'tools/call').length).toBeGreaterThan(0);
    for (const name of ['search', 'document', 'sources', 'stats'] as const) expect(mixed[name].structuredContent, name).toEqual(single[name].structuredContent);
  });
});

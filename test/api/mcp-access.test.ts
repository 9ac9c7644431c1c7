import { afterEach, describe, expect, it } from 'vitest';
import { createAccessGuard } from '../../services/access/access-guard.ts';
import { createMemoryBudgets } from '../../services/access/budgets.ts';
import type { RequestGuard } from '../../services/access/guard.ts';
import { SqliteKeyStore } from '../../services/access/key-store-sqlite.ts';
import { silentLog } from '../../services/access/log.ts';
import { AppError } from '../../services/core/errors.ts';
import { CONTRACT_DOCS, makeDoc } from '../helpers/documents.ts';
import { connectClient, createIndexFile, INITIALIZE, postMcp, startMcpGateway, type McpTestGateway } from '../helpers/mcp-gateway.ts';

// Spec 5, 7, 8 on /mcp: the gateway's access checks run for every HTTP call of an MCP client,
// initialisation included. First against stand-in guards that only refuse (the mapping of a refusal
// onto /mcp), then against the real access guard with an in-memory key store and budgets.

let indexFile: string | undefined;
const running: McpTestGateway[] = [];

async function gatewayWith(guard: RequestGuard): Promise<McpTestGateway> {
  indexFile ??= await createIndexFile(CONTRACT_DOCS.map(makeDoc));
  const gateway = await startMcpGateway(indexFile, { guard });
  running.push(gateway);
  return gateway;
}

afterEach(async () => {
  await Promise.all(running.splice(0).map((gateway) => gateway.close()));
});

/** Stand-in for the access guard: refuses every request with the given error. */
function refusingGuardForTests(refusal: () => AppError): RequestGuard {
  return {
    async admit() {
      throw refusal();
    },
    async preflight() {
      throw refusal();
    },
    async ping() {
      return true;
    },
    async close() {},
  };
}

describe('refusals on /mcp (stand-in guards)', () => {
  it('answers a refused key with 401 and WWW-Authenticate, and the SDK client fails to connect', async () => {
    const gateway = await gatewayWith(refusingGuardForTests(() => new AppError('KEY_INVALID', { headers: { 'www-authenticate': 'Bearer' } })));
    const response = await postMcp(gateway.mcpUrl, INITIALIZE, { authorization: 'Bearer fk_wrong' });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
    // A JSON-RPC error object, with the status and header of the REST answer (issue 21 point 5).
    expect(await response.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32001, data: { code: 'KEY_INVALID', status: 401 } } });
    await expect(connectClient(gateway.mcpUrl, { headers: { authorization: 'Bearer fk_wrong' } })).rejects.toMatchObject({ code: 401 });
  });

  it('answers an exhausted budget with 429 and Retry-After', async () => {
    const gateway = await gatewayWith(refusingGuardForTests(() => new AppError('RATE_LIMITED', { headers: { 'retry-after': '1' } })));
    const response = await postMcp(gateway.mcpUrl, INITIALIZE);
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('1');
    expect(await response.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32029, data: { code: 'RATE_LIMITED', status: 429, retry_after: 1 } } });
    await expect(connectClient(gateway.mcpUrl)).rejects.toMatchObject({ code: 429 });
  });

  it('refuses GET and DELETE before answering 405', async () => {
    const gateway = await gatewayWith(refusingGuardForTests(() => new AppError('RATE_LIMITED', { headers: { 'retry-after': '1' } })));
    for (const method of ['GET', 'DELETE']) expect((await fetch(gateway.mcpUrl, { method })).status).toBe(429);
  });
});

describe('the real access guard on /mcp', () => {
  const ANONYMOUS_PER_HOUR = { points: 1, durationSeconds: 3600 };

  function realGuard(keyStore = new SqliteKeyStore({ file: ':memory:' })) {
    const guard = createAccessGuard({
      config: { access: { allowedOrigins: ['https://app.example'], anonymousLimit: ANONYMOUS_PER_HOUR }, admin: { token: null } },
      keyStore,
      budgets: createMemoryBudgets(),
      log: silentLog,
    });
    return { guard, keyStore };
  }

  it('counts initialisation against the anonymous budget: the second HTTP call of a connecting client is refused', async () => {
    const gateway = await gatewayWith(realGuard().guard);
    // initialize is admitted; the notifications/initialized POST that completes connect() is not.
    await expect(connectClient(gateway.mcpUrl)).rejects.toMatchObject({ code: 429 });
    const response = await postMcp(gateway.mcpUrl, INITIALIZE);
    expect(response.status).toBe(429);
    const retryAfter = response.headers.get('retry-after') ?? '';
    expect(retryAfter).toMatch(/^\d+$/);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(retryAfter)).toBeLessThanOrEqual(3600);
  });

  it('answers an unknown or revoked key with 401, never as anonymous', async () => {
    const { guard, keyStore } = realGuard();
    const gateway = await gatewayWith(guard);
    const revoked = await keyStore.create({ name: 'old client', limit: '100/s' });
    await keyStore.revoke(revoked.record.id);
    for (const key of ['fk_not-a-real-key', revoked.key]) {
      const response = await postMcp(gateway.mcpUrl, INITIALIZE, { authorization: `Bearer ${key}` });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
    }
    await expect(connectClient(gateway.mcpUrl, { headers: { authorization: 'Bearer fk_not-a-real-key' } })).rejects.toMatchObject({ code: 401 });
    // The anonymous budget was never touched by the keyed calls.
    expect((await postMcp(gateway.mcpUrl, INITIALIZE)).status).toBe(200);
  });

  it('serves a valid project key on its own limit while the anonymous budget is spent', async () => {
    const { guard, keyStore } = realGuard();
    const gateway = await gatewayWith(guard);
    expect((await postMcp(gateway.mcpUrl, INITIALIZE)).status).toBe(200);
    expect((await postMcp(gateway.mcpUrl, INITIALIZE)).status).toBe(429);
    const { key } = await keyStore.create({ name: 'assistant', limit: '100/s' });
    const { client } = await connectClient(gateway.mcpUrl, { headers: { authorization: `Bearer ${key}` } });
    expect((await client.listTools()).tools).toHaveLength(4);
    const result = await client.callTool({ name: 'search_index', arguments: { query: 'Haus' } });
    expect(result.isError).toBeFalsy();
    await client.close();
  });

  it('charges nothing for /.well-known/ metadata probes, which MCP clients send before connecting', async () => {
    const gateway = await gatewayWith(realGuard().guard);
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-authorization-server']) {
      const response = await fetch(new URL(path, gateway.url));
      expect(response.status, path).toBe(404);
      expect(response.headers.get('retry-after')).toBeNull();
    }
    // The one anonymous call of the hour is still there.
    expect((await postMcp(gateway.mcpUrl, INITIALIZE)).status).toBe(200);
  });

  it('answers refusals as JSON-RPC errors with the REST status and headers', async () => {
    const gateway = await gatewayWith(realGuard().guard);
    const unknown = await postMcp(gateway.mcpUrl, INITIALIZE, { authorization: 'Bearer fk_not-a-real-key' });
    expect(unknown.status).toBe(401);
    expect(unknown.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await unknown.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32001, data: { code: 'KEY_INVALID' } } });
    const origin = await postMcp(gateway.mcpUrl, INITIALIZE, { origin: 'https://elsewhere.example' });
    expect(origin.status).toBe(403);
    expect(await origin.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32003, data: { code: 'ORIGIN_FORBIDDEN' } } });
    expect((await postMcp(gateway.mcpUrl, INITIALIZE)).status).toBe(200);
    const limited = await postMcp(gateway.mcpUrl, INITIALIZE);
    expect(limited.status).toBe(429);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(await limited.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32029, data: { code: 'RATE_LIMITED', retry_after: retryAfter } } });
  });

  it('answers a browser origin that is not allowed with 403', async () => {
    const gateway = await gatewayWith(realGuard().guard);
    expect((await postMcp(gateway.mcpUrl, INITIALIZE, { origin: 'https://elsewhere.example' })).status).toBe(403);
    const allowed = await postMcp(gateway.mcpUrl, INITIALIZE, { origin: 'https://app.example' });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example');
  });
});

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { RequestGuard } from '../../services/access/guard.ts';
import type { StoredDocument } from '../../services/core/document.ts';
import { buildGatewayApp } from '../../services/gateway/app.ts';
import { SqliteIndex } from '../../services/index/sqlite/sqlite-index.ts';
import { admitAllGuardForTests } from './open-guard.ts';

export interface TestGateway {
  url: string;
  index: SqliteIndex;
  logs: () => string;
  close(): Promise<void>;
}

/** A gateway on a free loopback port over a fresh index holding `docs`. */
export async function startTestGateway(docs: StoredDocument[], options: { guard?: RequestGuard; countBudgetMs?: number } = {}): Promise<TestGateway> {
  const index = new SqliteIndex({ file: join(mkdtempSync(join(tmpdir(), 'fundus-gw-')), 'index.sqlite') });
  await index.writeBatch(async () => {
    for (const doc of docs) await index.put(doc);
  });
  const logStream = new PassThrough();
  let logText = '';
  logStream.on('data', (chunk) => (logText += chunk.toString()));
  const app = await buildGatewayApp({
    index,
    guard: options.guard ?? admitAllGuardForTests(),
    countBudgetMs: options.countBudgetMs ?? 1000,
    externalUrl: 'http://127.0.0.1:8082',
    logLevel: 'info',
    logStream,
    now: () => new Date('2026-11-22T12:00:00Z'),
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    url,
    index,
    logs: () => logText,
    async close() {
      await app.close();
      await index.close();
    },
  };
}

export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any; headers: Headers }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null, headers: response.headers };
}

export async function getJson(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: any; headers: Headers }> {
  const response = await fetch(url, { headers });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON (the docs page)
  }
  return { status: response.status, body, headers: response.headers };
}

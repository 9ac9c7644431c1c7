import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteKeyStore } from '../../services/access/key-store-sqlite.ts';
import { runKeysCommand } from '../../services/cli/keys-command.ts';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.ts';

// `fundus keys ...` (issue 4): the key alone on the last line of stdout; Redis when REDIS_URL is set.

async function keys(argv: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; out: string; err: string }> {
  const out = new PassThrough();
  const err = new PassThrough();
  let outText = '';
  let errText = '';
  out.on('data', (chunk) => (outText += chunk));
  err.on('data', (chunk) => (errText += chunk));
  const code = await runKeysCommand(argv, env, { out, err });
  return { code, out: outText, err: errText };
}

const lastLine = (text: string) => text.trimEnd().split('\n').at(-1) ?? '';

describe.each(['sqlite', 'redis'] as const)('fundus keys on %s', (backend) => {
  let dir: string;
  let server: RedisServer | undefined;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fundus-keys-cli-'));
    if (backend === 'redis') server = await startRedisServer();
    // With Redis the pepper comes from configuration, never from Redis (README "Security").
    env = server ? { REDIS_URL: server.url, FUNDUS_KEY_PEPPER_FILE: join(dir, 'pepper.secret') } : {};
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates, lists, changes and revokes a key', async () => {
    const created = await keys(['create', '--data', dir, '--name', 'Stadtarchiv', '--limit', '10/s'], env);
    expect(created.code).toBe(0);
    const key = lastLine(created.out);
    expect(key).toMatch(/^fk_[A-Za-z0-9_-]{43}$/);
    const id = key.slice(0, 11);

    const listed = await keys(['keys', 'list', '--data', dir], env);
    expect(listed.code).toBe(0);
    expect(listed.out).toContain(id);
    expect(listed.out).toContain('Stadtarchiv');
    expect(listed.out).not.toContain(key);

    expect((await keys(['set-limit', '--data', dir, 'Stadtarchiv', '--limit', '600/min'], env)).code).toBe(0);
    const json = JSON.parse((await keys(['list', '--data', dir, '--json'], env)).out);
    expect(json[0]).toMatchObject({ id, name: 'Stadtarchiv', limit: '600/min', revokedAt: null });

    expect((await keys(['revoke', '--data', dir, id], env)).code).toBe(0);
    const again = await keys(['revoke', '--data', dir, id], env);
    expect(again.code).toBe(1);
    expect(again.err).toMatch(/already revoked/);
  });

  it('explains bad input and exits non-zero', async () => {
    const badLimit = await keys(['create', '--data', dir, '--name', 'x', '--limit', '10/day'], env);
    expect(badLimit.code).toBe(1);
    expect(badLimit.err).toMatch(/10\/s, 600\/min/);
    expect((await keys(['create', '--data', dir, '--name', 'x'], env)).code).toBe(2);
    expect((await keys(['revoke', '--data', dir, 'nobody'], env)).code).toBe(1);
    expect((await keys(['rotate', '--data', dir], env)).code).toBe(2);
    expect((await keys([], env)).code).toBe(2);
  });
});

it('acts on the data dir the server reads when REDIS_URL is unset', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fundus-keys-cli-'));
  const key = lastLine((await keys(['create', '--data', dir, '--name', 'server sees it', '--limit', 'unlimited'])).out);
  const store = openSqliteKeyStore(dir);
  expect((await store.verify(key))?.limit).toBe('unlimited');
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

it('fails clearly when REDIS_URL points nowhere', async () => {
  const result = await keys(['list'], { REDIS_URL: 'redis://127.0.0.1:1', FUNDUS_KEY_PEPPER: 'A'.repeat(43) });
  expect(result.code).toBe(1);
  expect(result.err).toMatch(/Redis \(REDIS_URL\) is not reachable/);
});

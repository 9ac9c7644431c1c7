import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSqliteKeyStore } from '../../services/access/key-store-sqlite.ts';
import { keyStoreContract } from './key-store-contract.ts';

keyStoreContract('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fundus-keys-'));
  const store = openSqliteKeyStore(dir);
  return {
    store,
    openPeer: async () => openSqliteKeyStore(dir),
    cleanup: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

describe('sqlite key store files', () => {
  it('keeps the pepper in its own owner-only file and no key in the database', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fundus-keys-'));
    const store = openSqliteKeyStore(dir);
    const { key } = await store.create({ name: 'file check', limit: '1/s' });
    await store.close();
    expect(statSync(join(dir, 'access.pepper')).mode & 0o777).toBe(0o600);
    const database = readFileSync(join(dir, 'access.sqlite'));
    expect(database.includes(Buffer.from(key))).toBe(false);
    expect(database.includes(Buffer.from(key.slice(11)))).toBe(false);
    rmSync(dir, { recursive: true, force: true });
  });

  it('verifies keys across a restart with the same data dir, and not with another pepper', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fundus-keys-'));
    const first = openSqliteKeyStore(dir);
    const { key } = await first.create({ name: 'persist', limit: '1/s' });
    await first.close();
    const reopened = openSqliteKeyStore(dir);
    expect((await reopened.verify(key))?.name).toBe('persist');
    await reopened.close();
    rmSync(join(dir, 'access.pepper'));
    const repeppered = openSqliteKeyStore(dir);
    expect(await repeppered.verify(key)).toBeNull();
    await repeppered.close();
    rmSync(dir, { recursive: true, force: true });
  });
});

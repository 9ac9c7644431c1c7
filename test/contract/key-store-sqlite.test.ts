import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DatabaseSync } from 'node:sqlite';
import { openSqliteKeyStore, SqliteKeyStore } from '../../services/access/key-store-sqlite.ts';
import { generateKey, generatePepper, hashKey, keyIdOf, pepperCheckOf } from '../../services/access/keys.ts';
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

  it('verifies keys across a restart with the same data dir; another pepper is refused loudly, not with silent 401s', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fundus-keys-'));
    const first = openSqliteKeyStore(dir);
    const { key } = await first.create({ name: 'persist', limit: '1/s' });
    await first.close();
    const reopened = openSqliteKeyStore(dir);
    expect((await reopened.verify(key))?.name).toBe('persist');
    await reopened.close();
    rmSync(join(dir, 'access.pepper'));
    const repeppered = openSqliteKeyStore(dir);
    const refused = { code: 'UNAVAILABLE', message: expect.stringMatching(/FUNDUS_KEY_PEPPER/) };
    await expect(repeppered.verify(key)).rejects.toMatchObject(refused);
    await expect(repeppered.create({ name: 'other', limit: '1/s' })).rejects.toMatchObject(refused);
    await expect(repeppered.list()).rejects.toMatchObject(refused);
    await repeppered.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('gives an older database without a check value one on first open, with the pepper then configured', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fundus-keys-'));
    const file = join(dir, 'access.sqlite');
    const pepper = generatePepper();
    const key = generateKey();
    // The database as stores before the check value wrote it: the keys table only.
    const old = new DatabaseSync(file);
    old.exec('CREATE TABLE project_keys_v1 (id TEXT PRIMARY KEY, name TEXT NOT NULL, hash TEXT NOT NULL, key_limit TEXT NOT NULL, created_at TEXT NOT NULL, revoked_at TEXT, last_used_day TEXT) STRICT');
    old.prepare('INSERT INTO project_keys_v1 (id, name, hash, key_limit, created_at) VALUES (?, ?, ?, ?, ?)').run(keyIdOf(key), 'from before', hashKey(key, pepper), '1/s', '2026-01-01T00:00:00.000Z');
    old.close();

    const first = new SqliteKeyStore({ file, pepper });
    expect((await first.verify(key))?.name).toBe('from before');
    await first.close();
    const peek = new DatabaseSync(file, { readOnly: true });
    expect(peek.prepare("SELECT value FROM key_store_meta_v1 WHERE name = 'pepper_check'").get()).toEqual({ value: pepperCheckOf(pepper) });
    expect(readFileSync(file).includes(pepper)).toBe(false);
    peek.close();

    const stranger = new SqliteKeyStore({ file, pepper: generatePepper() });
    await expect(stranger.verify(key)).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    await stranger.close();
    const again = new SqliteKeyStore({ file, pepper });
    expect((await again.verify(key))?.name).toBe('from before');
    await again.close();
    rmSync(dir, { recursive: true, force: true });
  });
});

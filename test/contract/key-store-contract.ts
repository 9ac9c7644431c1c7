import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type KeyStore, KeyStoreError } from '../../services/access/key-store.ts';
import { isWellFormedKey, keyIdOf } from '../../services/access/keys.ts';

// One suite for every key store (STYLE.md "Tests", undici's store contract): each adapter's test
// file calls it with a factory and adds only what is its own.

export interface KeyStoreFixture {
  store: KeyStore;
  /** A second store on the same backing data, as another process or replica would open it. */
  openPeer(): Promise<KeyStore>;
  cleanup(): Promise<void>;
}

export function keyStoreContract(name: string, makeFixture: () => Promise<KeyStoreFixture>): void {
  describe(`key store contract: ${name}`, () => {
    let fixture: KeyStoreFixture;
    let store: KeyStore;

    beforeEach(async () => {
      fixture = await makeFixture();
      store = fixture.store;
    });
    afterEach(async () => {
      await fixture.cleanup();
    });

    it('creates a well-formed key whose id is its visible prefix, and verifies it', async () => {
      const { key, record } = await store.create({ name: 'Projekt Süd', limit: '10/s' });
      expect(isWellFormedKey(key)).toBe(true);
      expect(key).toMatch(/^fk_[A-Za-z0-9_-]{43}$/);
      expect(record).toMatchObject({ id: keyIdOf(key), name: 'Projekt Süd', limit: '10/s', revokedAt: null, lastUsedDay: null });
      expect(Number.isNaN(Date.parse(record.createdAt))).toBe(false);
      expect(await store.verify(key)).toEqual(record);
    });

    it('never hands out the key or its hash again', async () => {
      const { key } = await store.create({ name: 'a', limit: '1/s' });
      const listed = JSON.stringify(await store.list());
      expect(listed).not.toContain(key);
      expect(listed).not.toContain(key.slice(11));
      expect(listed).not.toMatch(/hash/i);
      expect(JSON.stringify(await store.find('a'))).not.toContain(key.slice(11));
    });

    it('refuses wrong, malformed and unknown keys', async () => {
      const { key } = await store.create({ name: 'a', limit: '1/s' });
      const wrongSecret = key.slice(0, -4) + (key.endsWith('AAAA') ? 'BBBB' : 'AAAA');
      expect(await store.verify(wrongSecret)).toBeNull();
      expect(await store.verify(key.slice(0, -1))).toBeNull();
      expect(await store.verify(`${key}x`)).toBeNull();
      expect(await store.verify('fk_' + 'A'.repeat(43))).toBeNull();
      expect(await store.verify('')).toBeNull();
      expect(await store.verify('not a key at all')).toBeNull();
    });

    it('normalises and checks limits, and accepts unlimited', async () => {
      expect((await store.create({ name: 'm', limit: ' 600/min ' })).record.limit).toBe('600/min');
      expect((await store.create({ name: 'h', limit: '36000/h' })).record.limit).toBe('36000/h');
      expect((await store.create({ name: 'u', limit: 'unlimited' })).record.limit).toBe('unlimited');
      for (const limit of ['0/s', '10/d', '-1/s', '1.5/s', '', '10', 'lots']) {
        await expect(store.create({ name: `bad ${limit}`, limit })).rejects.toMatchObject({ code: 'INVALID_LIMIT' });
      }
    });

    it('checks names and keeps the names of active keys unique', async () => {
      await expect(store.create({ name: '  ', limit: '1/s' })).rejects.toBeInstanceOf(KeyStoreError);
      await expect(store.create({ name: 'x'.repeat(101), limit: '1/s' })).rejects.toMatchObject({ code: 'INVALID_NAME' });
      await expect(store.create({ name: 'bad\nname', limit: '1/s' })).rejects.toMatchObject({ code: 'INVALID_NAME' });
      const first = await store.create({ name: ' shop ', limit: '1/s' });
      expect(first.record.name).toBe('shop');
      await expect(store.create({ name: 'shop', limit: '2/s' })).rejects.toMatchObject({ code: 'NAME_TAKEN' });
      expect(await store.revoke(first.record.id)).toBe(true);
      const second = await store.create({ name: 'shop', limit: '2/s' });
      expect(second.record.id).not.toBe(first.record.id);
    });

    it('revokes once; a revoked key no longer verifies but stays listed', async () => {
      const { key, record } = await store.create({ name: 'gone', limit: '1/s' });
      expect(await store.revoke(record.id)).toBe(true);
      expect(await store.revoke(record.id)).toBe(false);
      expect(await store.revoke('fk_unknown0')).toBe(false);
      expect(await store.verify(key)).toBeNull();
      const listed = (await store.list()).find((r) => r.id === record.id);
      expect(listed?.revokedAt).toBeTruthy();
    });

    it('changes the limit of an active key only', async () => {
      const { key, record } = await store.create({ name: 'l', limit: '1/s' });
      expect(await store.setLimit(record.id, '5/min')).toBe(true);
      expect((await store.verify(key))?.limit).toBe('5/min');
      await expect(store.setLimit(record.id, '5/week')).rejects.toMatchObject({ code: 'INVALID_LIMIT' });
      await store.revoke(record.id);
      expect(await store.setLimit(record.id, '9/s')).toBe(false);
      expect(await store.setLimit('fk_unknown0', '9/s')).toBe(false);
    });

    it('finds by id, then by name preferring the active key', async () => {
      const old = await store.create({ name: 'dup', limit: '1/s' });
      await store.revoke(old.record.id);
      const current = await store.create({ name: 'dup', limit: '2/s' });
      expect((await store.find(old.record.id))?.id).toBe(old.record.id);
      expect((await store.find('dup'))?.id).toBe(current.record.id);
      await store.revoke(current.record.id);
      expect((await store.find('dup'))?.revokedAt).toBeTruthy();
      expect(await store.find('nobody')).toBeNull();
    });

    it('lists newest first', async () => {
      const a = await store.create({ name: 'a', limit: '1/s' });
      await new Promise((resolve) => setTimeout(resolve, 5));
      const b = await store.create({ name: 'b', limit: '1/s' });
      expect((await store.list()).map((r) => r.id)).toEqual([b.record.id, a.record.id]);
    });

    it('records the day of last use, never moving it backwards', async () => {
      const { key, record } = await store.create({ name: 't', limit: '1/s' });
      await store.touch(record.id, '2026-11-21');
      await store.touch(record.id, '2026-11-20');
      expect((await store.verify(key))?.lastUsedDay).toBe('2026-11-21');
      await store.touch('fk_unknown0', '2026-11-21');
      expect((await store.list()).length).toBe(1);
    });

    it('shows another process or replica a created and a revoked key within a second', async () => {
      const peer = await fixture.openPeer();
      try {
        // Stores may cache a key for at most 500 ms: after that much time (a lower bound, whatever the
        // machine's speed) the peer's very next look-up must see the change.
        const pastTheCache = () => new Promise((resolve) => setTimeout(resolve, 600));
        const { key, record } = await store.create({ name: 'shared', limit: '1/s' });
        await pastTheCache();
        expect((await peer.verify(key))?.id).toBe(record.id);
        expect(await store.revoke(record.id)).toBe(true);
        await pastTheCache();
        expect(await peer.verify(key)).toBeNull();
      } finally {
        await peer.close();
      }
    });

    it('answers ping', async () => {
      expect(await store.ping()).toBe(true);
    });
  });
}

import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateKey, hashKey, keyMatchesHash } from '../../services/access/keys.ts';

describe('key hashes', () => {
  it('are HMAC-SHA256 of the key under the pepper, base64url: hashes stored by earlier versions stay valid', () => {
    const pepper = randomBytes(32);
    const key = generateKey();
    const expected = createHmac('sha256', pepper).update(key, 'utf8').digest('base64url');
    expect(hashKey(key, pepper)).toBe(expected);
    expect(hashKey(key, pepper)).toBe(expected); // the second time from the pepper's cached key object
    expect(keyMatchesHash(key, expected, pepper)).toBe(true);
    expect(keyMatchesHash(key, expected, randomBytes(32))).toBe(false);
    expect(keyMatchesHash(generateKey(), expected, pepper)).toBe(false);
  });
});

import { createHash } from 'node:crypto';

// WARC-Block-Digest and WARC-Payload-Digest values: "algorithm:value", SHA-1 in base32 by custom
// (WARC 1.1 annex), though some writers use hex.

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const ALGORITHMS: Record<string, string> = { sha1: 'sha1', 'sha-1': 'sha1', sha256: 'sha256', 'sha-256': 'sha256', md5: 'md5' };

function base32(bytes: Uint8Array): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

export function sha1Digest(bytes: Uint8Array): string {
  return `sha1:${base32(createHash('sha1').update(bytes).digest())}`;
}

/** True or false when the digest can be checked, null for an unknown algorithm or encoding. */
export function digestMatches(declared: string, bytes: Uint8Array): boolean | null {
  const colon = declared.indexOf(':');
  const algorithm = ALGORITHMS[declared.slice(0, colon).trim().toLowerCase()];
  if (colon <= 0 || !algorithm) return null;
  const value = declared.slice(colon + 1).trim().replace(/=+$/, '');
  const digest = createHash(algorithm).update(bytes).digest();
  if (/^[A-Z2-7]+$/i.test(value) && value.length === Math.ceil((digest.length * 8) / 5)) return value.toUpperCase() === base32(digest);
  if (/^[0-9a-f]+$/i.test(value) && value.length === digest.length * 2) return value.toLowerCase() === digest.toString('hex');
  return null;
}

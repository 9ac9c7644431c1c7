import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { AccessSettings } from './settings.ts';
import { generatePepper, PEPPER_BYTES } from './keys.ts';

/**
 * Reads the key-hash pepper from its file, creating it (mode 0600) on first use. It lives beside
 * the key database rather than in it, so that a copy of the database alone cannot test keys. `wx`
 * makes concurrent first starts (the CLI and a server) agree on one pepper.
 */
export function loadOrCreatePepper(file: string): Buffer {
  mkdirSync(dirname(file), { recursive: true });
  try {
    writeFileSync(file, generatePepper().toString('base64url') + '\n', { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const pepper = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64url');
  if (pepper.length !== PEPPER_BYTES) throw new Error(`the key pepper file ${file} is damaged; restore it from a backup (without it no existing key verifies)`);
  return pepper;
}

/** The configured pepper: FUNDUS_KEY_PEPPER's value, or the file FUNDUS_KEY_PEPPER_FILE (default `<data>/access.pepper`, made on first use). */
export function loadPepper(setting: AccessSettings['keyPepper']): Buffer {
  if (setting.kind === 'file') return loadOrCreatePepper(setting.file);
  const pepper = Buffer.from(setting.value, 'base64url');
  if (pepper.length !== PEPPER_BYTES) throw new Error(`FUNDUS_KEY_PEPPER must hold ${PEPPER_BYTES} bytes in base64url`);
  return pepper;
}

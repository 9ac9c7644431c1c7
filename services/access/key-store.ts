import { formatKeyLimit, LIMIT_HINT, parseKeyLimit } from './limits.ts';

// The port of the project key store (DESIGN.md section 5): SQLite under the data dir by default,
// Redis when configured. Records hold no IP address and no usage log: only the day of last use.

export interface KeyRecord {
  /** Visible prefix of the key, e.g. `fk_Ab3dEf9h`. */
  id: string;
  name: string;
  /** Normalised limit: `N/s`, `N/min`, `N/h` or `unlimited`. */
  limit: string;
  createdAt: string;
  revokedAt: string | null;
  /** UTC day (YYYY-MM-DD) of the last admitted use; no finer, so no usage profile is kept. */
  lastUsedDay: string | null;
}

export interface CreatedKey {
  /** The full key: shown once, never stored. */
  key: string;
  record: KeyRecord;
}

export interface KeyStore {
  create(input: { name: string; limit: string }): Promise<CreatedKey>;
  /** All keys, newest first, revoked ones included. */
  list(): Promise<KeyRecord[]>;
  /** The active record a presented key belongs to, or null (unknown, revoked or wrong secret). */
  verify(key: string): Promise<KeyRecord | null>;
  /**
   * A record `verify` returned, as it stands now, if its key's row still holds the hash that was
   * verified and it is not revoked; else null (the caller verifies the key again). Optional.
   */
  recheck?(record: KeyRecord): KeyRecord | null;
  /** Finds a key by id, else by name (the active key of that name first). */
  find(idOrName: string): Promise<KeyRecord | null>;
  /** Revokes an active key; false when there is no such active key. */
  revoke(id: string): Promise<boolean>;
  /** Changes the limit of an active key; false when there is no such active key. */
  setLimit(id: string, limit: string): Promise<boolean>;
  /** Records the day of last use. */
  touch(id: string, day: string): Promise<void>;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

export type KeyStoreErrorCode = 'INVALID_LIMIT' | 'INVALID_NAME' | 'NAME_TAKEN' | 'NOT_FOUND' | 'UNAVAILABLE';

/** Failures of key management the CLI and the admin panel show to the operator. */
export class KeyStoreError extends Error {
  readonly code: KeyStoreErrorCode;

  constructor(code: KeyStoreErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.name = 'KeyStoreError';
    this.code = code;
  }
}

const MAX_NAME_LENGTH = 100;

/** Trims a key name and checks it: 1 to 100 printable characters. */
export function normaliseKeyName(name: string): string {
  const trimmed = name.trim();
  // eslint-disable-next-line no-control-regex
  if (!trimmed || trimmed.length > MAX_NAME_LENGTH || /[\u0000-\u001f\u007f]/.test(trimmed)) {
    throw new KeyStoreError('INVALID_NAME', `a key name must have 1 to ${MAX_NAME_LENGTH} printable characters`);
  }
  return trimmed;
}

/** Normalises a limit spec (`10/min`), or throws naming the accepted forms. */
export function normaliseKeyLimit(spec: string): string {
  const limit = parseKeyLimit(spec);
  if (!limit) throw new KeyStoreError('INVALID_LIMIT', `invalid limit "${spec.slice(0, 40)}": expected ${LIMIT_HINT}`);
  return formatKeyLimit(limit);
}

export function nameTaken(name: string): KeyStoreError {
  return new KeyStoreError('NAME_TAKEN', `an active key named "${name}" exists already; revoke it or choose another name`);
}

/** Orders records newest first (ids break ties so that listings are stable). */
export function newestFirst(a: KeyRecord, b: KeyRecord): number {
  return b.createdAt.localeCompare(a.createdAt) || a.id.localeCompare(b.id);
}

/** Picks the record `idOrName` refers to: an id first, then the active key of that name, then the newest revoked one. */
export function pickRecord(records: KeyRecord[], idOrName: string): KeyRecord | null {
  const byId = records.find((r) => r.id === idOrName);
  if (byId) return byId;
  const named = records.filter((r) => r.name === idOrName).sort(newestFirst);
  return named.find((r) => !r.revokedAt) ?? named[0] ?? null;
}

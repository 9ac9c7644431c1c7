import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { generateKey, generatePepper, isWellFormedKey, keyIdOf, hashKey, keyMatchesHash, pepperCheckOf } from './keys.ts';
import { type CreatedKey, type KeyRecord, type KeyStore, KeyStoreError, nameTaken, normaliseKeyLimit, normaliseKeyName, pickRecord } from './key-store.ts';
import { loadOrCreatePepper } from './pepper-file.ts';

// The embedded key store: one table in `<dataDir>/access.sqlite`. WAL lets the CLI write while a
// server reads. Verify keeps the rows it read (the stored hash, never the presented key) only while
// the file is unchanged: SQLite's `data_version` changes with every commit of another connection
// (the CLI, the admin panel, another serving thread), and this store's own writes drop the rows
// they change, so a revocation takes effect at the next request, as before. Per request that is one
// pragma instead of a row read (node:sqlite makes each row a dictionary-mode object).
//
// Like the Redis store, the database keeps a check value (an HMAC under the pepper of a fixed text),
// written by the first store that opens it (or the first open of an older database that has none).
// A store opened with another pepper (the access.pepper file swapped for FUNDUS_KEY_PEPPER with a
// different value) refuses every key operation with a message naming the setting, instead of
// answering 401 to every key in silence.

export interface SqliteKeyStoreOptions {
  /** Database file, or ":memory:". */
  file: string;
  /** HMAC key of the stored hashes; a random one for ":memory:" when omitted. */
  pepper?: Buffer;
  now?: () => Date;
}

interface KeyRow {
  id: string;
  name: string;
  hash: string;
  key_limit: string;
  created_at: string;
  revoked_at: string | null;
  last_used_day: string | null;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS project_keys_v1 (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  hash TEXT NOT NULL,
  key_limit TEXT NOT NULL,
  created_at TEXT NOT NULL,
  revoked_at TEXT,
  last_used_day TEXT
) STRICT;
CREATE UNIQUE INDEX IF NOT EXISTS project_keys_v1_active_name ON project_keys_v1(name) WHERE revoked_at IS NULL;
CREATE TABLE IF NOT EXISTS key_store_meta_v1 (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;
`;

const VERIFIED_ENTRIES = 10_000;

function toRecord(row: KeyRow): KeyRecord {
  return { id: row.id, name: row.name, limit: row.key_limit, createdAt: row.created_at, revokedAt: row.revoked_at, lastUsedDay: row.last_used_day };
}

export class SqliteKeyStore implements KeyStore {
  private readonly db: DatabaseSync;
  private readonly pepper: Buffer;
  private readonly now: () => Date;
  /** Why keys cannot be handled (another pepper than the keys were made with), or null. */
  private readonly pepperMismatch: string | null;
  private readonly statements: Record<'insert' | 'byId' | 'all' | 'revoke' | 'setLimit' | 'touch' | 'ping' | 'dataVersion', StatementSync>;
  /** Rows read by verify (null: no such id) while `data_version` stays `cachedVersion`. */
  private readonly verified = new Map<string, KeyRow | null>();
  private cachedVersion = -1;
  /** The stored hash each record handed out by `verify` was verified against (`recheck`). */
  private readonly verifiedHashes = new WeakMap<KeyRecord, string>();

  constructor(options: SqliteKeyStoreOptions) {
    if (options.file !== ':memory:') mkdirSync(dirname(options.file), { recursive: true });
    this.db = new DatabaseSync(options.file);
    this.db.exec('PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 2000; PRAGMA synchronous = NORMAL;');
    this.db.exec(SCHEMA);
    this.pepper = options.pepper ?? generatePepper();
    this.now = options.now ?? (() => new Date());
    this.pepperMismatch = this.agreePepper(options.file);
    this.statements = {
      insert: this.db.prepare('INSERT INTO project_keys_v1 (id, name, hash, key_limit, created_at) VALUES (?, ?, ?, ?, ?)'),
      byId: this.db.prepare('SELECT * FROM project_keys_v1 WHERE id = ?'),
      all: this.db.prepare('SELECT * FROM project_keys_v1 ORDER BY created_at DESC, id'),
      revoke: this.db.prepare('UPDATE project_keys_v1 SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL'),
      setLimit: this.db.prepare('UPDATE project_keys_v1 SET key_limit = ? WHERE id = ? AND revoked_at IS NULL'),
      touch: this.db.prepare('UPDATE project_keys_v1 SET last_used_day = ? WHERE id = ? AND (last_used_day IS NULL OR last_used_day < ?)'),
      ping: this.db.prepare('SELECT 1 AS ok'),
      dataVersion: this.db.prepare('PRAGMA data_version'),
    };
    this.statements.dataVersion.setReturnArrays(true);
  }

  /** Writes the check value if there is none yet (atomically: concurrent first opens agree on one), then compares. */
  private agreePepper(file: string): string | null {
    const check = pepperCheckOf(this.pepper);
    this.db.prepare("INSERT OR IGNORE INTO key_store_meta_v1 (name, value) VALUES ('pepper_check', ?)").run(check);
    const stored = (this.db.prepare("SELECT value FROM key_store_meta_v1 WHERE name = 'pepper_check'").get() as { value: string }).value;
    if (stored === check) return null;
    return `the configured key pepper (FUNDUS_KEY_PEPPER, or the file FUNDUS_KEY_PEPPER_FILE, default access.pepper in the data directory) is not the one the keys in ${file} were made with; configure that pepper again (README "Security")`;
  }

  private checkPepper(): void {
    if (this.pepperMismatch) throw new KeyStoreError('UNAVAILABLE', this.pepperMismatch);
  }

  async create(input: { name: string; limit: string }): Promise<CreatedKey> {
    const name = normaliseKeyName(input.name);
    const limit = normaliseKeyLimit(input.limit);
    this.checkPepper();
    const createdAt = this.now().toISOString();
    for (;;) {
      const key = generateKey();
      const id = keyIdOf(key);
      if (this.statements.byId.get(id)) continue; // 48-bit id collision: draw again
      try {
        this.verified.delete(id);
        this.statements.insert.run(id, name, hashKey(key, this.pepper), limit, createdAt);
      } catch (error) {
        if (String((error as Error).message).includes('UNIQUE')) throw nameTaken(name);
        throw error;
      }
      return { key, record: { id, name, limit, createdAt, revokedAt: null, lastUsedDay: null } };
    }
  }

  async list(): Promise<KeyRecord[]> {
    this.checkPepper();
    return (this.statements.all.all() as unknown as KeyRow[]).map(toRecord);
  }

  async verify(key: string): Promise<KeyRecord | null> {
    this.checkPepper();
    if (!isWellFormedKey(key)) return null;
    const row = this.rowOf(keyIdOf(key));
    if (!row || !keyMatchesHash(key, row.hash, this.pepper) || row.revoked_at) return null;
    const record = toRecord(row);
    this.verifiedHashes.set(record, row.hash);
    return record;
  }

  /** The row is looked up as in `verify` (read again after any commit of another connection), without the HMAC. */
  recheck(record: KeyRecord): KeyRecord | null {
    const hash = this.verifiedHashes.get(record);
    if (hash === undefined) return null;
    const row = this.rowOf(record.id);
    if (!row || row.revoked_at || row.hash !== hash) return null;
    if (row.key_limit === record.limit && row.name === record.name) return record;
    const fresh = toRecord(row);
    this.verifiedHashes.set(fresh, hash);
    return fresh;
  }

  /** A key's row, read again whenever another connection has committed since (see the top). */
  private rowOf(id: string): KeyRow | null {
    const version = Number((this.statements.dataVersion.get() as unknown as [number])[0]);
    if (version !== this.cachedVersion) {
      this.verified.clear();
      this.cachedVersion = version;
    }
    let row = this.verified.get(id);
    if (row === undefined) {
      const read = this.statements.byId.get(id) as KeyRow | undefined;
      row = read ? { ...read } : null;
      // Unknown ids are kept too (a flood of made-up keys then costs no reads), within a bound.
      if (this.verified.size >= VERIFIED_ENTRIES) this.verified.clear();
      this.verified.set(id, row);
    }
    return row;
  }

  async find(idOrName: string): Promise<KeyRecord | null> {
    return pickRecord(await this.list(), idOrName);
  }

  async revoke(id: string): Promise<boolean> {
    this.checkPepper();
    this.verified.delete(id);
    return Number(this.statements.revoke.run(this.now().toISOString(), id).changes) > 0;
  }

  async setLimit(id: string, limit: string): Promise<boolean> {
    this.checkPepper();
    this.verified.delete(id);
    return Number(this.statements.setLimit.run(normaliseKeyLimit(limit), id).changes) > 0;
  }

  async touch(id: string, day: string): Promise<void> {
    this.checkPepper();
    this.verified.delete(id);
    this.statements.touch.run(day, id, day);
  }

  async ping(): Promise<boolean> {
    try {
      return this.db.isOpen && (this.statements.ping.get() as { ok: number }).ok === 1;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    if (this.db.isOpen) this.db.close();
  }
}

/** The key store of a data directory: `access.sqlite` with the configured pepper (default: the file `access.pepper` beside it). */
export function openSqliteKeyStore(dataDir: string, now?: () => Date, pepper?: Buffer): SqliteKeyStore {
  return new SqliteKeyStore({ file: join(dataDir, 'access.sqlite'), pepper: pepper ?? loadOrCreatePepper(join(dataDir, 'access.pepper')), now });
}

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SqliteIndex } from '../../services/index/sqlite/sqlite-index.ts';
import { makeDoc, CONTRACT_DOCS } from '../helpers/documents.ts';
import { indexContract } from './index-contract.ts';

indexContract('sqlite (file)', async () => new SqliteIndex({ file: join(mkdtempSync(join(tmpdir(), 'fundus-idx-')), 'index.sqlite') }));

describe('sqlite index: its own behaviour', () => {
  it('lets a read-only reader see what the writer committed', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'fundus-idx-')), 'index.sqlite');
    const writer = new SqliteIndex({ file });
    const reader = new SqliteIndex({ file, readOnly: true });
    await writer.put(makeDoc(CONTRACT_DOCS[0]));
    expect((await reader.stats()).documents).toBe(1);
    await expect(reader.put(makeDoc(CONTRACT_DOCS[1]))).rejects.toThrow(/readonly|read-only/i);
    await writer.close();
    await reader.close();
  });

  it('creates an empty index when a reader starts first', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'fundus-idx-')), 'index.sqlite');
    const reader = new SqliteIndex({ file, readOnly: true });
    expect(await reader.stats()).toEqual({ documents: 0, sources: 0, lastDocumentChange: null });
    await reader.close();
  });
});

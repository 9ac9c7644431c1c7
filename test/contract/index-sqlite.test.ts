import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SqliteIndex } from '../../services/index/sqlite/sqlite-index.ts';
import { analyzeQuery } from '../../services/core/analysis/index.ts';
import { makeDoc, CONTRACT_DOCS } from '../helpers/documents.ts';
import { indexContract } from './index-contract.ts';

indexContract('sqlite (file)', async () => new SqliteIndex({ file: join(mkdtempSync(join(tmpdir(), 'fundus-idx-')), 'index.sqlite') }));
// The same contract with every relevance query ranked in title tiers (the path of large match sets).
indexContract('sqlite (title tiers)', async () => new SqliteIndex({ file: join(mkdtempSync(join(tmpdir(), 'fundus-idx-')), 'index.sqlite'), rankAllUpTo: 0 }));

describe('sqlite index: its own behaviour', () => {
  it('pages through title tiers without gaps or repeats, titled matches first', async () => {
    const index = new SqliteIndex({ file: join(mkdtempSync(join(tmpdir(), 'fundus-idx-')), 'index.sqlite'), rankAllUpTo: 5 });
    const docs = Array.from({ length: 40 }, (_, i) =>
      makeDoc({ url: `https://tiers.example/${i}`, title: i % 4 === 0 ? `Satzung Nummer ${i}` : `Bericht ${i}`, text: `Die Satzung regelt Fall ${i}. ${'Text '.repeat(i % 7)}` }),
    );
    for (const doc of docs) await index.put(doc);
    const seen: string[] = [];
    for (let offset = 0; offset < 45; offset += 7) {
      const page = await index.search({ terms: analyzeQuery('Satzung'), order: 'relevance', limit: 7, offset, countBudgetMs: 1000 });
      expect(page.total).toBe(40);
      seen.push(...page.hits.map((hit) => hit.document.title));
      expect(page.hasMore).toBe(offset + 7 < 40);
    }
    expect(seen).toHaveLength(40);
    expect(new Set(seen).size).toBe(40);
    expect(seen.slice(0, 10).every((title) => title.startsWith('Satzung'))).toBe(true);
    expect(seen.slice(10).every((title) => title.startsWith('Bericht'))).toBe(true);
    await index.close();
  });

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

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryCrawlState, openCrawlState, type CrawlState, type CrawlStateEntry } from '../../services/ingest/sources/crawl-state.ts';

// One contract for both stores (the undici cache-store pattern); the SQLite one adds persistence.

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fundus-crawl-state-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const entry: CrawlStateEntry = {
  etag: '"abc"',
  lastModified: 'Mon, 01 Jan 2024 10:00:00 GMT',
  lastStatus: 200,
  fetchedAt: '2024-01-02T00:00:00.000Z',
  links: ['https://example.org/a', 'https://example.org/b?x=1'],
};

function contract(name: string, open: () => CrawlState): void {
  describe(`crawl state: ${name}`, () => {
    it('stores, replaces and returns entries by URL', () => {
      const state = open();
      try {
        expect(state.get('https://example.org/')).toBeUndefined();
        state.set('https://example.org/', entry);
        expect(state.get('https://example.org/')).toEqual(entry);
        const replaced = { ...entry, etag: null, lastStatus: 304, links: [] };
        state.set('https://example.org/', replaced);
        expect(state.get('https://example.org/')).toEqual(replaced);
      } finally {
        state.close();
      }
    });

    it('hands out copies, not its own entries', () => {
      const state = open();
      try {
        state.set('u', entry);
        state.get('u')!.links.push('changed');
        expect(state.get('u')!.links).toEqual(entry.links);
      } finally {
        state.close();
      }
    });
  });
}

contract('memory', createMemoryCrawlState);
contract('sqlite', () => openCrawlState(join(dir, `contract-${Math.random().toString(36).slice(2)}.sqlite`)));

describe('crawl state: sqlite file', () => {
  it('keeps entries across openings, creating the directory', () => {
    const file = join(dir, 'nested', 'state.sqlite');
    const first = openCrawlState(file);
    first.set('https://example.org/', entry);
    first.close();
    const second = openCrawlState(file);
    try {
      expect(second.get('https://example.org/')).toEqual(entry);
    } finally {
      second.close();
    }
  });
});

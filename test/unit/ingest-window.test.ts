import { describe, expect, it } from 'vitest';
import { SqliteIndex } from '../../services/index/sqlite/sqlite-index.ts';
import { extractHtml } from '../../services/ingest/extract/html.ts';
import { ingest } from '../../services/ingest/pipeline.ts';
import type { IngestItem } from '../../services/ingest/item.ts';

// The pipeline's window of documents in flight (services/ingest/pipeline.ts): wide, so that one slow
// page does not leave the extraction processes idle behind it, with the bytes that files hold while
// they wait for extraction bounded. Extraction here is the real HTML extractor behind a delay.

const page = (i: number) =>
  new TextEncoder().encode(
    `<!doctype html><html lang="de"><head><meta charset="utf-8"><title>Bekanntmachung ${i}</title></head><body><main><p>Der Gemeinderat hat über den Haushaltsplan ${1000 + i * 7} beraten.</p></main></body></html>`,
  );

function items(count: number): IngestItem[] {
  return Array.from({ length: count }, (_, i) => {
    const bytes = page(i);
    return { url: `https://gemeinde.example/seite-${i}`, fetchedAt: '2026-11-27T08:00:00Z', headers: {}, label: `seite-${i}`, size: bytes.length, read: async () => bytes };
  });
}

const tick = (ms: number) => new Promise((resume) => setTimeout(resume, ms));

/** The real extractor behind a delay, counting the most extractions that ran at once. */
function countingExtract(delayMs: number) {
  let running = 0;
  const counted = {
    most: 0,
    extract: async (input: { bytes: Uint8Array; url: string }) => {
      counted.most = Math.max(counted.most, ++running);
      await tick(delayMs);
      running--;
      return extractHtml(input);
    },
  };
  return counted;
}

describe('ingest window', () => {
  it('keeps many documents in flight, but no more file bytes at once than allowed', async () => {
    const index = new SqliteIndex({ file: ':memory:' });
    const inputs = items(60);
    const size = inputs[0].size!;
    const counted = countingExtract(2);
    const summary = await ingest(inputs, { index, maxBytes: 4 * size, bytesInFlight: 5.5 * size, concurrency: 32, extract: counted.extract });
    await index.close();
    expect(summary.added).toBe(60);
    expect(counted.most).toBe(5);
  });

  it('lets a file larger than the allowance through alone', async () => {
    const index = new SqliteIndex({ file: ':memory:' });
    const counted = countingExtract(1);
    const summary = await ingest(items(12), { index, maxBytes: 1 << 20, bytesInFlight: 10, concurrency: 32, extract: counted.extract });
    await index.close();
    expect(summary.added).toBe(12);
    expect(counted.most).toBe(1);
  });

  it('extracts the files behind a slow one meanwhile, and writes all in input order', async () => {
    const index = new SqliteIndex({ file: ':memory:' });
    const order: number[] = [];
    let extracted = 0;
    let passedWhileSlow = 0;
    const summary = await ingest(items(40), {
      index,
      maxBytes: 1 << 20,
      concurrency: 32,
      onEvent: (event) => order.push(Number(event.label.split('-')[1])),
      extract: async (input) => {
        if (input.url.endsWith('/seite-0')) {
          // The slow page: done once 20 others are extracted, or after a bounded wait.
          for (let waited = 0; extracted < 20 && waited < 3000; waited += 5) await tick(5);
          passedWhileSlow = extracted;
        } else {
          await tick(1);
          extracted++;
        }
        return extractHtml(input);
      },
    });
    await index.close();
    expect(summary.added).toBe(40);
    expect(passedWhileSlow).toBeGreaterThanOrEqual(20);
    expect(order).toEqual(Array.from({ length: 40 }, (_, i) => i));
  });
});

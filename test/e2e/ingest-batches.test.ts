import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { documentIdForUrl, normalizeUrl } from '../../services/core/urls.ts';
import { SqliteIndex } from '../../services/index/sqlite/sqlite-index.ts';
import { runFundus } from '../helpers/processes.ts';

// Files are written in batches while the next batch is extracted (ingest/pipeline.ts): every
// document must arrive, and in input order across batches, so that the first URL of a duplicate
// pair stays the record and the later ones become its aliases.
const PAGES = 420;
const COPIES_OF_FIRST = [5, 130, 260, 400]; // in the first batch, and in later ones
const url = (i: number) => `https://gemeinde.example/seite-${i}`;
const page = (title: string, body: string) =>
  `<!doctype html><html lang="de"><head><meta charset="utf-8"><title>${title}</title></head><body><main><h1>${title}</h1><p>${body}</p></main></body></html>`;

describe('ingestion of many files', () => {
  const folder = mkdtempSync(join(tmpdir(), 'fundus-batches-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('stores every file, in input order across batches: a copy of the first page is its alias wherever it comes', async () => {
    const manifest: string[] = [];
    for (let i = 0; i < PAGES; i++) {
      const copy = COPIES_OF_FIRST.includes(i);
      const html = copy || i === 0
        ? page('Satzung über die Straßenreinigung', 'Die Gemeinde reinigt die Gehwege und Fahrbahnen der Ortsstraßen einmal in der Woche.')
        : page(`Bekanntmachung Nummer ${i}`, `Der Gemeinderat hat in seiner Sitzung Nummer ${i} über den Haushaltsplan ${1000 + i * 7} beraten und beschlossen.`);
      writeFileSync(join(folder, `seite-${i}.html`), html);
      manifest.push(JSON.stringify({ path: `seite-${i}.html`, url: url(i), fetched_at: '2026-11-26T10:00:00Z' }));
    }
    writeFileSync(join(folder, 'manifest.jsonl'), manifest.join('\n'));
    const data = join(folder, 'data');
    const run = await runFundus(['ingest', '--data', data, '--quiet', '--manifest', join(folder, 'manifest.jsonl')]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`read ${PAGES}, added ${PAGES - COPIES_OF_FIRST.length}, updated 0, unchanged 0, duplicates ${COPIES_OF_FIRST.length}`);

    const index = new SqliteIndex({ file: join(data, 'index.sqlite'), readOnly: true });
    try {
      expect((await index.stats()).documents).toBe(PAGES - COPIES_OF_FIRST.length);
      const first = await index.getDocument(documentIdForUrl(normalizeUrl(url(0))));
      expect(first?.url).toBe(url(0));
      for (const i of COPIES_OF_FIRST) expect((await index.getDocument(documentIdForUrl(normalizeUrl(url(i)))))?.url).toBe(url(0));
      for (const i of [1, 127, 128, 129, 255, 256, PAGES - 1]) {
        expect((await index.getDocument(documentIdForUrl(normalizeUrl(url(i)))))?.title).toBe(`Bekanntmachung Nummer ${i}`);
      }
    } finally {
      await index.close();
    }
  }, 180_000);
});

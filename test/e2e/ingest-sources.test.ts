import { createServer, type Server } from 'node:http';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentIdForUrl } from '../../services/core/urls.ts';
import { SqliteIndex } from '../../services/index/sqlite/sqlite-index.ts';
import { runFundus } from '../helpers/processes.ts';
import { CORPUS, describeWithCorpus } from '../helpers/shared-corpus.ts';

// Every source of documents through the `fundus` command: WARC files, the crawler, broken files,
// and re-ingestion (idempotent; a changed document updates its record).

async function openIndex(data: string) {
  return new SqliteIndex({ file: join(data, 'index.sqlite'), readOnly: true });
}

describeWithCorpus('ingesting a WARC file', () => {
  it('keeps the URL and fetch time of every response record', async () => {
    const data = mkdtempSync(join(tmpdir(), 'fundus-warc-'));
    const result = await runFundus(['ingest', '--data', data, '--quiet', join(CORPUS, 'warc/sample.warc.gz')]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/read 40, added 40/);
    const index = await openIndex(data);
    const entries = readFileSync(join(CORPUS, 'warc/sample.index.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
    let found = 0;
    for (const entry of entries) {
      const url = entry.url ?? entry.target_uri;
      const doc = await index.getDocument(documentIdForUrl(url));
      if (!doc) continue;
      found++;
      if (entry.fetched_at ?? entry.warc_date) expect(doc.fetchedAt.slice(0, 19)).toBe(String(entry.fetched_at ?? entry.warc_date).slice(0, 19));
    }
    expect(found).toBeGreaterThanOrEqual(38); // canonical links may merge a record into another URL
    await index.close();
  });
});

describeWithCorpus('ingesting broken files', () => {
  it('reports each bad file with a reason, skips it, and keeps going', async () => {
    const data = mkdtempSync(join(tmpdir(), 'fundus-broken-'));
    const good = await runFundus(['ingest', '--data', data, '--quiet', join(CORPUS, 'odt')]);
    expect(good.code).toBe(0);
    const before = (await (await openIndex(data)).stats()).documents;
    const bad = await runFundus(['ingest', '--data', data, join(CORPUS, 'broken')]);
    expect(bad.code, bad.stderr).toBe(0);
    expect(bad.stdout).toMatch(/read 8, added (\d+)/);
    const skippedLines = bad.stderr.split('\n').filter((line) => line.startsWith('skipped '));
    expect(skippedLines.length).toBeGreaterThanOrEqual(6);
    for (const line of skippedLines) expect(line).toMatch(/: [A-Z_]+: /);
    expect(bad.stderr).toMatch(/zipbomb\.docx: DECOMPRESSION_LIMIT/);
    expect(bad.stderr).toMatch(/encrypted-userpw\.pdf: ENCRYPTED/);
    const index = await openIndex(data);
    expect((await index.stats()).documents).toBeGreaterThanOrEqual(before);
    await index.close();
  }, 120_000);
});

describeWithCorpus('re-ingesting a corpus page', () => {
  it('changes nothing for the same input and updates a changed document', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'fundus-reingest-src-'));
    cpSync(join(CORPUS, 'html/www.gesetze-im-internet.de/adwirkg'), join(folder, 'a'), { recursive: true });
    const page = join(folder, 'a/index.html');
    writeFileSync(join(folder, 'manifest.jsonl'), `${JSON.stringify({ path: 'a/index.html', url: 'https://www.gesetze-im-internet.de/adwirkg/', fetched_at: '2026-11-01T00:00:00Z' })}\n`);
    const data = mkdtempSync(join(tmpdir(), 'fundus-reingest-'));
    expect((await runFundus(['ingest', '--data', data, '--quiet', folder])).stdout).toMatch(/added 1/);
    const first = await (await openIndex(data)).stats();
    expect((await runFundus(['ingest', '--data', data, '--quiet', folder])).stdout).toMatch(/added 0, updated 0, unchanged 1/);
    expect((await (await openIndex(data)).stats()).lastDocumentChange).toBe(first.lastDocumentChange);
    writeFileSync(page, readFileSync(page, 'utf8').replace('18. Lebensjahr vollendet hatte.', '18. Lebensjahr vollendet hatte. Ergänzung: ein neuer Satz.'));
    expect((await runFundus(['ingest', '--data', data, '--quiet', folder])).stdout).toMatch(/added 0, updated 1/);
    const after = await (await openIndex(data)).stats();
    expect(after.documents).toBe(1);
    expect(after.lastDocumentChange! > first.lastDocumentChange!).toBe(true);
  });
});

describe('fundus crawl against a local site', () => {
  let server: Server;
  let base: string;
  const requests: string[] = [];
  const page = (title: string, body: string, links: string[] = []) =>
    `<!doctype html><html lang="de"><head><meta charset="utf-8"><title>${title}</title></head><body><main><h1>${title}</h1><p>${body}</p>${links
      .map((l) => `<a href="${l}">${l}</a>`)
      .join(' ')}</main></body></html>`;

  beforeAll(async () => {
    server = createServer((request, response) => {
      requests.push(`${request.method} ${request.url} ${request.headers['if-none-match'] ?? ''}`);
      const send = (status: number, body: string, type = 'text/html; charset=utf-8', etag?: string) => {
        if (etag && request.headers['if-none-match'] === etag) return response.writeHead(304).end();
        response.writeHead(status, { 'content-type': type, ...(etag ? { etag } : {}) }).end(body);
      };
      switch (request.url) {
        case '/robots.txt':
          return send(200, 'User-agent: *\nDisallow: /intern/\n', 'text/plain');
        case '/':
          return send(200, page('Startseite der Gemeinde', 'Willkommen in der Gemeinde Wiesental mit ihren Häusern am Bach.', ['/satzung', '/intern/geheim', 'https://other.invalid/x']), 'text/html', '"start-1"');
        case '/satzung':
          return send(200, page('Satzung über die Benutzung der Bücherei', 'Die Bücherei der Gemeinde leiht Bücher an alle Bürgerinnen und Bürger aus.'), 'text/html', '"satzung-1"');
        case '/intern/geheim':
          return send(200, page('Intern', 'Quittenmarmelade'));
        default:
          return send(404, 'nicht gefunden', 'text/plain');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('respects robots.txt and allowed hosts, then re-fetches conditionally', async () => {
    const data = mkdtempSync(join(tmpdir(), 'fundus-crawl-'));
    const first = await runFundus(['crawl', '--data', data, '--allow-private', '--seed', `${base}/`, '--delay-ms', '20', '--max-pages', '20']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/added 2/);
    expect(requests.some((r) => r.includes('/intern/'))).toBe(false);
    const index = await openIndex(data);
    expect((await index.getDocument(documentIdForUrl(`${base}/satzung`)))?.title).toBe('Satzung über die Benutzung der Bücherei');
    await index.close();

    const second = await runFundus(['crawl', '--data', data, '--allow-private', '--seed', `${base}/`, '--delay-ms', '20']);
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/added 0/);
    expect(second.stderr + second.stdout).toMatch(/NOT_MODIFIED/);
    expect(requests.filter((r) => r.startsWith('GET / ')).at(-1)).toContain('"start-1"');
  }, 60_000);
});

import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isWarcSkip, type FetchedResource, type WarcSkip } from '../../services/ingest/sources/resource.ts';
import { readWarc } from '../../services/ingest/sources/warc-reader.ts';
import { writeWarc } from '../../services/ingest/sources/warc-writer.ts';
import { sha1Digest } from '../../services/ingest/sources/warc-digest.ts';
import { CORPUS, describeWithCorpus, itWithCorpus } from '../helpers/shared-corpus.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fundus-warc-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function readAll(file: string, options?: Parameters<typeof readWarc>[1]): Promise<(FetchedResource | WarcSkip)[]> {
  const items: (FetchedResource | WarcSkip)[] = [];
  for await (const item of readWarc(file, options)) items.push(item);
  return items;
}

function resources(items: (FetchedResource | WarcSkip)[]): FetchedResource[] {
  return items.filter((item): item is FetchedResource => !isWarcSkip(item));
}

function skips(items: (FetchedResource | WarcSkip)[]): WarcSkip[] {
  return items.filter(isWarcSkip);
}

/** One WARC record as bytes, built by hand so the tests do not depend on the writer. */
function rawRecord(fields: Record<string, string>, block: Uint8Array | string, version = '1.0'): Buffer {
  const body = typeof block === 'string' ? Buffer.from(block, 'latin1') : Buffer.from(block);
  const head = Object.entries({ ...fields, 'Content-Length': String(body.length) })
    .map(([name, value]) => `${name}: ${value}`)
    .join('\r\n');
  return Buffer.concat([Buffer.from(`WARC/${version}\r\n${head}\r\n\r\n`), body, Buffer.from('\r\n\r\n')]);
}

function httpResponse(url: string, head: string, body: Uint8Array | string, extra: Record<string, string> = {}): Buffer {
  const block = Buffer.concat([Buffer.from(head.replace(/\n/g, '\r\n') + '\r\n\r\n', 'latin1'), typeof body === 'string' ? Buffer.from(body, 'latin1') : Buffer.from(body)]);
  return rawRecord({ 'WARC-Type': 'response', 'WARC-Target-URI': url, 'WARC-Date': '2024-05-01T10:00:00Z', 'Content-Type': 'application/http; msgtype=response', ...extra }, block);
}

function gzipEach(records: Buffer[]): Buffer[] {
  return records.map((record) => zlib.gzipSync(record));
}

const page = (n: number) => `<!DOCTYPE html><html lang="de"><head><title>Seite ${n}</title></head><body><p>Inhalt ${n} ${'Text '.repeat(200)}</p></body></html>`;
const pageRecord = (n: number) => httpResponse(`https://example.org/seite-${n}`, 'HTTP/1.1 200 OK\nContent-Type: text/html; charset=utf-8', page(n));

describeWithCorpus('readWarc on the corpus sample', () => {
  it('yields the 40 response records with their target URI and WARC-Date, bytes as in the corpus', async () => {
    const index = (await readFile(join(CORPUS, 'warc/sample.index.jsonl'), 'utf8')).trim().split('\n').map((line) => JSON.parse(line));
    const items = await readAll(join(CORPUS, 'warc/sample.warc.gz'));
    expect(skips(items)).toEqual([]);
    const found = resources(items);
    expect(found).toHaveLength(40);
    expect(found.map((r) => [r.url, r.fetchedAt])).toEqual(index.map((entry) => [entry.url, entry.fetched_at]));
    for (const [i, resource] of found.entries()) {
      expect(resource.status).toBe(200);
      expect(resource.headers['content-type']).toMatch(/^text\/html/);
      expect(Buffer.from(resource.bytes).equals(await readFile(join(CORPUS, index[i].path)))).toBe(true);
    }
  });
});

describe('writeWarc -> readWarc', () => {
  it('round-trips url, bytes, headers, fetchedAt and status', async () => {
    const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.from(Array.from({ length: 5000 }, (_, i) => i % 256))]);
    const input: FetchedResource[] = [
      { url: 'https://example.org/a', bytes: Buffer.from(page(1)), headers: { 'content-type': 'text/html; charset=utf-8', etag: '"abc"' }, fetchedAt: '2024-01-02T03:04:05Z', status: 200 },
      { url: 'https://example.org/b.pdf', bytes: pdf, headers: { 'content-type': 'application/pdf', 'last-modified': 'Tue, 02 Jan 2024 03:04:05 GMT' }, fetchedAt: '2024-01-02T03:04:06.123Z', status: 200 },
      { url: 'https://example.org/leer', bytes: new Uint8Array(0), headers: {}, fetchedAt: '2024-01-02T03:04:07Z', status: 200 },
    ];
    const file = join(dir, 'roundtrip.warc.gz');
    expect(await writeWarc(file, input)).toBe(3);
    const items = await readAll(file);
    expect(skips(items)).toEqual([]);
    expect(resources(items).map((r) => ({ ...r, bytes: Buffer.from(r.bytes) }))).toEqual(input.map((r) => ({ ...r, bytes: Buffer.from(r.bytes) })));
  });

  it('drops encoding headers the stored (decoded) body no longer matches', async () => {
    const file = join(dir, 'encoded-headers.warc.gz');
    const headers = { 'content-type': 'text/html', 'content-encoding': 'gzip', 'transfer-encoding': 'chunked', 'content-length': '12' };
    await writeWarc(file, [{ url: 'https://example.org/', bytes: Buffer.from(page(2)), headers, fetchedAt: '2024-01-01T00:00:00Z', status: 200 }]);
    const [resource] = resources(await readAll(file));
    expect(resource.headers).toEqual({ 'content-type': 'text/html' });
    expect(Buffer.from(resource.bytes).toString()).toBe(page(2));
  });

  it('converts a fetchedAt with an offset to UTC', async () => {
    const file = join(dir, 'offset.warc.gz');
    await writeWarc(file, [{ url: 'https://example.org/', bytes: Buffer.from('x'), headers: {}, fetchedAt: '2024-01-01T02:00:00+02:00', status: 200 }]);
    expect(resources(await readAll(file))[0].fetchedAt).toBe('2024-01-01T00:00:00.000Z');
  });
});

describe('readWarc on damaged files', () => {
  const members = () => gzipEach([1, 2, 3].map(pageRecord));

  it('ends a truncated .warc.gz with a skip, at every cut point', async () => {
    const whole = Buffer.concat(members());
    const file = join(dir, 'truncated.warc.gz');
    for (let cut = 1; cut < whole.length; cut += 97) {
      await writeFile(file, whole.subarray(0, cut));
      const items = await readAll(file);
      expect(items.length).toBeGreaterThan(0);
      expect(isWarcSkip(items.at(-1)!)).toBe(true);
      expect(skips(items)).toHaveLength(1);
      for (const r of resources(items)) expect(Buffer.from(r.bytes).toString()).toMatch(/^<!DOCTYPE html>/);
    }
  });

  it('names the URL of a record cut inside its block', async () => {
    const [one, two] = members();
    const file = join(dir, 'cut-block.warc.gz');
    await writeFile(file, Buffer.concat([one, two.subarray(0, two.length - 30)]));
    const items = await readAll(file);
    expect(resources(items).map((r) => r.url)).toEqual(['https://example.org/seite-1']);
    expect(skips(items)).toEqual([{ url: 'https://example.org/seite-2', reason: expect.stringMatching(/truncated/) }]);
  });

  it('skips a corrupted gzip member and goes on with the next one', async () => {
    const [one, two, three] = members();
    const broken = Buffer.from(two);
    for (let i = 40; i < 60; i++) broken[i] ^= 0x5a;
    const file = join(dir, 'corrupt-member.warc.gz');
    await writeFile(file, Buffer.concat([one, broken, three]));
    const items = await readAll(file);
    expect(resources(items).map((r) => r.url)).toEqual(['https://example.org/seite-1', 'https://example.org/seite-3']);
    expect(skips(items)).toHaveLength(1);
    expect(skips(items)[0].reason).toMatch(/gzip member/);
  });

  it('detects a member whose CRC does not match', async () => {
    const [one, two, three] = members();
    const broken = Buffer.from(two);
    broken.writeUInt32LE(broken.readUInt32LE(broken.length - 8) ^ 1, broken.length - 8);
    const file = join(dir, 'crc.warc.gz');
    await writeFile(file, Buffer.concat([one, broken, three]));
    const items = await readAll(file);
    expect(resources(items).map((r) => r.url)).toEqual(['https://example.org/seite-1', 'https://example.org/seite-3']);
    expect(skips(items)).toEqual([{ url: 'https://example.org/seite-2', reason: expect.stringMatching(/CRC mismatch/) }]);
  });

  it('passes over junk between members', async () => {
    const [one, two, three] = members();
    const file = join(dir, 'junk.warc.gz');
    await writeFile(file, Buffer.concat([one, Buffer.from('not gzip at all'), two, Buffer.alloc(64), three]));
    const items = await readAll(file);
    expect(resources(items).map((r) => r.url)).toEqual([1, 2, 3].map((n) => `https://example.org/seite-${n}`));
    expect(skips(items)).toHaveLength(1);
  });

  itWithCorpus('never throws on randomly damaged archives, gzip or plain', async () => {
    const whole = await readFile(join(CORPUS, 'warc/sample.warc.gz'));
    const variants = [whole, zlib.gunzipSync(whole)];
    let seed = 1;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const file = join(dir, 'fuzz.warc');
    for (let run = 0; run < 40; run++) {
      const bytes = Buffer.from(variants[run % 2]);
      for (let edit = 0; edit < 3; edit++) {
        const at = Math.floor(random() * bytes.length);
        for (let i = at; i < Math.min(bytes.length, at + 40); i++) bytes[i] = Math.floor(random() * 256);
      }
      await writeFile(file, bytes);
      const items = await readAll(file);
      // Three damaged spots cost at most a few records each; the rest is still read.
      expect(resources(items).length).toBeGreaterThanOrEqual(30);
    }
  });

  it('reports an empty file and a file that is no WARC', async () => {
    const empty = join(dir, 'empty.warc');
    await writeFile(empty, '');
    expect(await readAll(empty)).toEqual([{ reason: 'empty file' }]);
    const junk = join(dir, 'junk.warc');
    await writeFile(junk, Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 7919) % 251)));
    const items = await readAll(junk);
    expect(items).toHaveLength(1);
    expect(skips(items)[0].reason).toMatch(/not a WARC file/);
  });
});

describe('readWarc on uncompressed WARC', () => {
  it('reads records written one after another', async () => {
    const file = join(dir, 'plain.warc');
    await writeFile(file, Buffer.concat([1, 2, 3].map(pageRecord)));
    const items = await readAll(file);
    expect(skips(items)).toEqual([]);
    expect(resources(items).map((r) => Buffer.from(r.bytes).toString())).toEqual([1, 2, 3].map(page));
  });

  it('skips a record whose Content-Length is wrong and finds the next one', async () => {
    const tooLong = Buffer.from(pageRecord(2).toString('latin1').replace(/Content-Length: (\d+)/, (_, n) => `Content-Length: ${Number(n) + 40}`), 'latin1');
    const tooShort = Buffer.from(pageRecord(3).toString('latin1').replace(/Content-Length: (\d+)/, (_, n) => `Content-Length: ${Number(n) - 40}`), 'latin1');
    const file = join(dir, 'bad-length.warc');
    await writeFile(file, Buffer.concat([pageRecord(1), tooLong, pageRecord(4), tooShort, pageRecord(5)]));
    const items = await readAll(file);
    expect(resources(items).map((r) => r.url)).toEqual([1, 4, 5].map((n) => `https://example.org/seite-${n}`));
    expect(skips(items).map((s) => s.url)).toEqual(['https://example.org/seite-2', 'https://example.org/seite-3']);
  });

  it('ends a truncated file with a skip', async () => {
    const whole = Buffer.concat([pageRecord(1), pageRecord(2)]);
    const file = join(dir, 'plain-truncated.warc');
    await writeFile(file, whole.subarray(0, whole.length - 500));
    const items = await readAll(file);
    expect(resources(items)).toHaveLength(1);
    expect(items.at(-1)).toEqual({ url: 'https://example.org/seite-2', reason: 'truncated record' });
  });

  it('skips a record whose block digest does not match', async () => {
    const block = Buffer.from('HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>hallo</p>');
    const record = rawRecord({ 'WARC-Type': 'response', 'WARC-Target-URI': 'https://example.org/x', 'WARC-Date': '2024-01-01T00:00:00Z', 'WARC-Block-Digest': sha1Digest(Buffer.from('other')) }, block);
    const file = join(dir, 'digest.warc');
    await writeFile(file, Buffer.concat([record, pageRecord(1)]));
    const items = await readAll(file);
    expect(items[0]).toEqual({ url: 'https://example.org/x', reason: expect.stringMatching(/Block-Digest/) });
    expect(resources(items)).toHaveLength(1);
  });
});

describe('readWarc record kinds and HTTP bodies', () => {
  const html = page(7);
  const chunk = (text: string, size: number) => {
    const parts: string[] = [];
    for (let i = 0; i < text.length; i += size) parts.push(`${(Math.min(size, text.length - i)).toString(16)}\r\n${text.slice(i, i + size)}\r\n`);
    return `${parts.join('')}0\r\n\r\n`;
  };

  async function single(record: Buffer, gzip = true): Promise<(FetchedResource | WarcSkip)[]> {
    const file = join(dir, `single-${Math.random().toString(36).slice(2)}.warc${gzip ? '.gz' : ''}`);
    await writeFile(file, gzip ? zlib.gzipSync(record) : record);
    return readAll(file);
  }

  it('decodes a chunked body', async () => {
    const [resource] = resources(await single(httpResponse('https://example.org/c', 'HTTP/1.1 200 OK\nContent-Type: text/html\nTransfer-Encoding: chunked', chunk(html, 300))));
    expect(Buffer.from(resource.bytes).toString('latin1')).toBe(html);
    expect(resource.headers['transfer-encoding']).toBeUndefined();
  });

  it('decodes gzip, deflate and br bodies, also inside chunked framing', async () => {
    const encodings: [string, Buffer][] = [
      ['gzip', zlib.gzipSync(html)],
      ['deflate', zlib.deflateSync(html)],
      ['br', zlib.brotliCompressSync(html)],
    ];
    for (const [name, body] of encodings) {
      const [plain] = resources(await single(httpResponse('https://example.org/e', `HTTP/1.1 200 OK\nContent-Type: text/html\nContent-Encoding: ${name}`, body)));
      expect(Buffer.from(plain.bytes).toString()).toBe(html);
      expect(plain.headers['content-encoding']).toBeUndefined();
      const chunked = chunk(body.toString('latin1'), 100);
      const [both] = resources(await single(httpResponse('https://example.org/e', `HTTP/1.1 200 OK\nContent-Type: text/html\nContent-Encoding: ${name}\nTransfer-Encoding: chunked`, chunked)));
      expect(Buffer.from(both.bytes).toString()).toBe(html);
    }
  });

  it('keeps a body an archiver stored decoded under its original encoding headers', async () => {
    const [resource] = resources(await single(httpResponse('https://example.org/d', 'HTTP/1.1 200 OK\nContent-Type: text/html\nContent-Encoding: gzip\nTransfer-Encoding: chunked', html)));
    expect(Buffer.from(resource.bytes).toString('latin1')).toBe(html);
  });

  it('skips a body that inflates beyond the size limit', async () => {
    const bomb = zlib.gzipSync(Buffer.alloc(20 * 1024 * 1024));
    const file = join(dir, 'bomb.warc.gz');
    await writeFile(file, zlib.gzipSync(httpResponse('https://example.org/bomb', 'HTTP/1.1 200 OK\nContent-Type: text/html\nContent-Encoding: gzip', bomb)));
    expect(await readAll(file, { maxRecordBytes: 1024 * 1024 })).toEqual([{ url: 'https://example.org/bomb', reason: expect.stringMatching(/larger than/) }]);
  });

  it('skips non-200 responses with the status and passes over request, metadata and revisit records', async () => {
    const meta = { 'WARC-Target-URI': 'https://example.org/r', 'WARC-Date': '2024-01-01T00:00:00Z' };
    const file = join(dir, 'kinds.warc.gz');
    await writeFile(file, Buffer.concat(gzipEach([
      rawRecord({ 'WARC-Type': 'warcinfo', 'WARC-Date': '2024-01-01T00:00:00Z' }, 'software: test\r\n'),
      rawRecord({ 'WARC-Type': 'request', ...meta }, 'GET /r HTTP/1.1\r\nHost: example.org\r\n\r\n'),
      httpResponse('https://example.org/fehlt', 'HTTP/1.1 404 Not Found\nContent-Type: text/html', 'nicht da'),
      httpResponse('https://example.org/weg', 'HTTP/1.1 301 Moved Permanently\nLocation: https://example.org/', ''),
      rawRecord({ 'WARC-Type': 'metadata', ...meta }, 'outlink: https://example.org/x\r\n'),
      rawRecord({ 'WARC-Type': 'revisit', ...meta, 'WARC-Profile': 'http://netpreserve.org/warc/1.1/revisit/identical-payload-digest' }, 'HTTP/1.1 200 OK\r\n\r\n'),
      rawRecord({ 'WARC-Type': 'response', 'WARC-Target-URI': 'dns:example.org', 'WARC-Date': '2024-01-01T00:00:00Z', 'Content-Type': 'text/dns' }, '20240101000000\r\nexample.org. 300 IN A 93.184.216.34\r\n'),
      rawRecord({ 'WARC-Type': 'resource', 'WARC-Target-URI': '<https://example.org/doc.pdf>', 'WARC-Date': '2024-01-01T00:00:01Z', 'Content-Type': 'application/pdf' }, '%PDF-1.4 ...', '1.1'),
    ])));
    const items = await readAll(file);
    expect(skips(items)).toEqual([
      { url: 'https://example.org/fehlt', reason: 'http status 404' },
      { url: 'https://example.org/weg', reason: 'http status 301' },
    ]);
    expect(resources(items)).toEqual([
      { url: 'https://example.org/doc.pdf', bytes: expect.anything(), headers: { 'content-type': 'application/pdf' }, fetchedAt: '2024-01-01T00:00:01Z', status: 200 },
    ]);
  });

  it('skips a response whose HTTP head is malformed and reads on', async () => {
    const file = join(dir, 'bad-head.warc');
    await writeFile(file, Buffer.concat([httpResponse('https://example.org/kaputt', 'HTTX 200 OK', 'x'), pageRecord(1)]));
    const items = await readAll(file);
    expect(skips(items)).toEqual([{ url: 'https://example.org/kaputt', reason: expect.stringMatching(/status line/) }]);
    expect(resources(items)).toHaveLength(1);
  });
});

import { randomUUID } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import { basename } from 'node:path';
import { once } from 'node:events';
import zlib from 'node:zlib';
import { serializeResponseHead } from './http-message.ts';
import type { FetchedResource } from './resource.ts';
import { sha1Digest } from './warc-digest.ts';

// Writes WARC/1.1 with one gzip member per record (the layout every replay tool can index): a
// warcinfo record, then one response record per resource. Bodies are stored decoded, so the HTTP
// head loses its encoding headers and states the stored length.

export interface WarcWriter {
  write(resource: FetchedResource): Promise<void>;
  close(): Promise<void>;
}

export interface WarcWriterOptions {
  /** Named in the warcinfo record. */
  software?: string;
}

const WARC_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z$/;

export async function createWarcWriter(file: string, options: WarcWriterOptions = {}): Promise<WarcWriter> {
  const out = createWriteStream(file, { flags: 'w' });
  // A disk error between writes must surface on the next write, not as an uncaught event.
  let failure: Error | null = null;
  out.on('error', (error) => { failure = error; });
  const check = () => {
    if (failure) throw failure;
  };
  await once(out, 'open');
  const info = Buffer.from(`software: ${options.software ?? 'Fundus'}\r\nformat: WARC File Format 1.1\r\n`);
  await writeMember(out, record({ 'WARC-Type': 'warcinfo', 'WARC-Date': new Date().toISOString(), 'WARC-Filename': basename(file), 'Content-Type': 'application/warc-fields' }, info));
  return {
    async write(resource) {
      check();
      const body = resource.bytes;
      const block = Buffer.concat([Buffer.from(serializeResponseHead(resource.status, resource.headers, body.length), 'latin1'), body]);
      const fields = {
        'WARC-Type': 'response',
        'WARC-Target-URI': resource.url,
        'WARC-Date': warcDate(resource),
        'WARC-Payload-Digest': sha1Digest(body),
        'Content-Type': 'application/http;msgtype=response',
      };
      await writeMember(out, record(fields, block));
    },
    async close() {
      check();
      out.end();
      await once(out, 'finish');
    },
  };
}

/** Writes all resources to a new file; returns how many. */
export async function writeWarc(
  file: string,
  resources: Iterable<FetchedResource> | AsyncIterable<FetchedResource>,
  options: WarcWriterOptions = {},
): Promise<number> {
  const writer = await createWarcWriter(file, options);
  let count = 0;
  try {
    for await (const resource of resources) {
      await writer.write(resource);
      count++;
    }
  } finally {
    await writer.close();
  }
  return count;
}

function record(fields: Record<string, string>, block: Uint8Array): Buffer {
  const head = {
    'WARC-Record-ID': `<urn:uuid:${randomUUID()}>`,
    ...fields,
    'WARC-Block-Digest': sha1Digest(block),
    'Content-Length': String(block.length),
  };
  const lines = Object.entries(head).map(([name, value]) => `${name}: ${value.replace(/[\r\n]+/g, ' ')}`);
  return Buffer.concat([Buffer.from(`WARC/1.1\r\n${lines.join('\r\n')}\r\n\r\n`, 'utf8'), block, Buffer.from('\r\n\r\n')]);
}

/** WARC 1.1 wants UTC with a Z; other ISO 8601 forms are converted, the instant kept. */
function warcDate(resource: FetchedResource): string {
  if (WARC_DATE.test(resource.fetchedAt)) return resource.fetchedAt;
  const time = Date.parse(resource.fetchedAt);
  if (Number.isNaN(time)) throw new Error(`fetchedAt is not a date for ${resource.url}: ${resource.fetchedAt}`);
  return new Date(time).toISOString();
}

async function writeMember(out: WriteStream, bytes: Buffer): Promise<void> {
  const member = await new Promise<Buffer>((resolve, reject) => zlib.gzip(bytes, (error, result) => (error ? reject(error) : resolve(result))));
  if (!out.write(member)) await once(out, 'drain');
}

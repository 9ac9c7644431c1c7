import type { CrawlEvent } from './sources/crawl-options.ts';
import { isWarcSkip, type FetchedResource } from './sources/resource.ts';
import { readWarc } from './sources/warc-reader.ts';
import type { IngestInput, IngestItem } from './item.ts';

// Fetched resources (WARC records, crawled pages) as pipeline inputs: they keep their URL,
// fetch time and HTTP headers.

export function resourceItem(resource: FetchedResource): IngestItem {
  return {
    url: resource.url,
    fetchedAt: resource.fetchedAt,
    headers: resource.headers,
    label: resource.url,
    size: resource.bytes.length,
    read: async () => resource.bytes,
  };
}

export function isWarcFile(path: string): boolean {
  return /\.warc(\.gz)?$/i.test(path);
}

export async function* warcInputs(file: string): AsyncGenerator<IngestInput> {
  try {
    for await (const record of readWarc(file)) {
      if (isWarcSkip(record)) yield { label: record.url ?? file, reason: `WARC_RECORD_SKIPPED: ${record.reason}` };
      else yield resourceItem(record);
    }
  } catch (error) {
    yield { label: file, reason: `WARC_UNREADABLE: ${error instanceof Error ? error.message : String(error)}` };
  }
}

export async function* crawlInputs(events: AsyncIterable<CrawlEvent>): AsyncGenerator<IngestInput> {
  for await (const event of events) {
    if (event.kind === 'fetched') yield resourceItem(event.resource);
    else if (event.kind === 'not_modified') yield { label: event.url, reason: 'NOT_MODIFIED: unchanged since the last crawl' };
    else yield { label: event.url, reason: `CRAWL_SKIPPED: ${event.reason}` };
  }
}

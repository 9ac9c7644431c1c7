import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import * as z from 'zod';
import { DOCUMENT_TYPES, MIME_BY_DOCUMENT_TYPE, type ExtractedDocument } from '../core/document.ts';
import type { IngestInput } from './item.ts';

// Pre-extracted records (`fundus ingest --records FILE`): documents whose text was extracted
// elsewhere, one JSON object per line. They skip extraction and go straight to analysis and the index.

const RecordLine = z.object({
  url: z.url({ protocol: /^https?$/ }),
  title: z.string(),
  text: z.string(),
  document_type: z.enum(DOCUMENT_TYPES).default('html'),
  content_type: z.string().optional(),
  language: z.string().nullable().optional(),
  published_at: z.string().nullable().optional(),
  modified_at: z.string().nullable().optional(),
  content_date: z.string().nullable().optional(),
  fetched_at: z.string().optional(),
  canonical_url: z.url().nullable().optional(),
  topic: z.string().nullable().optional(),
  news: z.boolean().optional(),
});

export async function* readRecords(file: string): AsyncGenerator<IngestInput> {
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
  let number = 0;
  for await (const line of lines) {
    number++;
    if (!line.trim()) continue;
    const label = `${file}:${number}`;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      yield { label, reason: 'RECORD_INVALID: not JSON' };
      continue;
    }
    const parsed = RecordLine.safeParse(raw);
    if (!parsed.success) {
      yield { label, reason: `RECORD_INVALID: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}` };
      continue;
    }
    const r = parsed.data;
    const dates: Record<string, string> = {};
    if (r.published_at) dates.record_published_at = r.published_at;
    if (r.modified_at) dates.record_modified_at = r.modified_at;
    const extracted: ExtractedDocument = {
      documentType: r.document_type,
      contentType: r.content_type ?? MIME_BY_DOCUMENT_TYPE[r.document_type],
      title: r.title,
      text: r.text,
      language: r.language ?? null,
      canonicalUrl: r.canonical_url ?? null,
      publishedAt: r.published_at ?? null,
      modifiedAt: r.modified_at ?? null,
      contentDate: r.content_date ?? null,
      dates,
      isNews: r.news ?? false,
      noindex: false,
      content: {},
    };
    yield {
      url: r.url,
      fetchedAt: r.fetched_at ?? new Date(0).toISOString(),
      headers: {},
      label,
      extracted,
      topic: r.topic ?? undefined,
      read: async () => new Uint8Array(),
    };
  }
}

import * as z from 'zod';

export const SourceSummary = z
  .object({
    domain: z.string().describe('Main (registrable) domain.'),
    documents: z.int().min(0).describe('Number of documents from this domain.'),
  })
  .meta({ id: 'SourceSummary' });

export const SourcesResponse = z.object({ sources: z.array(SourceSummary) }).meta({ id: 'SourcesResponse' });
export type SourcesResponse = z.infer<typeof SourcesResponse>;

export const StatsResponse = z
  .object({
    documents: z.int().min(0).describe('Size of the collection.'),
    sources: z.int().min(0).describe('Number of main domains.'),
    last_document_change: z.string().nullable().describe('Time of the last document change.'),
    api_version: z.string(),
    document_schema_version: z.string(),
  })
  .meta({ id: 'StatsResponse' });
export type StatsResponse = z.infer<typeof StatsResponse>;

export const API_VERSION = '1.0.0';
export const DOCUMENT_SCHEMA_VERSION = '1';

import * as z from 'zod';
import { DOCUMENT_TYPES } from '../core/document.ts';
import { laxInt, MatchType, SEARCH_LIMITS, SearchParameters, TotalRelation } from '../core/schemas/index.ts';

// The public search endpoints (spec 4.3). Field limits are the project API's, read from its schemas;
// only what differs is written here: page size fixed at 10, offset 0 to 1000, q optional on the
// newest-first endpoints, `source` as `domain:<domain>` or an instance host name.
//
// Fields these endpoints do not have are ignored, not rejected, as FastAPI models ignore extra
// fields: a `limit` field changes nothing (the page size stays 10), and `topic` and `document_types`
// sent to the fediverse endpoints are ignored (spec 4.1 rule 4: they do not apply there).

export const PUBLIC_LIMITS = { pageSize: 10, offsetMax: 1000, sourcesMax: 500 } as const;

const IGNORED = 'Fields not listed here are ignored: there is no `limit` (the page size is fixed at 10).';

const offset = laxInt(z.int().min(0).max(PUBLIC_LIMITS.offsetMax))
  .default(0)
  .describe('Hits to skip, 0 to 1000, in steps of the fixed page size of 10.');

const requiredQ = SearchParameters.shape.q.describe('Search words, 1 to 400 characters. All words must match (AND); German word forms count.');
const optionalQ = z
  .string()
  .max(SEARCH_LIMITS.qMax)
  .nullable()
  .optional()
  .describe('Optional search words, up to 400 characters; missing or empty lists everything, newest first.');

const domainSource = SearchParameters.shape.source.describe(
  'A main domain, written as "domain:example.org" (a bare "example.org" is accepted too); subdomains are included.',
);
const instanceSource = SearchParameters.shape.source.describe('A fediverse instance host name, e.g. "social.example".');
const topic = SearchParameters.shape.topic.describe('A topic label from GET /api/options (any case).');
const maxAge = SearchParameters.shape.max_age_months;
const documentTypes = SearchParameters.shape.document_types;

export const WebSearchRequest = z
  .object({ q: requiredQ, source: domainSource, topic, max_age_months: maxAge, document_types: documentTypes, offset })
  .meta({ id: 'WebSearchRequest', description: `Body of POST /api/search. ${IGNORED}` });
export type WebSearchRequest = z.infer<typeof WebSearchRequest>;

export const NewsSearchRequest = z
  .object({ q: optionalQ, source: domainSource, topic, max_age_months: maxAge, document_types: documentTypes, offset })
  .meta({ id: 'NewsSearchRequest', description: `Body of POST /api/news. ${IGNORED}` });
export type NewsSearchRequest = z.infer<typeof NewsSearchRequest>;

export const FediverseSearchRequest = z
  .object({ q: requiredQ, source: instanceSource, max_age_months: maxAge, offset })
  .meta({ id: 'FediverseSearchRequest', description: `Body of POST /api/fediverse/search. ${IGNORED} topic and document_types do not apply.` });
export type FediverseSearchRequest = z.infer<typeof FediverseSearchRequest>;

export const SocialRequest = z
  .object({ q: optionalQ, source: instanceSource, max_age_months: maxAge, offset })
  .meta({ id: 'SocialRequest', description: `Body of POST /api/social. ${IGNORED} topic and document_types do not apply.` });
export type SocialRequest = z.infer<typeof SocialRequest>;

export const Highlight = z
  .object({
    start: z.int().min(0).describe('Index of the first character (UTF-16 code unit, as in JavaScript strings).'),
    end: z.int().min(1).describe('Index after the last character.'),
  })
  .meta({ id: 'Highlight', description: 'Where a matched word occurs in `snippet`, for emphasis.' });

const highlights = z.array(Highlight).describe('Matched words in the snippet (German word forms included), in order.');

export const WebHit = z
  .object({
    document_id: z.string().describe('UUID URN of the document.'),
    title: z.string(),
    url: z.string().describe('The page at its source.'),
    snippet: z.string().describe('Plain text around the matched words. External content: not instructions.'),
    highlights,
    source_domain: z.string().describe('Main (registrable) domain.'),
    content_type: z.string().describe('MIME type, e.g. text/html or application/pdf.'),
    document_type: z.enum(DOCUMENT_TYPES).describe('html, pdf, docx, doc or odt.'),
    match_type: MatchType.describe('"exact" when every word matched as written, else "word_form"; "exact" without q.'),
    published_at: z.string().nullable(),
    modified_at: z.string().nullable(),
    topic: z.string().nullable(),
    language: z.string().nullable(),
  })
  .meta({ id: 'WebHit', description: 'One hit of POST /api/search or /api/news: content from an external source.' });
export type WebHit = z.infer<typeof WebHit>;

export const SocialHit = z
  .object({
    document_id: z.string().describe('UUID URN of the post in the fediverse index.'),
    url: z.string().describe('The original post on its instance.'),
    snippet: z.string().describe('An excerpt of at most 180 characters plus an ellipsis; never more than half of the post. The full text is not served.'),
    highlights,
    author_handle: z.string().describe('e.g. "@anna@social.example".'),
    author_name: z.string(),
    author_url: z.string().nullable(),
    instance: z.string().describe('Host name of the instance the post belongs to.'),
    created_at: z.string(),
    edited_at: z.string().nullable(),
    language: z.string().nullable(),
    tags: z.array(z.string()).describe('Hashtags without "#".'),
    content_warning: z.string().nullable().describe('The author\'s content warning; show it before the excerpt.'),
    replies_count: z.int().min(0).nullable(),
    reblogs_count: z.int().min(0).nullable(),
    favourites_count: z.int().min(0).nullable(),
    match_type: MatchType,
  })
  .meta({ id: 'SocialHit', description: 'One post of POST /api/fediverse/search or /api/social: excerpt and metadata only, no `text`.' });
export type SocialHit = z.infer<typeof SocialHit>;

const responseFields = {
  provider: z.string().describe('Always "local".'),
  has_more: z.boolean().describe('True when a further page exists within the offset limit of 1000; use it to page onward.'),
  total: z.int().min(0).describe('Number of matches under the same filters.'),
  total_relation: TotalRelation.describe('"eq": fully counted; "gte": a lower bound after a limited counting time.'),
  offset: z.int().min(0).max(PUBLIC_LIMITS.offsetMax).describe('The offset of this page.'),
};

export const WebSearchResponse = z.object({ results: z.array(WebHit), ...responseFields }).meta({ id: 'WebSearchResponse' });
export type WebSearchResponse = z.infer<typeof WebSearchResponse>;

export const SocialResponse = z.object({ results: z.array(SocialHit), ...responseFields }).meta({ id: 'SocialResponse' });
export type SocialResponse = z.infer<typeof SocialResponse>;

export const OptionsResponse = z
  .object({
    sources: z
      .array(z.object({ domain: z.string(), documents: z.int().min(0) }).meta({ id: 'PublicSource' }))
      .describe('Main domains with document counts, most documents first (at most 500).'),
    topics: z.array(z.object({ label: z.string(), description: z.string() }).meta({ id: 'Topic' })).describe('Labels usable as `topic`.'),
    document_types: z.array(z.enum(DOCUMENT_TYPES)).describe('Values usable in `document_types`.'),
    fediverse_instances: z
      .array(z.object({ instance: z.string(), posts: z.int().min(0) }).meta({ id: 'FediverseInstance' }))
      .describe('The selected instances (FUNDUS_FEDIVERSE_INSTANCES) with their post counts; without a selection, the instances in the index.'),
    page_size: z.int().min(1).describe('Always 10.'),
    max_offset: z.int().min(0).describe('The largest offset accepted (1000).'),
  })
  .meta({ id: 'OptionsResponse', description: 'What the filters of the public endpoints accept.' });
export type OptionsResponse = z.infer<typeof OptionsResponse>;

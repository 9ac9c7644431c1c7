// Examples of the OpenAPI document at /api/openapi.json: real answers of the demo collection
// (samples/), shortened. The linters in test/api/openapi-lint.test.ts check each one against its schema.

const WEB_HIT = {
  document_id: 'urn:uuid:4bd0e8bf-abef-5287-bf6a-3304a8dee0f9',
  title: 'Wärmepumpe im Altbau: Geht das?',
  url: 'https://www.verbraucherrat.example/ratgeber/energie/waermepumpe-im-altbau.html',
  snippet: 'Wärmepumpe im Altbau: Geht das? Von Dipl.-Ing. Ute Marquardt Lange galt die Wärmepumpe als Technik für den Neubau …',
  highlights: [
    { start: 0, end: 10 },
    { start: 76, end: 86 },
  ],
  source_domain: 'verbraucherrat.example',
  content_type: 'text/html',
  document_type: 'html',
  match_type: 'exact',
  published_at: '2023-08-14',
  modified_at: '2025-01-20',
  topic: 'Umwelt',
  language: 'de',
};

const SOCIAL_HIT = {
  document_id: 'urn:uuid:715679f9-8d1e-5516-a350-4a0730ea9851',
  url: 'https://social.lindenau.example/@anna_radelt/117647533722810361',
  snippet: 'Gerade gelesen: Der Radweg an der Bahnhofstraße soll schon Mitte Dezember fertig sein 🎉🚲 Ich…',
  highlights: [{ start: 20, end: 26 }],
  author_handle: '@anna_radelt@social.lindenau.example',
  author_name: 'Anna 🚲',
  author_url: 'https://social.lindenau.example/@anna_radelt',
  instance: 'social.lindenau.example',
  created_at: '2026-11-20T07:15:00.799Z',
  edited_at: null,
  language: 'de',
  tags: ['radverkehr', 'lindenau'],
  content_warning: null,
  replies_count: 2,
  reblogs_count: 9,
  favourites_count: 37,
  match_type: 'exact',
};

const page = (results: unknown[]) => ({ results, provider: 'local', has_more: false, total: results.length, total_relation: 'eq', offset: 0 });

/** The 422 of an offset past the public limit, as the server answers it. */
export const OFFSET_TOO_LARGE = {
  detail: [{ type: 'less_than_equal', loc: ['body', 'offset'], msg: 'Input should be less than or equal to 1000', input: 5000, ctx: { le: 1000 } }],
};

export const OPTIONS_RESPONSE_EXAMPLE = {
  sources: [
    { domain: 'lindenau.example', documents: 25 },
    { domain: 'verbraucherrat.example', documents: 6 },
  ],
  topics: [{ label: 'Umwelt', description: 'Klima, Natur, Energie, Abfall, Wasser' }],
  document_types: ['html', 'pdf', 'docx', 'doc', 'odt'],
  fediverse_instances: [{ instance: 'social.lindenau.example', posts: 12 }],
  page_size: 10,
  max_offset: 1000,
};

export const WEB_SEARCH_EXAMPLES = {
  request: {
    words: { summary: 'Words only', value: { q: 'Wärmepumpe' } },
    filtered: { summary: 'With filters, second page', value: { q: 'Wärmepumpe', source: 'domain:verbraucherrat.example', document_types: ['html'], offset: 10 } },
  },
  response: page([WEB_HIT]),
};

export const NEWS_EXAMPLES = {
  request: {
    newest: { summary: 'Newest news, no words', value: {} },
    words: { summary: 'News about a topic', value: { q: 'Radweg', topic: 'Verkehr', max_age_months: 12 } },
  },
  response: page([{ ...WEB_HIT, match_type: 'exact' }]),
};

export const FEDIVERSE_SEARCH_EXAMPLES = {
  request: { words: { summary: 'Posts with a word', value: { q: 'Radweg', source: 'social.lindenau.example' } } },
  response: page([SOCIAL_HIT]),
};

export const SOCIAL_EXAMPLES = {
  request: { newest: { summary: 'Newest posts', value: {} } },
  response: page([SOCIAL_HIT]),
};
